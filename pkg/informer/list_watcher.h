// ListerWatcher: where a Reflector gets its data. One instance serves one
// collection (e.g. all pods not Succeeded/Failed, all nodes); it knows the
// path and selectors, the Reflector knows the protocol (paging, resource
// versions, relist and re-watch decisions).
//
// Objects cross this interface undecoded (JSON text, which the Reflector
// decodes straight into its type, or for watch events possibly a JSON
// tree) so the Reflector can decode them one at a time, as they arrive,
// and skip a malformed one without losing the rest.
//
// Implementations: RestListerWatcher (rest_lister_watcher.h, over
// pkg/client's RestClient) and FakeListerWatcher (fake_lister_watcher.h,
// scripted, for tests).
//
// Thread-safety: a Reflector calls List and Watch from its own thread, one
// call at a time; implementations must tolerate being destroyed only after
// the Reflector has stopped.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::informer {

// One page of a list request (metav1.ListOptions' paging subset).
struct ListOptions {
  // Page size; 0 asks for everything in one response.
  int64_t limit = 0;
  // The previous page's continue token; empty for the first page. When set,
  // resource_version is ignored (the token pins the snapshot).
  std::string continue_token;
  // "" = most recent (consistent read); "0" = any (may be served from a
  // cache); otherwise not older than this version.
  std::string resource_version;
};

// Receives each item of a list page as JSON text, in the page's order, as
// soon as the item has arrived; the text lives only during the call. The
// Reflector decodes each one at once, so no page is ever held whole (a page
// may be a whole cluster: servers ignore limit with resourceVersion "0").
using ListItemCallback = std::function<void(std::string_view item_text)>;

// What a list page says besides its items.
struct ListPageInfo {
  // The resourceVersion of the list (the same on every page of one list).
  std::string resource_version;
  // Non-empty when more pages follow.
  std::string continue_token;
};

struct WatchOptions {
  std::string resource_version;
  bool allow_watch_bookmarks = true;
  // The server ends the stream after this many seconds; nullopt leaves the
  // choice to the server.
  std::optional<int64_t> timeout_seconds;
};

// One event of a watch stream as it arrived: type ADDED, MODIFIED, DELETED,
// BOOKMARK (or ERROR, see Watch) and the undecoded object.
struct RawWatchEvent {
  std::string type;
  // The parsed object; null when object_text carries it instead.
  nlohmann::json object;
  // The object's JSON text, not parsed: the Reflector decodes it straight
  // into its type (api::FromJsonText). Empty when `object` holds the
  // object.
  std::string object_text;
  // object_text is the rest of the watch line, unread
  // (client::WatchEvent::object_unchecked): the object when it decodes.
  bool object_unchecked = false;
  // The next event had already arrived (client::WatchEvent::more_arrived):
  // the watcher goes on without waiting for the server.
  bool more_arrived = false;
};

// Receives each event in stream order, or a kInvalidArgument error for a
// line that could not be parsed at all (already skipped by the watcher).
using WatchEventCallback = std::function<void(util::StatusOr<RawWatchEvent>)>;

class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;

  // Fetches one page, passing its items to `on_item` as they arrive.
  // Errors: kGone when the continue token or the resource version has
  // expired (the caller starts over), kCancelled when `stop` was requested,
  // others as pkg/client maps them (kUnavailable for transient failures).
  // After an error, the items already passed belong to a failed page: the
  // caller drops them.
  virtual util::StatusOr<ListPageInfo> List(const ListOptions& options, const ListItemCallback& on_item,
                                            std::stop_token stop) = 0;

  // Streams events into `callback` until the stream ends. Returns
  //   OK           the server closed the stream normally (timeoutSeconds);
  //   kGone        the resource version is too old (HTTP 410, or an ERROR
  //                event carrying 410): the caller must relist;
  //   kCancelled   `stop` was requested; must return promptly after it;
  //   another      connection loss, 5xx, 429, or an ERROR event's status.
  // Implementations should turn ERROR events into the returned status rather
  // than passing them to the callback; a Reflector tolerates both.
  virtual util::Status Watch(const WatchOptions& options, const WatchEventCallback& callback,
                             std::stop_token stop) = 0;
};

}  // namespace ksched::informer
