#include "pkg/scheduler/queue/active_queue.h"

#include <map>
#include <typeinfo>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"

namespace ksched::scheduler::queue {

namespace {

// Only the exact PrioritySort type (not a subclass that might reorder) has
// the order the cached fields reproduce.
const framework::QueueSortPlugin* SortForHeap(const framework::QueueSortPlugin& sort) {
  return typeid(sort) == typeid(plugins::queuesort::PrioritySort) ? nullptr : &sort;
}

}  // namespace

ActiveQueue::ActiveQueue(const framework::QueueSortPlugin& sort, bool track_in_flight,
                         QueueMetricsRecorder& metrics)
    : cached_order_(SortForHeap(sort) == nullptr),
      heap_(Less{SortForHeap(sort)}),
      track_in_flight_(track_in_flight),
      metrics_(metrics) {}

void ActiveQueue::Add(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event) {
  if (heap_.AddOrUpdate(key, MakeItem(std::move(info)))) metrics_.AddPendingPods(QueueName::kActive, 1);
  metrics_.IncIncomingPods(QueueName::kActive, event);
}

void ActiveQueue::AddOwned(std::string&& key, size_t hash, framework::QueuedPodInfoPtr info,
                           std::string_view event) {
  if (heap_.AddOrUpdateOwned(std::move(key), hash, MakeItem(std::move(info)))) {
    metrics_.AddPendingPods(QueueName::kActive, 1);
  }
  metrics_.IncIncomingPods(QueueName::kActive, event);
}

framework::QueuedPodInfo* ActiveQueue::Update(std::string_view key, std::shared_ptr<const api::Pod> new_pod) {
  Item* item = heap_.Get(key);
  if (item == nullptr) return nullptr;
  item->info->pod_info.Update(std::move(new_pod));
  item->priority = item->info->pod_info.priority();
  heap_.Fix(key);
  return item->info.get();
}

framework::QueuedPodInfoPtr ActiveQueue::Delete(std::string_view key) {
  std::optional<Item> v = heap_.Delete(key);
  if (!v) return nullptr;
  metrics_.AddPendingPods(QueueName::kActive, -1);
  return std::move(v->info);
}

framework::QueuedPodInfoPtr ActiveQueue::PopHead() {
  metrics_.AddPendingPods(QueueName::kActive, -1);
  return std::move(heap_.Pop().second.info);
}

bool ActiveQueue::MarkInFlight(const PodPtr& pod) {
  if (!track_in_flight_) return true;
  // The key views the UID inside `pod`, which the marker keeps alive.
  auto [it, inserted] = in_flight_pods_.try_emplace(std::string_view(pod->metadata.uid));
  if (!inserted) return false;
  markers_.push_back(Marker{pod, next_seq_});
  it->second = std::prev(markers_.end());
  metrics_.AddInFlightEvents(kPodPoppedInFlightEvent, 1);
  return true;
}

void ActiveQueue::PruneEvents() {
  // Events older than the oldest in-flight pod concern no in-flight pod.
  const uint64_t keep_from = markers_.empty() ? next_seq_ : markers_.front().first_event;
  std::map<std::string, int64_t, std::less<>> pruned;
  while (first_seq_ < keep_from) {
    --pruned[events_.front().label];
    events_.pop_front();
    ++first_seq_;
  }
  for (const auto& [label, n] : pruned) metrics_.AddInFlightEvents(label, n);
}

void ActiveQueue::Done(const std::string& uid) {
  auto it = in_flight_pods_.find(uid);
  if (it == in_flight_pods_.end()) return;
  auto marker = it->second;
  in_flight_pods_.erase(it);  // before the marker: the key points into it
  markers_.erase(marker);
  PruneEvents();
  metrics_.AddInFlightEvents(kPodPoppedInFlightEvent, -1);
}

void ActiveQueue::DoneAll() {
  std::vector<std::string> uids;
  uids.reserve(in_flight_pods_.size());
  for (const auto& [uid, it] : in_flight_pods_) uids.emplace_back(uid);
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
  if (!track_in_flight_ || in_flight_pods_.find(new_pod->metadata.uid) == in_flight_pods_.end()) return false;
  for (const framework::ClusterEvent& e : events) PushEvent(e, old_pod, new_pod);
  return true;
}

bool ActiveQueue::AddEventIfAnyInFlight(const framework::EventObject& old_obj, const framework::EventObject& new_obj,
                                        const framework::ClusterEvent& event) {
  if (!track_in_flight_ || in_flight_pods_.empty()) return false;
  PushEvent(event, old_obj, new_obj);
  return true;
}

std::optional<std::vector<const InFlightEvent*>> ActiveQueue::EventsSince(std::string_view uid) const {
  auto it = in_flight_pods_.find(uid);
  if (it == in_flight_pods_.end()) return std::nullopt;
  std::vector<const InFlightEvent*> out;
  for (uint64_t seq = it->second->first_event; seq < next_seq_; ++seq) out.push_back(&events_[seq - first_seq_]);
  return out;
}

std::vector<ActiveQueue::PodPtr> ActiveQueue::InFlightPods() const {
  std::vector<PodPtr> out;
  out.reserve(in_flight_pods_.size());
  for (const Marker& m : markers_) out.push_back(m.pod);
  return out;
}

}  // namespace ksched::scheduler::queue
