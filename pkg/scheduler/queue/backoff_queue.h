// BackoffQueue: pods waiting out their backoff before they may be retried
// (kube-scheduler 1.33+ backoffQ), as two heaps behind one interface:
// - the rejection heap: pods that came back with rejector plugins;
// - the error heap: pods that came back without any (internal or API
//   errors). These are never popped before their backoff completes.
// A pod is in at most one of them; Add moves it to the right one.
//
// Backoff: duration(attempts) = 0 for attempts == 0, else
// min(max, initial * 2^(attempts-1)) computed without overflow; deadline =
// timestamp + duration, cached in QueuedPodInfo::backoff_expiration. With
// SchedulerPopFromBackoffQ the deadline is truncated to a whole second (an
// "ordering window"), the rejection heap orders by window and then by the
// activeQ order, and a pod counts as backing off until the window of "now"
// has moved past its deadline's window.
//
// Like activeQ, the heaps keep the fields they compare beside each record
// (see ActiveQueue).
//
// Complexity: O(log n) per Add/Delete/Pop; flushing k completed pods is
// O(k log n).
// Thread-safety: none; PriorityQueue calls it under its mutex.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/queue/heap.h"
#include "pkg/scheduler/queue/metrics.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::queue {

// Length of a backoff ordering window; also the backoff flush period.
inline constexpr util::Duration kBackoffOrderingWindow = std::chrono::seconds(1);

class BackoffQueue {
 public:
  BackoffQueue(const util::Clock& clock, util::Duration initial_backoff, util::Duration max_backoff,
               const framework::QueueSortPlugin& sort, bool pop_from_backoff_q, QueueMetricsRecorder& metrics);

  // The backoff a pod with `attempts` attempts owes (overflow-safe).
  util::Duration BackoffDuration(int attempts) const;
  // Truncates to the ordering window when windows are on; identity if not.
  util::TimePoint AlignToWindow(util::TimePoint t) const;
  // The pod's backoff deadline, computed once and cached in the record.
  // TimePoint::min() for a never-attempted pod (it owes no backoff).
  util::TimePoint BackoffTime(framework::QueuedPodInfo& info) const;
  // Whether the pod must still wait (caches its deadline).
  bool IsPodBackingOff(framework::QueuedPodInfo& info) const;

  // Puts the pod in the heap its rejectors select (removing it from the
  // other); counts queue_incoming_pods{backoff,event}.
  void Add(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event);
  // Swaps in `new_pod` if the pod is here; returns its record or nullptr.
  framework::QueuedPodInfo* Update(std::string_view key, std::shared_ptr<const api::Pod> new_pod);
  framework::QueuedPodInfoPtr Delete(std::string_view key);
  const framework::QueuedPodInfoPtr* Get(std::string_view key) const;
  bool Has(std::string_view key) const { return rejection_.Has(key) || error_.Has(key); }

  size_t size() const { return rejection_.size() + error_.size(); }
  size_t rejection_size() const { return rejection_.size(); }
  size_t error_size() const { return error_.size(); }

  // Pops the rejection heap's head regardless of its deadline (Pop with
  // SchedulerPopFromBackoffQ when activeQ is empty). Must not be empty.
  std::pair<std::string, framework::QueuedPodInfoPtr> PopRejectionHead();
  // A pod whose backoff completed, with its key and the key's StringHash.
  struct Completed {
    std::string key;
    size_t hash;
    framework::QueuedPodInfoPtr info;
  };
  // Pops every pod whose backoff completed, rejection heap first.
  std::vector<Completed> PopAllBackoffCompleted();

  template <class Fn>
  void ForEach(Fn&& fn) const {
    rejection_.ForEach([&](const std::string&, const framework::QueuedPodInfoPtr& info) { fn(info); });
    error_.ForEach([&](const std::string&, const framework::QueuedPodInfoPtr& info) { fn(info); });
  }

 private:
  // A heap slot: copies of what the heaps order by (the record's deadline
  // and, for the standard (PrioritySort) tie-break, its priority and
  // timestamp; the record's address for another QueueSort plugin), so
  // sifting never follows the record pointer. Refreshed on every insertion
  // and update.
  struct Slot {
    util::TimePoint::rep deadline;
    union {
      util::TimePoint::rep timestamp;        // priority_sort_
      const framework::QueuedPodInfo* info;  // otherwise
    };
    int32_t priority;
    uint32_t handle;
  };
  // Orders by deadline; with windows, by window then by the activeQ order.
  struct RejectionOrder {
    const BackoffQueue* q;
    using Slot = BackoffQueue::Slot;
    Slot MakeSlot(const framework::QueuedPodInfoPtr& info, uint32_t handle) const {
      return q->MakeSlot(*info, handle);
    }
    bool Less(const Slot& a, const Slot& b) const;
  };
  struct ErrorOrder {
    const BackoffQueue* q;
    using Slot = BackoffQueue::Slot;
    Slot MakeSlot(const framework::QueuedPodInfoPtr& info, uint32_t handle) const {
      return q->MakeSlot(*info, handle);
    }
    bool Less(const Slot& a, const Slot& b) const { return a.deadline < b.deadline; }
  };
  Slot MakeSlot(const framework::QueuedPodInfo& info, uint32_t handle) const;
  using RejectionHeap = Heap<framework::QueuedPodInfoPtr, RejectionOrder>;
  using ErrorHeap = Heap<framework::QueuedPodInfoPtr, ErrorOrder>;

  // The cached deadline of a pod already in a heap.
  static util::TimePoint CachedBackoffTime(const framework::QueuedPodInfo& info) {
    return info.attempts == 0 ? util::TimePoint::min() : *info.backoff_expiration;
  }
  template <class H>
  void PopCompleted(H& heap, std::vector<Completed>* out);

  const util::Clock& clock_;
  util::Duration initial_backoff_;
  util::Duration max_backoff_;
  const framework::QueueSortPlugin& sort_;
  // The sort declares the standard order: tie-break on the cached fields.
  const bool priority_sort_;
  bool windows_;
  QueueMetricsRecorder& metrics_;
  RejectionHeap rejection_;
  ErrorHeap error_;
};

}  // namespace ksched::scheduler::queue
