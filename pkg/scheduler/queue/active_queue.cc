#include "pkg/scheduler/queue/active_queue.h"

#include <map>

#include "pkg/scheduler/queue/prefetch.h"

namespace ksched::scheduler::queue {

namespace {

// nullptr: the plugin declares the standard order, which the cached fields
// reproduce.
const framework::QueueSortPlugin* SortForHeap(const framework::QueueSortPlugin& sort) {
  return sort.OrdersByPriorityThenTimestamp() ? nullptr : &sort;
}

}  // namespace

ActiveQueue::ActiveQueue(const framework::QueueSortPlugin& sort, bool track_in_flight,
                         QueueMetricsRecorder& metrics)
    : cached_order_(SortForHeap(sort) == nullptr),
      heap_(Order{SortForHeap(sort)}),
      track_in_flight_(track_in_flight),
      metrics_(metrics) {}

void ActiveQueue::Add(std::string_view key, size_t hash, framework::QueuedPodInfoPtr info, std::string_view event) {
  if (heap_.AddOrUpdate(key, hash, std::move(info))) metrics_.AddPendingPods(QueueName::kActive, 1);
  metrics_.IncIncomingPods(QueueName::kActive, event);
}

void ActiveQueue::AddOwned(std::string&& key, size_t hash, framework::QueuedPodInfoPtr info,
                           std::string_view event) {
  if (heap_.AddOrUpdateOwned(std::move(key), hash, std::move(info))) {
    metrics_.AddPendingPods(QueueName::kActive, 1);
  }
  metrics_.IncIncomingPods(QueueName::kActive, event);
}

framework::QueuedPodInfo* ActiveQueue::Update(std::string_view key, std::shared_ptr<const api::Pod> new_pod) {
  framework::QueuedPodInfoPtr* info = heap_.Get(key);
  if (info == nullptr) return nullptr;
  (*info)->pod_info.Update(std::move(new_pod));
  heap_.Fix(key);  // the priority may have changed
  return info->get();
}

framework::QueuedPodInfoPtr ActiveQueue::Delete(std::string_view key) {
  std::optional<framework::QueuedPodInfoPtr> v = heap_.Delete(key);
  if (!v) return nullptr;
  metrics_.AddPendingPods(QueueName::kActive, -1);
  return std::move(*v);
}

framework::QueuedPodInfoPtr ActiveQueue::PopHead() {
  metrics_.AddPendingPods(QueueName::kActive, -1);
  // Normally done by PrefetchHead at the end of the previous Pop; again
  // here (cheap when so) in case the head changed since.
  PrefetchPodOf(**heap_.Peek());
  return heap_.Pop();
}

void ActiveQueue::PrefetchHead() const {
  // Three steps, one per Pop, each starting from a line the step before
  // fetched: the entry of the head after next (fetched when this Pop
  // began) gives its record; the head's record (fetched by the previous
  // Pop's call) gives its pod counts and derived data.
  const framework::QueuedPodInfoPtr* head = heap_.Peek();
  if (head == nullptr) return;
  PrefetchPodOf(**head);
  const framework::QueuedPodInfoPtr* after_next = heap_.PredictedAfterNext();
  if (after_next != nullptr && *after_next != nullptr) {
    // The record with its shared_ptr counts (make_shared) before it: the
    // lines Pop reads and writes (pod, attempts, plugin sets).
    const char* p = reinterpret_cast<const char*>(after_next->get());
    PrefetchSharedCounts(p);
    for (size_t off = 64; off < sizeof(framework::QueuedPodInfo); off += 64) queue::Prefetch(p + off);
  }
}

void ActiveQueue::PrefetchPodOf(const framework::QueuedPodInfo& info) {
  // The pod's reference counts, which MarkInFlight takes, and the derived
  // data (requests, affinity terms), which the scheduling cycle reads next
  // and dropping the record frees. The derived data is one make_shared
  // block around `requests` (its lines before and after), reached only
  // through PodInfo's accessors.
  PrefetchSharedCounts(info.pod_info.pod_ptr().get());
  const char* derived = reinterpret_cast<const char*>(&info.pod_info.requests());
  for (int line = -2; line <= 2; ++line) queue::Prefetch(derived + 64 * line);
}

bool ActiveQueue::MarkInFlight(const framework::PodInfo& info) {
  if (!track_in_flight_) return true;
  const PodPtr& pod = info.pod_ptr();
  const size_t hash = info.uid_hash();
  // Only a matching hash tag makes this read UIDs (an empty index reads
  // nothing).
  const bool duplicate =
      by_uid_.Find(hash, [&](uint32_t m) { return markers_[m].pod->metadata.uid == pod->metadata.uid; }) !=
      kNoMarker;
  if (duplicate) return false;
  uint32_t m = free_marker_;
  if (m != kNoMarker) {
    free_marker_ = markers_[m].next;
  } else {
    m = static_cast<uint32_t>(markers_.size());
    markers_.emplace_back();
  }
  Marker& marker = markers_[m];
  marker.pod = pod;
  marker.first_event = next_seq_;
  marker.uid_hash = hash;
  marker.prev = newest_;
  marker.next = kNoMarker;
  if (newest_ != kNoMarker) {
    markers_[newest_].next = m;
  } else {
    oldest_ = m;
  }
  newest_ = m;
  by_uid_.Insert(hash, m);
  metrics_.AddInFlightEvents(kPodPoppedInFlightEvent, 1);
  return true;
}

void ActiveQueue::PruneEvents() {
  // Events older than the oldest in-flight pod concern no in-flight pod.
  const uint64_t keep_from = oldest_ == kNoMarker ? next_seq_ : markers_[oldest_].first_event;
  if (first_seq_ >= keep_from) return;
  std::map<std::string, int64_t, std::less<>> pruned;
  while (first_seq_ < keep_from) {
    --pruned[events_.front().label];
    events_.pop_front();
    ++first_seq_;
  }
  for (const auto& [label, n] : pruned) metrics_.AddInFlightEvents(label, n);
}

void ActiveQueue::EraseMarker(uint32_t m) {
  Marker& marker = markers_[m];
  by_uid_.Erase(marker.uid_hash, m);
  if (marker.prev != kNoMarker) {
    markers_[marker.prev].next = marker.next;
  } else {
    oldest_ = marker.next;
  }
  if (marker.next != kNoMarker) {
    markers_[marker.next].prev = marker.prev;
  } else {
    newest_ = marker.prev;
  }
  marker.pod = nullptr;
  marker.prev = kNoMarker;
  marker.next = free_marker_;
  free_marker_ = m;
}

void ActiveQueue::Done(const std::string& uid) {
  if (by_uid_.empty()) return;
  // The flight usually ended is the one begun last, and callers pass the
  // UID string of that very pod: recognized by address, nothing is hashed.
  uint32_t m = newest_;
  if (&markers_[m].pod->metadata.uid != &uid) {
    m = FindMarker(uid);
    if (m == kNoMarker) return;
  }
  EraseMarker(m);
  PruneEvents();
  metrics_.AddInFlightEvents(kPodPoppedInFlightEvent, -1);
}

void ActiveQueue::DoneAll() {
  std::vector<std::string> uids;
  uids.reserve(by_uid_.size());
  for (uint32_t m = oldest_; m != kNoMarker; m = markers_[m].next) uids.push_back(markers_[m].pod->metadata.uid);
  for (const std::string& uid : uids) Done(uid);
}

void ActiveQueue::PushEvent(const framework::ClusterEvent& event, framework::EventObject old_obj,
                            framework::EventObject new_obj) {
  events_.push_back(InFlightEvent{event, event.Label(), std::move(old_obj), std::move(new_obj)});
  ++next_seq_;
  metrics_.AddInFlightEvents(events_.back().label, 1);
}

bool ActiveQueue::AddEventsIfPodInFlight(const PodPtr& old_pod, const PodPtr& new_pod,
                                         const std::vector<framework::ClusterEvent>& events) {
  if (!track_in_flight_ || !IsInFlight(new_pod->metadata.uid)) return false;
  for (const framework::ClusterEvent& e : events) PushEvent(e, old_pod, new_pod);
  return true;
}

bool ActiveQueue::AddEventIfAnyInFlight(const framework::EventObject& old_obj, const framework::EventObject& new_obj,
                                        const framework::ClusterEvent& event) {
  if (!track_in_flight_ || by_uid_.empty()) return false;
  PushEvent(event, old_obj, new_obj);
  return true;
}

std::optional<std::vector<const InFlightEvent*>> ActiveQueue::EventsSince(std::string_view uid) const {
  const uint32_t m = FindMarker(uid);
  if (m == kNoMarker) return std::nullopt;
  std::vector<const InFlightEvent*> out;
  for (uint64_t seq = markers_[m].first_event; seq < next_seq_; ++seq) out.push_back(&events_[seq - first_seq_]);
  return out;
}

std::vector<ActiveQueue::PodPtr> ActiveQueue::InFlightPods() const {
  std::vector<PodPtr> out;
  out.reserve(by_uid_.size());
  for (uint32_t m = oldest_; m != kNoMarker; m = markers_[m].next) out.push_back(markers_[m].pod);
  return out;
}

}  // namespace ksched::scheduler::queue
