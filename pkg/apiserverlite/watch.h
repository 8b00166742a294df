// Watch plumbing shared by ObjectStore and the HTTP layer: stored objects,
// watch events, the sink a watcher writes its stream into, and the options a
// watch is opened with.
//
// A StoredObject is immutable once published and shared by the store, the
// event history and every watcher (std::shared_ptr<const StoredObject>), so
// an object is serialized exactly once per version. A WatchEvent caches its
// serialized wire line per event type, so N watchers of one event share one
// string; the cache is only touched under the owning store's mutex.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::apiserver {

// One version of one object.
struct StoredObject {
  nlohmann::json object;   // full object, metadata.resourceVersion included
  std::string serialized;  // object.dump(): what lists and watches send
  std::string key;         // ObjectKey(namespace, name)
  uint64_t resource_version = 0;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

// Builds a StoredObject from a complete object (serializes it once).
ObjectPtr MakeStoredObject(nlohmann::json object, std::string key, uint64_t resource_version);

enum class EventType { kAdded = 0, kModified = 1, kDeleted = 2, kBookmark = 3, kError = 4 };
const char* EventTypeName(EventType t);

// `{"type":"ADDED","object":<serialized>}` followed by '\n'.
std::string WatchLine(EventType type, std::string_view serialized_object);

// A change committed to a store. `object` is the new state (for kDeleted:
// the last state, carrying the deletion's resourceVersion); `previous` is
// the state before the change (null for kAdded).
class WatchEvent {
 public:
  WatchEvent(EventType type, ObjectPtr object, ObjectPtr previous);

  EventType type() const { return type_; }
  uint64_t resource_version() const { return object_->resource_version; }
  const ObjectPtr& object() const { return object_; }
  const ObjectPtr& previous() const { return previous_; }

  // The wire line for this event sent as `as` (kAdded, kModified or
  // kDeleted): a MODIFIED event is sent as ADDED or DELETED to a watcher
  // whose selector starts or stops matching the object; sent as DELETED it
  // carries the previous content with the event's resourceVersion, as the
  // real watch cache does. Not thread-safe: the owning store calls it under
  // its mutex.
  const std::string& Line(EventType as) const;
  // The object a DELETED line of this event carries (see Line).
  nlohmann::json DeletedView() const;

 private:
  EventType type_;
  ObjectPtr object_;
  ObjectPtr previous_;
  mutable std::array<std::optional<std::string>, 3> lines_;
};
using EventPtr = std::shared_ptr<const WatchEvent>;

// Where a watcher's stream goes. Implementations: the HTTP chunked response
// (server.cc) and in-process consumers (tests, the simulated kubelet).
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // Appends one line. Called with the store's mutex held: must not block and
  // must not call back into the store. Returns false when the consumer is
  // gone or has fallen too far behind; the store then drops the watcher and
  // calls Close().
  virtual bool Write(std::string_view line) = 0;
  // Ends the stream; idempotent. Called with the store's mutex held.
  virtual void Close() = 0;
  // Called by the store without its mutex, after the Writes of one change
  // (a commit, a round of bookmarks), in commit order per store. A sink may
  // push what was written out on the calling thread here, but must not
  // block. The default does nothing.
  virtual void Flush() {}
};

struct WatchOptions {
  // 0: begin with a synthetic ADDED event per current object, then stream
  // (resourceVersion "" or "0"). Otherwise replay the history after it.
  uint64_t resource_version = 0;
  // Send BOOKMARK events (allowWatchBookmarks).
  bool bookmarks = false;
  // sendInitialEvents=true: after the initial ADDED events, one BOOKMARK
  // annotated "k8s.io/initial-events-end" (sent when bookmarks is set).
  bool initial_events_end_bookmark = false;
  // Which objects this watcher sees; empty matches everything. Receives the
  // stored object.
  std::function<bool(const nlohmann::json&)> predicate;
  // Converts a stored object to what this watcher is sent (the
  // events.k8s.io/v1 view of core events, a Table row for kubectl); empty
  // for the identity. Called in event order under the store's mutex, so it
  // may keep state. A converted object is serialized per watcher.
  std::function<nlohmann::json(const nlohmann::json&)> view;
  // apiVersion and kind written in BOOKMARK objects ("v1", "Pod").
  std::string api_version;
  std::string kind;
};

}  // namespace ksched::apiserver
