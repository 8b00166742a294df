// ActiveQueue: activeQ (pods ready to be scheduled, ordered by the
// QueueSort plugin) plus the in-flight bookkeeping of pods popped from it.
//
// In-flight tracking (only with SchedulerQueueingHints): every cluster
// event that arrives while at least one pod is in flight gets the next
// sequence number and is appended to an event log; Pop stamps the pod with
// the sequence number the next event will get. "The events a pod missed" are
// exactly the log entries from its stamp on. Done forgets the pod and drops
// the log prefix older than the oldest remaining in-flight pod, so the log
// holds only events some in-flight pod may still need. (kube-scheduler keeps
// pods and events in one list; looking up a pod's events then walks past
// every other in-flight pod, which is quadratic when many pods are in
// flight. The log gives the same answers in O(events returned).)
//
// Ordering: by the QueueSort plugin. For a plugin that declares the standard
// order (QueueSortPlugin::OrdersByPriorityThenTimestamp, as PrioritySort
// does) the heap compares copies of the priority and timestamp kept beside
// each record, which gives the same order without a pointer dereference per
// comparison.
//
// In-flight pods live in a slab of markers (freed slots reused) linked in
// pop order and indexed by UID hash (KeyIndex), so a Pop and its Done
// allocate nothing. The UID hash comes from the PodInfo (hashed when the
// pod was derived), so Pop does not read the UID's bytes (it only takes a
// reference to the pod); Done for the pod popped last (the scheduling
// loop's usual call) recognizes the UID string by address and hashes
// nothing either.
//
// Pops in a row are pipelined over three Pops: when Pop k begins, the heap
// fetches the entries of the next two heads (read off the top of the
// heap); at its end PrefetchHead fetches the record of the head after next
// (from its entry, fetched at the start) and the pod counts and derived
// data of the next head (from its record, fetched one Pop earlier). Each
// of these dependent cache misses then overlaps a Pop's work instead of
// stalling the next one (at 100k queued pods, stalls on them would be half
// of Pop's cost).
//
// Complexity: heap operations O(log n); MarkInFlight and Done O(1) expected
// plus O(pruned events); EventsSince O(events returned).
// Thread-safety: none; PriorityQueue calls it under its mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cluster_event.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/queueing_hint.h"
#include "pkg/scheduler/queue/heap.h"
#include "pkg/scheduler/queue/key_index.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::queue {

// A cluster event recorded while pods were in flight.
struct InFlightEvent {
  framework::ClusterEvent event;
  std::string label;  // event.Label(), kept for the in-flight gauge
  framework::EventObject old_obj;
  framework::EventObject new_obj;
};

class ActiveQueue {
 public:
  using PodPtr = std::shared_ptr<const api::Pod>;

  ActiveQueue(const framework::QueueSortPlugin& sort, bool track_in_flight, QueueMetricsRecorder& metrics);

  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }
  // Whether the heap orders by the cached priority and timestamp.
  bool uses_cached_order() const { return cached_order_; }
  bool Has(std::string_view key) const { return heap_.Has(key); }
  // Hint: a key with this StringHash is about to be added or looked up.
  void PrefetchKey(size_t hash) const { heap_.PrefetchKey(hash); }
  // Hint: a pod whose key has this StringHash is about to be added.
  void PrefetchInsert(size_t hash) const { heap_.PrefetchInsert(hash); }
  const framework::QueuedPodInfoPtr* Get(std::string_view key) const { return heap_.Get(key); }

  // Inserts (or replaces) the pod; counts queue_incoming_pods{active,event}.
  void Add(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event) {
    Add(key, StringHash{}(key), std::move(info), event);
  }
  // As Add with the key's StringHash, which the caller already has.
  void Add(std::string_view key, size_t hash, framework::QueuedPodInfoPtr info, std::string_view event);
  // As Add, taking ownership of the key string (no copy) with its
  // StringHash, which the caller already has. A distinct name: an overload
  // on std::string&& would make Add("literal", ...) ambiguous.
  void AddOwned(std::string&& key, size_t hash, framework::QueuedPodInfoPtr info, std::string_view event);
  // Swaps in `new_pod` if the pod is here; returns its record or nullptr.
  framework::QueuedPodInfo* Update(std::string_view key, std::shared_ptr<const api::Pod> new_pod);
  framework::QueuedPodInfoPtr Delete(std::string_view key);
  // Removes the head; the queue must not be empty.
  framework::QueuedPodInfoPtr PopHead();
  // Hint: the head, then the one after it, are about to be popped. Fetches
  // the head's pod counts and derived data, and the record of the head
  // after it (see the pipeline above). No effect on contents.
  void PrefetchHead() const;

  template <class Fn>
  void ForEach(Fn&& fn) const {
    heap_.ForEach([&](const std::string&, const framework::QueuedPodInfoPtr& info) { fn(info); });
  }

  int64_t scheduling_cycle() const { return sched_cycle_; }
  void IncrementSchedulingCycle() { ++sched_cycle_; }

  // --- in-flight tracking (no-ops when not tracking) ---
  bool tracking_in_flight() const { return track_in_flight_; }
  // Records the pod of `info` as in flight; false if its UID already is (a
  // duplicate that the caller must discard).
  bool MarkInFlight(const framework::PodInfo& info);
  // Ends the pod's flight (idempotent).
  void Done(const std::string& uid);
  // Done for every in-flight pod (Close).
  void DoneAll();
  bool IsInFlight(std::string_view uid) const { return FindMarker(uid) != kNoMarker; }
  // Appends `events` (each with old/new) if `new_pod` is in flight;
  // returns whether it was.
  bool AddEventsIfPodInFlight(const PodPtr& old_pod, const PodPtr& new_pod,
                              const std::vector<framework::ClusterEvent>& events);
  // Appends the event if any pod is in flight; returns whether it did.
  bool AddEventIfAnyInFlight(const framework::EventObject& old_obj, const framework::EventObject& new_obj,
                             const framework::ClusterEvent& event);
  // The events recorded since `uid` was popped, oldest first; nullopt when
  // the pod is not in flight.
  std::optional<std::vector<const InFlightEvent*>> EventsSince(std::string_view uid) const;
  std::vector<PodPtr> InFlightPods() const;
  // The in-flight pod with `uid`, or nullptr. O(1).
  PodPtr InFlightPod(std::string_view uid) const {
    const uint32_t m = FindMarker(uid);
    return m == kNoMarker ? nullptr : markers_[m].pod;
  }
  // In-flight pods plus logged events (kube's inFlightEvents list length).
  size_t in_flight_list_size() const { return by_uid_.size() + events_.size(); }

 private:
  // activeQ's order. With PrioritySort, a heap slot holds copies of the
  // two fields it orders by (priority, timestamp) beside the handle: 16
  // bytes, compared without following a pointer (at 100k pods, following
  // it would be most of the cost of Pop). The copies are refreshed whenever
  // the record is (re)inserted or updated here, and nothing else changes a
  // record's priority or timestamp while it sits in activeQ. With another
  // QueueSort plugin the slot holds the record's address for the plugin.
  struct Order {
    // nullptr: the sort plugin declares the standard order; order by the
    // cached fields (higher priority, then earlier timestamp).
    const framework::QueueSortPlugin* sort;
    struct Slot {
      int32_t priority;
      uint32_t handle;
      union {
        util::TimePoint::rep timestamp;        // sort == nullptr
        const framework::QueuedPodInfo* info;  // otherwise
      };
    };
    Slot MakeSlot(const framework::QueuedPodInfoPtr& info, uint32_t handle) const {
      Slot s;
      s.handle = handle;
      if (sort == nullptr) {
        s.priority = info->pod_info.priority();
        s.timestamp = info->timestamp.time_since_epoch().count();
      } else {
        s.priority = 0;
        s.info = info.get();
      }
      return s;
    }
    bool Less(const Slot& a, const Slot& b) const {
      if (sort == nullptr) {
        return a.priority > b.priority || (a.priority == b.priority && a.timestamp < b.timestamp);
      }
      return sort->Less(*a.info, *b.info);
    }
  };
  static_assert(sizeof(Order::Slot) == 16);
  // An in-flight pod; a slab slot, linked in pop order. `pod` null: free.
  struct Marker {
    PodPtr pod;
    uint64_t first_event = 0;  // sequence number of the first event it needs
    size_t uid_hash = 0;
    uint32_t prev = kNoMarker;
    uint32_t next = kNoMarker;  // also links free slots
  };
  static constexpr uint32_t kNoMarker = KeyIndex::kNone;
  uint32_t FindMarker(std::string_view uid) const { return FindMarker(uid, StringHash{}(uid)); }
  uint32_t FindMarker(std::string_view uid, size_t hash) const {
    return by_uid_.Find(hash, [&](uint32_t m) { return markers_[m].pod->metadata.uid == uid; });
  }
  void EraseMarker(uint32_t m);
  // Fetches the lines of the pod and derived data of `info` that Pop and
  // dropping the record touch.
  static void PrefetchPodOf(const framework::QueuedPodInfo& info);
  void PushEvent(const framework::ClusterEvent& event, framework::EventObject old_obj,
                 framework::EventObject new_obj);
  void PruneEvents();

  bool cached_order_;
  Heap<framework::QueuedPodInfoPtr, Order> heap_;
  bool track_in_flight_;
  QueueMetricsRecorder& metrics_;
  int64_t sched_cycle_ = 0;
  std::vector<Marker> markers_;
  uint32_t oldest_ = kNoMarker;     // head of the pop-order list
  uint32_t newest_ = kNoMarker;     // its tail
  uint32_t free_marker_ = kNoMarker;  // free slots, linked through `next`
  KeyIndex by_uid_;                 // UID hash -> marker slot
  std::deque<InFlightEvent> events_;
  uint64_t first_seq_ = 0;  // sequence number of events_.front()
  uint64_t next_seq_ = 0;   // sequence number of the next event
};

}  // namespace ksched::scheduler::queue
