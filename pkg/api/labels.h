// Label selectors and field selectors, as k8s.io/apimachinery/pkg/labels and
// pkg/fields define them.
//
// A Selector is a compiled, validated list of LabelRequirements that are
// ANDed. It is built from an api::LabelSelector (matchLabels +
// matchExpressions), from a label set, or parsed from the string form used in
// `?labelSelector=` ("a=b,c!=d,e in (x,y),f notin (z),g,!h,i>3"). A selector
// with no requirements matches everything; Selector::Nothing() matches
// nothing (kube's answer for a nil *metav1.LabelSelector in PDBs and
// services). Matching is O(requirements * log(labels)).
//
// A FieldSelector is the API server's fieldSelector: "a=b,c==d,e!=f" terms,
// ANDed, evaluated against the field values the caller extracts.
//
// Thread-safety: immutable value types; const methods are safe to call
// concurrently.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/status.h"

namespace ksched::api {

enum class SelectorOperator {
  kIn,
  kNotIn,
  kEquals,        // "="
  kDoubleEquals,  // "=="
  kNotEquals,     // "!="
  kExists,
  kDoesNotExist,
  kGreaterThan,   // ">", integer compare
  kLessThan,      // "<", integer compare
};

// Label key: an optional DNS-subdomain prefix and "/", then a name of at most
// 63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric.
util::Status ValidateLabelKey(std::string_view key);
// Label value: empty, or at most 63 characters of [A-Za-z0-9-_.] starting and
// ending alphanumeric.
util::Status ValidateLabelValue(std::string_view value);

class LabelRequirement {
 public:
  // Validates like kube's labels.NewRequirement: In/NotIn need values,
  // Equals/NotEquals exactly one, Exists/DoesNotExist none, Gt/Lt exactly
  // one integer; the key and every value must be valid. Values are kept
  // sorted and de-duplicated.
  static util::StatusOr<LabelRequirement> Create(std::string key, SelectorOperator op,
                                                 std::vector<std::string> values);

  bool Matches(const StringMap& labels) const;

  const std::string& key() const { return key_; }
  SelectorOperator op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }
  // "a=b", "a!=b", "a in (x,y)", "a notin (x)", "a", "!a", "a>3".
  std::string ToString() const;

  bool operator==(const LabelRequirement&) const = default;

 private:
  friend class Selector;  // FromSet builds unvalidated equality requirements
  LabelRequirement(std::string key, SelectorOperator op, std::vector<std::string> values)
      : key_(std::move(key)), op_(op), values_(std::move(values)) {}

  std::string key_;
  SelectorOperator op_;
  std::vector<std::string> values_;
};

class Selector {
 public:
  Selector() = default;  // matches everything

  static Selector Everything() { return Selector(); }
  static Selector Nothing();

  // metav1.LabelSelectorAsSelector: an empty selector matches everything.
  static util::StatusOr<Selector> FromLabelSelector(const LabelSelector& selector);
  // As above; an unset selector matches nothing.
  static util::StatusOr<Selector> FromLabelSelector(const std::optional<LabelSelector>& selector);
  // Equality requirements for each entry (labels.SelectorFromValidatedSet);
  // keys and values are not validated.
  static Selector FromSet(const StringMap& set);
  // The string form; "" (or only whitespace) matches everything. Errors say
  // what was found and what was expected.
  static util::StatusOr<Selector> Parse(std::string_view s);

  bool Matches(const StringMap& labels) const;
  // True when the selector has no requirements (and so matches everything).
  bool Empty() const { return !nothing_ && requirements_.empty(); }
  bool IsNothing() const { return nothing_; }

  // A copy with r added, requirements kept sorted by key.
  Selector Add(LabelRequirement r) const;
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // The string form, requirements sorted by key; Parse(ToString()) is an
  // equivalent selector. Nothing() prints as "".
  std::string ToString() const;

 private:
  std::vector<LabelRequirement> requirements_;  // sorted by key (stable)
  bool nothing_ = false;
};

struct FieldRequirement {
  std::string field;
  bool equals = true;  // false for "!="
  std::string value;   // unescaped

  bool operator==(const FieldRequirement&) const = default;
};

class FieldSelector {
 public:
  FieldSelector() = default;  // matches everything

  // "a=b,c==d,e!=f". Values may escape '\\', ',' and '=' with a backslash,
  // as fields.EscapeValue writes them; unescaped ',' splits terms.
  static util::StatusOr<FieldSelector> Parse(std::string_view s);

  // Evaluates against extracted field values; a field absent from `fields`
  // reads as "" (as kube's fields.Set does).
  bool Matches(const StringMap& fields) const;
  bool Empty() const { return requirements_.empty(); }
  // The value an "=" / "==" term pins `field` to, if any: lets a caller
  // index a lookup (e.g. spec.nodeName) instead of scanning.
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  // Terms in order, values escaped; Parse(ToString()) round-trips.
  std::string ToString() const;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace ksched::api
