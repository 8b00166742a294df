// Reflector<T>: keeps a ReflectorSink in step with one collection on the
// API server, with client-go's list-then-watch protocol:
//
//  1. List, page by page (limit 500 + continue) for the first list or after
//     an expired resource version; a relist at a known resourceVersion asks
//     for one unpaginated response (servable from the watch cache). An
//     expired continue token falls back to one unpaginated list; an expired
//     resource version falls back to a consistent read (""). Every item is
//     decoded with api::FromJson<T>; the sink gets Replace(objects, rv).
//  2. Watch from the list's resourceVersion with allowWatchBookmarks and a
//     timeoutSeconds drawn uniformly from [5 min, 10 min). ADDED / MODIFIED
//     / DELETED go to the sink, BOOKMARK only advances the resourceVersion,
//     an ERROR event ends the watch with its status.
//  3. When the watch ends:
//       closed normally              re-watch at once from the last RV
//                                    (after a backoff when it lasted < 1 s
//                                    with no event: a "short watch");
//       410 Gone / too old RV, or    relist at once (a list refused the
//       504 too large RV (kGone)     same way then lists from "");
//       an ADDED / MODIFIED object   back off, relist;
//       or a line that does not
//       decode, RequestRelist
//       connection loss, 5xx, 429    back off, re-watch from the last RV;
//       any other error              back off, relist.
//     A failed list is retried after a backoff. Backoff: backoff.h
//     (800 ms doubling to 30 s, 100% jitter, reset after 2 quiet minutes);
//     a watch that delivered an event also resets it.
//
// Robustness (architecture decision 5): an object that does not decode is
// logged with its key and event type and counted (IncDecodeErrors). In a
// list it is skipped (listing again would return it again). In an ADDED or
// MODIFIED event, or a stream line that does not parse, it means a change
// was lost and the store may be stale: the watch ends and the reflector
// relists after a backoff (IncForcedRelists "decode_error"), as client-go's
// reflector does on a watch decode error. A DELETED event whose object does
// not decode still deletes by key (final state unknown); an event of an
// unknown type is skipped. An event whose resourceVersion is
// not newer than the last one seen (a duplicate replayed after a re-watch)
// is dropped. Resource versions are compared numerically when both parse
// as integers (as every known server issues them), otherwise not at all.
//
// Stop: Run returns promptly once `stop` is requested: the ListerWatcher
// aborts its call, backoff waits wake up.
//
// Thread-safety: Run is called once, on the reflector's own thread; the sink
// is called on that thread. LastSyncResourceVersion is thread-safe.
// Instantiated for the types of KSCHED_INFORMER_FOR_EACH_TYPE.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/informer/backoff.h"
#include "pkg/informer/list_watcher.h"
#include "pkg/informer/reflector_metrics.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::informer {

// What a Reflector feeds, in stream order, on the reflector's thread.
template <class T>
class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // The complete collection after a (re)list at `resource_version`.
  virtual void OnReplace(std::vector<std::shared_ptr<const T>> objects, const std::string& resource_version) = 0;
  // Watch events. `more_arrived`: the watch already holds the next event
  // (RawWatchEvent::more_arrived), which the reflector decodes next; when
  // false, the reflector waits for the server after this call.
  virtual void OnAdded(std::shared_ptr<const T> object, bool more_arrived) = 0;
  virtual void OnModified(std::shared_ptr<const T> object, bool more_arrived) = 0;
  // `final_state` is null when the event's object could not be decoded.
  virtual void OnDeleted(const std::string& key, std::shared_ptr<const T> final_state, bool more_arrived) = 0;
};

struct ReflectorOptions {
  // The resource name used in logs and metrics ("pods").
  std::string resource;
  int64_t page_size = 500;
  BackoffOptions backoff;
  // Watches ask the server to end them after a time in [min, 2 * min).
  util::Duration min_watch_timeout = std::chrono::minutes(5);
  // A watch ending normally sooner than this with no event is a short watch.
  util::Duration short_watch = std::chrono::seconds(1);
  // Seeds the jitter and the watch timeouts; 0 picks a random seed.
  uint64_t seed = 0;
};

// "Is `candidate` newer than `last`?" for resource versions: true unless
// both are decimal integers and candidate <= last.
bool ResourceVersionIsNewer(const std::string& candidate, const std::string& last);

template <class T>
class Reflector {
 public:
  // All references must outlive the Reflector.
  Reflector(ListerWatcher& lister_watcher, ReflectorSink<T>& sink, const util::Clock& clock,
            ReflectorOptions options, ReflectorMetrics& metrics);
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Lists and watches until `stop` is requested.
  void Run(std::stop_token stop);

  // The resourceVersion the next watch would start from ("" before the
  // first list).
  std::string LastSyncResourceVersion() const;

  // Ends the current watch (or the next one, when none is open) and
  // relists after a backoff; `reason` labels IncForcedRelists
  // (kRelistDecodeError, kRelistHandlerError). Requests made before that
  // relist starts are one. Thread-safe; for SharedInformer, whose handler
  // threw.
  void RequestRelist(std::string_view reason);

 private:
  enum class Next { kRewatch, kBackoffRewatch, kRelist, kBackoffRelist, kStop };
  struct WatchState;

  // A whole list, decoded.
  struct Listed {
    std::vector<std::shared_ptr<const T>> objects;
    std::string resource_version;
  };

  // The collection's full state into the sink; false on failure or stop.
  bool ListAndReplace(std::stop_token stop);
  // Every page, each item decoded as it arrives, so that one item's JSON at
  // a time is held besides the objects (a start over a large cluster peaks
  // here).
  util::StatusOr<Listed> ListAll(const std::string& resource_version, int64_t page_size, std::stop_token stop);
  // One listed item into *objects; one that does not decode is counted,
  // logged and skipped.
  void DecodeListed(std::string_view item, std::vector<std::shared_ptr<const T>>* objects);
  Next WatchOnce(std::stop_token stop, bool restart);
  void HandleEvent(util::StatusOr<RawWatchEvent> event, WatchState& state);
  // Counts an event of `type` received (state and metrics).
  void CountEvent(const std::string& type, WatchState& state);
  // Hands a decoded object event to the sink unless its resourceVersion is
  // not newer than the last one seen.
  void DeliverDecoded(const std::string& type, T decoded, bool more_arrived);
  // Waits Backoff::Next(); false when stopped meanwhile.
  bool WaitBackoff(std::stop_token stop);
  void SetLastSyncResourceVersion(const std::string& rv);
  std::string RelistResourceVersion() const;

  ListerWatcher& lister_watcher_;
  ReflectorSink<T>& sink_;
  const util::Clock& clock_;
  const ReflectorOptions options_;
  ReflectorMetrics& metrics_;
  Backoff backoff_;
  std::mt19937_64 rng_;
  bool listed_once_ = false;
  // The last list or watch failed because the resource version is gone (or
  // unusable): list with "" (a consistent read) next.
  bool rv_unavailable_ = false;

  mutable std::mutex mu_;  // guards the fields below; wait_cv_ waits use it too
  std::condition_variable wait_cv_;
  std::string last_sync_rv_;
  // Stops the open watch (null when none); RequestRelist's reason, "" when
  // none is pending.
  std::stop_source* current_watch_ = nullptr;
  std::string relist_reason_;
};

}  // namespace ksched::informer
