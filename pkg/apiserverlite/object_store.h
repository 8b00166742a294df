// ObjectStore: the versioned in-memory storage of one resource (what etcd
// plus the watch cache are to the real server).
//
// Objects are raw JSON (nlohmann::json) held as immutable StoredObjects in a
// map ordered by key ("namespace/name"), so lists come back in the real
// server's order. Every committed change takes the next value of a
// ResourceVersionClock shared by all stores (resourceVersions are globally
// increasing, like etcd revisions), is appended to a bounded event history
// (the ring a watch replays from) and is fanned out to the watchers.
//
// Semantics kept from the real server:
//  - a watch from resourceVersion R replays every event with RV > R; R older
//    than the retained history answers 410 Expired;
//  - a MODIFIED event is sent as ADDED / DELETED to a watcher whose selector
//    starts / stops matching the object;
//  - an update that changes nothing is a no-op (no new RV, no event);
//  - deleting an object with finalizers only sets deletionTimestamp; the
//    update that removes the last finalizer deletes it.
//
// Thread-safety: every method is thread-safe. One mutex per store serializes
// writes, the history and the fan-out. Watch sinks and observers run under
// it and must not block (the HTTP sink copies into an in-memory buffer and
// drops a watcher that falls too far behind), so a slow watcher never blocks
// writers. Mutation callbacks also run under it: they must not call into the
// same store.
//
// Complexity: Get/Create/Update/Delete O(log n + watchers); List O(n);
// watch from an RV O(log h + replayed events).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pkg/apiserverlite/api_error.h"
#include "pkg/apiserverlite/watch.h"

namespace ksched::apiserver {

// The global resourceVersion counter. Thread-safe.
class ResourceVersionClock {
 public:
  // Allocates the next resourceVersion.
  uint64_t Next() { return rv_.fetch_add(1, std::memory_order_acq_rel) + 1; }
  // The last allocated resourceVersion.
  uint64_t Current() const { return rv_.load(std::memory_order_acquire); }

 private:
  std::atomic<uint64_t> rv_{0};
};

class ObjectStore {
 public:
  using Predicate = std::function<bool(const nlohmann::json&)>;
  // Returns the new object for `current`, or an error that aborts the
  // update. Runs under the store's mutex.
  using Mutation = std::function<ApiResult<nlohmann::json>(const nlohmann::json& current)>;
  // Returns an error to refuse a delete (preconditions). Runs under the mutex.
  using DeleteCheck = std::function<std::optional<ApiError>(const nlohmann::json& current)>;
  // Sees every committed event, in order, under the store's mutex.
  using Observer = std::function<void(const EventPtr&)>;

  struct ListResult {
    std::vector<ObjectPtr> items;
    uint64_t resource_version = 0;
  };
  struct DeleteResult {
    ObjectPtr object;      // last state (deleted) or the state with deletionTimestamp
    bool deleted = false;  // false when finalizers kept the object
  };

  // `resource` is the qualified resource name used in error messages
  // ("pods", "leases.coordination.k8s.io"); `history_limit` >= 1.
  ObjectStore(std::string resource, ResourceVersionClock& clock, size_t history_limit);
  ~ObjectStore();

  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // The object stored under `key`, or null.
  ObjectPtr Get(const std::string& key) const;

  // Objects whose key starts with `key_prefix` ("ns/" for one namespace, ""
  // for all) and that match `predicate` (empty: all), in key order, with the
  // resourceVersion the list is consistent with.
  ListResult List(const std::string& key_prefix, const Predicate& predicate) const;

  // Stores a new object. metadata.name (and metadata.namespace for
  // namespaced resources) must be set; metadata.resourceVersion is assigned.
  // AlreadyExists when the key is taken.
  ApiResult<ObjectPtr> Create(nlohmann::json object);

  // Replaces the object under `key` with mutate(current). The result keeps
  // its key; metadata.resourceVersion is assigned. NotFound when absent. A
  // result with a deletionTimestamp, no finalizers and no positive
  // deletionGracePeriodSeconds is deleted (the last finalizer went).
  ApiResult<ObjectPtr> Update(const std::string& key, const Mutation& mutate);

  // Deletes the object under `key` (NotFound when absent). `check` may
  // refuse. An object with metadata.finalizers gets metadata.deletionTimestamp
  // = `deletion_timestamp` instead (once) and stays; one already terminating
  // in a grace period gets deletionGracePeriodSeconds 0 (the kubelet's final
  // delete), so that removing its last finalizer deletes it.
  ApiResult<DeleteResult> Delete(const std::string& key, const DeleteCheck& check,
                                 const std::string& deletion_timestamp);

  // Opens a watch: writes the initial or replayed events into `sink`, then
  // every matching event until StopWatch, CloseWatchers or a failed write.
  // Returns the watcher id, or Expired (410) when options.resource_version
  // is older than the retained history (nothing is written then).
  ApiResult<uint64_t> Watch(const WatchOptions& options, std::shared_ptr<WatchSink> sink);
  // Removes a watcher and closes its sink; unknown ids are ignored.
  void StopWatch(uint64_t id);
  // Closes every watch stream (the fault injector's "drop watches").
  void CloseWatchers();
  // Sends a BOOKMARK with the current resourceVersion to every watcher that
  // asked for bookmarks.
  void SendBookmarks();
  // Drops the event history: a watch from any resourceVersion issued before
  // now answers 410 Expired.
  void Compact();

  // Observers run under the store's mutex for every committed change; the
  // id removes one again (RemoveObserver returns once no call to it runs).
  uint64_t AddObserver(Observer observer);
  void RemoveObserver(uint64_t id);

  size_t size() const;
  size_t watcher_count() const;
  // Watches from a resourceVersion below this answer 410.
  uint64_t history_floor() const;
  const std::string& resource() const { return resource_; }

 private:
  struct Watcher {
    WatchOptions options;
    std::shared_ptr<WatchSink> sink;
  };

  // The sinks written to while mu_ was held, flushed (WatchSink::Flush)
  // when it goes out of scope: declared before the lock, so after unlock.
  struct PendingFlush {
    std::vector<std::shared_ptr<WatchSink>> sinks;
    ~PendingFlush() {
      for (const auto& sink : sinks) sink->Flush();
    }
  };

  // All below: mu_ held.
  ObjectPtr CommitLocked(EventType type, nlohmann::json object, const std::string& key,
                         const ObjectPtr& previous, PendingFlush* flush);
  void PublishLocked(const EventPtr& event, PendingFlush* flush);
  // Sends `event` to one watcher; false when its sink refused the write.
  bool DeliverLocked(const Watcher& w, const WatchEvent& event);
  bool WriteObjectLocked(const Watcher& w, EventType type, const StoredObject& obj);
  std::string BookmarkLineLocked(const Watcher& w, bool initial_events_end) const;

  const std::string resource_;
  ResourceVersionClock& clock_;
  const size_t history_limit_;

  mutable std::mutex mu_;
  std::map<std::string, ObjectPtr> objects_;
  std::deque<EventPtr> history_;
  uint64_t history_floor_;
  std::map<uint64_t, Watcher> watchers_;
  uint64_t next_watcher_id_ = 1;
  std::map<uint64_t, Observer> observers_;
  uint64_t next_observer_id_ = 1;
};

}  // namespace ksched::apiserver
