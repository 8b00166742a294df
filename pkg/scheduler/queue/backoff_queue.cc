#include "pkg/scheduler/queue/backoff_queue.h"

#include <spdlog/spdlog.h>

#include "pkg/api/types.h"

namespace ksched::scheduler::queue {

BackoffQueue::BackoffQueue(const util::Clock& clock, util::Duration initial_backoff, util::Duration max_backoff,
                           const framework::QueueSortPlugin& sort, bool pop_from_backoff_q,
                           QueueMetricsRecorder& metrics)
    : clock_(clock),
      initial_backoff_(initial_backoff),
      max_backoff_(max_backoff),
      sort_(sort),
      priority_sort_(sort.OrdersByPriorityThenTimestamp()),
      windows_(pop_from_backoff_q),
      metrics_(metrics),
      rejection_(RejectionOrder{this}),
      error_(ErrorOrder{this}) {}

util::Duration BackoffQueue::BackoffDuration(int attempts) const {
  if (attempts <= 0) return util::Duration::zero();
  util::Duration d = initial_backoff_;
  for (int i = 1; i < attempts; ++i) {
    // Compare before doubling so a huge attempt count cannot overflow.
    if (d > max_backoff_ - d) return max_backoff_;
    d += d;
  }
  return d;
}

util::TimePoint BackoffQueue::AlignToWindow(util::TimePoint t) const {
  if (!windows_) return t;
  return util::TimePoint(std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()));
}

util::TimePoint BackoffQueue::BackoffTime(framework::QueuedPodInfo& info) const {
  if (info.attempts == 0) return util::TimePoint::min();
  if (!info.backoff_expiration) {
    info.backoff_expiration = AlignToWindow(info.timestamp + BackoffDuration(info.attempts));
  }
  return *info.backoff_expiration;
}

bool BackoffQueue::IsPodBackingOff(framework::QueuedPodInfo& info) const {
  // A deadline inside the current window still counts as backing off, so a
  // whole window is released at once by the aligned flush.
  return !(BackoffTime(info) < AlignToWindow(clock_.Now()));
}

BackoffQueue::Slot BackoffQueue::MakeSlot(const framework::QueuedPodInfo& info, uint32_t handle) const {
  Slot s;
  s.deadline = CachedBackoffTime(info).time_since_epoch().count();
  if (priority_sort_) {
    s.timestamp = info.timestamp.time_since_epoch().count();
  } else {
    s.info = &info;
  }
  s.priority = info.pod_info.priority();
  s.handle = handle;
  return s;
}

bool BackoffQueue::RejectionOrder::Less(const Slot& a, const Slot& b) const {
  if (a.deadline != b.deadline || !q->windows_) return a.deadline < b.deadline;
  if (q->priority_sort_) {
    return a.priority > b.priority || (a.priority == b.priority && a.timestamp < b.timestamp);
  }
  return q->sort_.Less(*a.info, *b.info);
}

void BackoffQueue::Add(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event) {
  BackoffTime(*info);  // the heaps order by the cached deadline
  bool in_other;
  bool added;
  if (!info->HasRejectors()) {
    in_other = rejection_.Delete(key).has_value();
    added = error_.AddOrUpdate(key, std::move(info));
  } else {
    in_other = error_.Delete(key).has_value();
    added = rejection_.AddOrUpdate(key, std::move(info));
  }
  if (in_other) {
    // The pod switched heaps while queued: kube reports this as a bug and
    // does not count it as incoming.
    spdlog::error("backoffQ add was called for pod {} already in the other backoff heap", key);
    return;
  }
  if (added) metrics_.AddPendingPods(QueueName::kBackoff, 1);
  metrics_.IncIncomingPods(QueueName::kBackoff, event);
}

framework::QueuedPodInfo* BackoffQueue::Update(std::string_view key, std::shared_ptr<const api::Pod> new_pod) {
  auto update = [&](auto& heap) -> framework::QueuedPodInfo* {
    framework::QueuedPodInfoPtr* info = heap.Get(key);
    if (info == nullptr) return nullptr;
    (*info)->pod_info.Update(std::move(new_pod));
    heap.Fix(key);  // the priority may have changed
    return info->get();
  };
  if (framework::QueuedPodInfo* info = update(rejection_)) return info;
  return update(error_);
}

framework::QueuedPodInfoPtr BackoffQueue::Delete(std::string_view key) {
  std::optional<framework::QueuedPodInfoPtr> v;
  if (!rejection_.empty()) v = rejection_.Delete(key);
  if (!v && !error_.empty()) v = error_.Delete(key);
  if (!v) return nullptr;
  metrics_.AddPendingPods(QueueName::kBackoff, -1);
  return std::move(*v);
}

const framework::QueuedPodInfoPtr* BackoffQueue::Get(std::string_view key) const {
  const framework::QueuedPodInfoPtr* info = rejection_.Get(key);
  return info != nullptr ? info : error_.Get(key);
}

std::pair<std::string, framework::QueuedPodInfoPtr> BackoffQueue::PopRejectionHead() {
  metrics_.AddPendingPods(QueueName::kBackoff, -1);
  std::string key;
  framework::QueuedPodInfoPtr info = rejection_.Pop(&key);
  return {std::move(key), std::move(info)};
}

template <class H>
void BackoffQueue::PopCompleted(H& heap, std::vector<Completed>* out) {
  // As IsPodBackingOff, on the cached deadline.
  const util::TimePoint::rep window = AlignToWindow(clock_.Now()).time_since_epoch().count();
  while (const Slot* head = heap.PeekSlot()) {
    if (!(head->deadline < window)) break;
    Completed& c = out->emplace_back();
    c.info = heap.Pop(&c.key, &c.hash);
    metrics_.AddPendingPods(QueueName::kBackoff, -1);
  }
}

std::vector<BackoffQueue::Completed> BackoffQueue::PopAllBackoffCompleted() {
  std::vector<Completed> out;
  PopCompleted(rejection_, &out);
  PopCompleted(error_, &out);
  return out;
}

}  // namespace ksched::scheduler::queue
