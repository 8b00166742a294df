// ListBodyScanner: finds the items of a Kubernetes list response (a JSON
// object whose "items" member is an array) in its body while the bytes
// arrive, and hands each item's JSON text to a callback as soon as the item
// is complete. It holds only the item in progress and the small top-level
// members, never the whole body: a list at resourceVersion "0" is a whole
// cluster in one response (servers ignore limit there), and holding its text
// was the largest part of a start's memory peak.
//
// It checks the structure it walks (the top-level object, its keys, the
// items array, string escapes and nesting); an item's own syntax is left to
// its decoder, which skips a malformed item without losing the others.
// Errors are final: kInternal for a body that is not such a list, with the
// reason.
//
// Thread-safety: none (one list response, one thread). Cost: one pass over
// each byte.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::informer {

class ListBodyScanner {
 public:
  using ItemCallback = std::function<void(std::string_view item_text)>;

  // `what` names the response in errors (e.g. "GET /api/v1/pods").
  ListBodyScanner(std::string what, ItemCallback on_item);

  // The next bytes of the body. After an error, further calls return it.
  util::Status Feed(std::string_view bytes);
  // The body ended: an error unless it was one whole list.
  util::Status Finish();

  // The list's metadata.resourceVersion and metadata.continue ("" when
  // absent), known once the metadata member has passed.
  const std::string& resource_version() const { return resource_version_; }
  const std::string& continue_token() const { return continue_token_; }

 private:
  enum class State {
    kBeforeObject,    // before the top-level '{'
    kKeyOrClose,      // after '{': a key or '}'
    kCommaOrClose,    // after a member: ',' or '}'
    kKey,             // after ',': a key
    kInKey,           // inside a key's quotes
    kColon,           // after a key
    kValue,           // after ':': the member's value starts
    kInValue,         // inside a member's value (captured)
    kItemOrClose,     // after "items": '[': an item or ']'
    kItemCommaOrClose,  // after an item: ',' or ']'
    kItem,            // after ',' in items: an item
    kInItem,          // inside an item (captured)
    kAfterObject,     // after the top-level '}': only whitespace
  };

  // Steps a captured value by one byte: true when the value ended. A scalar
  // ends before its delimiter, which is then not consumed (*consumed false).
  bool StepValue(char c, bool* consumed);
  void StartValue(char c);
  util::Status EndMember();
  util::Status Fail(const std::string& why);

  const std::string what_;
  const ItemCallback on_item_;
  State state_ = State::kBeforeObject;
  util::Status error_;
  std::string key_;
  bool key_escaped_ = false;
  bool seen_items_ = false;
  // The value being captured: its bytes, nesting depth, and string state.
  std::string value_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool scalar_ = false;
  std::string resource_version_;
  std::string continue_token_;
};

}  // namespace ksched::informer
