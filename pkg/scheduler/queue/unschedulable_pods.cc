#include "pkg/scheduler/queue/unschedulable_pods.h"

#include <cassert>

namespace ksched::scheduler::queue {

class UnschedulablePods::Entry {
 public:
  framework::QueuedPodInfoPtr info;
  const std::string* key = nullptr;
  bool gated = false;
  const std::string* profile = nullptr;  // key in hint_maps_, if the profile has one
  uint64_t mark = 0;  // epoch of the last CollectCandidates that picked it
  // The buckets holding this entry and its position in each.
  std::vector<std::pair<Bucket*, size_t>> slots;
};

UnschedulablePods::UnschedulablePods(const QueueingHintMapPerProfile& hint_maps, QueueMetricsRecorder& metrics,
                                     bool indexed)
    : hint_maps_(hint_maps), metrics_(metrics), indexed_(indexed), always_(std::make_unique<Bucket>()) {}

UnschedulablePods::~UnschedulablePods() = default;

const framework::QueuedPodInfoPtr& UnschedulablePods::EntryInfo(const std::unique_ptr<Entry>& e) { return e->info; }

UnschedulablePods::Bucket* UnschedulablePods::BucketFor(std::string_view profile, std::string_view plugin) {
  auto pit = buckets_.find(profile);
  if (pit == buckets_.end()) pit = buckets_.emplace(std::string(profile), BucketMap()).first;
  auto bit = pit->second.find(plugin);
  if (bit == pit->second.end()) bit = pit->second.emplace(std::string(plugin), std::make_unique<Bucket>()).first;
  return bit->second.get();
}

void UnschedulablePods::Index(Entry* e) {
  const framework::QueuedPodInfo& info = *e->info;
  const std::string& profile = info.pod().spec.scheduler_name;
  auto map_it = hint_maps_.find(profile);
  e->profile = map_it == hint_maps_.end() ? nullptr : &map_it->first;
  if (!indexed_) return;
  auto place = [e](Bucket* b) {
    e->slots.emplace_back(b, b->members.size());
    b->members.push_back(e);
  };
  if (!info.HasRejectors() || e->profile == nullptr) {
    place(always_.get());
    return;
  }
  for (const std::string& plugin : info.unschedulable_plugins) place(BucketFor(profile, plugin));
  for (const std::string& plugin : info.pending_plugins) {
    if (!info.unschedulable_plugins.Has(plugin)) place(BucketFor(profile, plugin));
  }
}

void UnschedulablePods::Unindex(Entry* e) {
  for (auto [bucket, pos] : e->slots) {
    Entry* last = bucket->members.back();
    bucket->members[pos] = last;
    bucket->members.pop_back();
    if (last != e) {
      for (auto& slot : last->slots) {
        if (slot.first == bucket) {
          slot.second = pos;
          break;
        }
      }
    }
  }
  e->slots.clear();
}

void UnschedulablePods::SetGauge(Entry* e, bool gated) {
  if (e->gated == gated) return;
  metrics_.AddPendingPods(e->gated ? QueueName::kGated : QueueName::kUnschedulable, -1);
  metrics_.AddPendingPods(gated ? QueueName::kGated : QueueName::kUnschedulable, 1);
  gated_ += gated ? 1 : -1;
  e->gated = gated;
}

void UnschedulablePods::AddOrUpdate(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    auto e = std::make_unique<Entry>();
    e->gated = info->Gated();
    e->info = std::move(info);
    it = entries_.emplace(std::string(key), std::move(e)).first;
    Entry* entry = it->second.get();
    entry->key = &it->first;
    metrics_.AddPendingPods(entry->gated ? QueueName::kGated : QueueName::kUnschedulable, 1);
    if (entry->gated) ++gated_;
    metrics_.IncIncomingPods(QueueName::kUnschedulable, event);
    Index(entry);
    return;
  }
  Entry* e = it->second.get();
  e->info = std::move(info);
  Refresh(key);
}

void UnschedulablePods::Refresh(std::string_view key) {
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry* e = it->second.get();
  SetGauge(e, e->info->Gated());
  Unindex(e);
  Index(e);
}

framework::QueuedPodInfoPtr UnschedulablePods::Delete(std::string_view key, std::string* taken_key) {
  if (entries_.empty()) return nullptr;
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  Entry* e = it->second.get();
  Unindex(e);
  metrics_.AddPendingPods(e->gated ? QueueName::kGated : QueueName::kUnschedulable, -1);
  if (e->gated) --gated_;
  framework::QueuedPodInfoPtr info = std::move(e->info);
  auto handle = entries_.extract(it);
  if (taken_key != nullptr) *taken_key = std::move(handle.key());
  return info;
}

const framework::QueuedPodInfoPtr* UnschedulablePods::Get(std::string_view key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second->info;
}

void UnschedulablePods::CollectAll(std::vector<Candidate>* out) const {
  out->reserve(out->size() + entries_.size());
  for (const auto& [key, e] : entries_) out->push_back(Candidate{&key, e->info, e->profile});
}

void UnschedulablePods::CollectCandidates(const EventHints& hints, std::vector<Candidate>* out) {
  if (!indexed_) {
    CollectAll(out);
    return;
  }
  const uint64_t epoch = ++epoch_;
  auto take = [&](const Bucket& b) {
    for (Entry* e : b.members) {
      if (e->mark == epoch) continue;
      e->mark = epoch;
      out->push_back(Candidate{e->key, e->info, e->profile});
    }
  };
  take(*always_);
  for (const ProfileHints& ph : hints) {
    auto pit = buckets_.find(ph.profile);
    if (pit == buckets_.end()) continue;
    for (const PluginHints& plugin : ph.hints.plugins) {
      auto bit = pit->second.find(plugin.plugin);
      if (bit != pit->second.end()) take(*bit->second);
    }
  }
}

}  // namespace ksched::scheduler::queue
