#include "pkg/scheduler/queue/unschedulable_pods.h"

#include <cassert>

namespace ksched::scheduler::queue {

UnschedulablePods::UnschedulablePods(const QueueingHintMapPerProfile& hint_maps, QueueMetricsRecorder& metrics,
                                     bool indexed)
    : hint_maps_(hint_maps), metrics_(metrics), indexed_(indexed), always_(std::make_unique<Bucket>()) {}

UnschedulablePods::~UnschedulablePods() = default;

const UnschedulablePods::Entry* UnschedulablePods::Find(std::string_view key) const {
  if (index_.empty()) return nullptr;
  const uint32_t slot = index_.Find(StringHash{}(key), [&](uint32_t s) { return At(s).key.str == key; });
  return slot == KeyIndex::kNone ? nullptr : &At(slot);
}

UnschedulablePods::Entry* UnschedulablePods::NewEntry(std::string_view key, size_t hash) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = num_slots_++;
    if ((slot >> kChunkBits) == chunks_.size()) chunks_.push_back(std::make_unique<Entry[]>(kChunkSize));
  }
  Entry* e = &At(slot);
  e->key.str.assign(key);  // reuses a freed record's buffer
  e->key.hash = hash;
  e->slot = slot;
  e->gated = false;
  e->profile = nullptr;
  e->mark = 0;
  e->num_slots = 0;
  e->more_slots.clear();
  index_.Insert(hash, slot);
  return e;
}

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
    MaybeCompact(b);
    const Slot slot{b, b->members.size()};
    if (e->num_slots < 2) {
      e->slots[e->num_slots] = slot;
    } else {
      e->more_slots.push_back(slot);
    }
    ++e->num_slots;
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
  for (uint32_t i = 0; i < e->num_slots; ++i) {
    const Slot s = e->SlotAt(i);
    Bucket* b = s.bucket;
    b->members[s.pos] = nullptr;
    if (++b->holes == b->members.size()) {
      b->members.clear();
      b->holes = 0;
    }
  }
  e->num_slots = 0;
  e->more_slots.clear();
}

void UnschedulablePods::MaybeCompact(Bucket* b) {
  if (b->holes == 0 || b->holes * 2 < b->members.size()) return;
  size_t j = 0;
  for (size_t i = 0; i < b->members.size(); ++i) {
    Entry* m = b->members[i];
    if (m == nullptr) continue;
    if (j != i) {
      b->members[j] = m;
      for (uint32_t k = 0; k < m->num_slots; ++k) {
        Slot& ms = m->SlotAt(k);
        if (ms.bucket == b) {
          ms.pos = j;
          break;
        }
      }
    }
    ++j;
  }
  b->members.resize(j);
  b->holes = 0;
}

void UnschedulablePods::SetGauge(Entry* e, bool gated) {
  if (e->gated == gated) return;
  metrics_.AddPendingPods(e->gated ? QueueName::kGated : QueueName::kUnschedulable, -1);
  metrics_.AddPendingPods(gated ? QueueName::kGated : QueueName::kUnschedulable, 1);
  gated_ += gated ? 1 : -1;
  e->gated = gated;
}

void UnschedulablePods::AddOrUpdate(std::string_view key, framework::QueuedPodInfoPtr info, std::string_view event) {
  const size_t hash = StringHash{}(key);
  const uint32_t slot = index_.Find(hash, [&](uint32_t s) { return At(s).key.str == key; });
  if (slot == KeyIndex::kNone) {
    Entry* entry = NewEntry(key, hash);
    entry->gated = info->Gated();
    entry->info = std::move(info);
    metrics_.AddPendingPods(entry->gated ? QueueName::kGated : QueueName::kUnschedulable, 1);
    if (entry->gated) ++gated_;
    metrics_.IncIncomingPods(QueueName::kUnschedulable, event);
    Index(entry);
    return;
  }
  Entry* e = &At(slot);
  e->info = std::move(info);
  SetGauge(e, e->info->Gated());
  Unindex(e);
  Index(e);
}

void UnschedulablePods::Refresh(std::string_view key) {
  Entry* e = Find(key);
  if (e == nullptr) return;
  SetGauge(e, e->info->Gated());
  Unindex(e);
  Index(e);
}

framework::QueuedPodInfoPtr UnschedulablePods::Erase(Entry* e, HashedKey* taken_key) {
  Unindex(e);
  metrics_.AddPendingPods(e->gated ? QueueName::kGated : QueueName::kUnschedulable, -1);
  if (e->gated) --gated_;
  index_.Erase(e->key.hash, e->slot);
  framework::QueuedPodInfoPtr info = std::move(e->info);
  e->info = nullptr;
  if (taken_key != nullptr) {
    taken_key->str = std::move(e->key.str);
    taken_key->hash = e->key.hash;
  }
  if (index_.empty() && num_slots_ > kChunkSize) {
    // Drained after a peak: give the slab back. A single chunk is kept, as
    // small stores empty and refill all the time.
    chunks_.clear();
    num_slots_ = 0;
    free_slots_.clear();
    free_slots_.shrink_to_fit();
    index_.Clear();
  } else {
    free_slots_.push_back(e->slot);
  }
  return info;
}

framework::QueuedPodInfoPtr UnschedulablePods::Delete(std::string_view key, std::string* taken_key) {
  Entry* e = Find(key);
  if (e == nullptr) return nullptr;
  if (taken_key == nullptr) return Erase(e, nullptr);
  HashedKey taken;
  framework::QueuedPodInfoPtr info = Erase(e, &taken);
  *taken_key = std::move(taken.str);
  return info;
}

framework::QueuedPodInfoPtr UnschedulablePods::Take(const Candidate& c, HashedKey* taken_key) {
  assert(c.entry->info != nullptr && &c.entry->key.str == c.key);
  return Erase(c.entry, taken_key);
}

framework::QueuedPodInfoPtr UnschedulablePods::Take(const Candidate& c, std::string* taken_key) {
  HashedKey taken;
  framework::QueuedPodInfoPtr info = Take(c, &taken);
  if (taken_key != nullptr) *taken_key = std::move(taken.str);
  return info;
}

const framework::QueuedPodInfoPtr* UnschedulablePods::Get(std::string_view key) const {
  const Entry* e = Find(key);
  return e == nullptr ? nullptr : &e->info;
}

void UnschedulablePods::CollectAll(std::vector<Candidate>* out) {
  out->reserve(out->size() + size());
  for (uint32_t i = 0; i < num_slots_; ++i) {
    Entry& e = At(i);
    if (e.info != nullptr) out->push_back(Candidate{&e.key.str, e.info.get(), e.profile, &e});
  }
}

void UnschedulablePods::CollectCandidates(const EventHints& hints, std::vector<Candidate>* out) {
  if (!indexed_) {
    CollectAll(out);
    return;
  }
  const uint64_t epoch = ++epoch_;
  auto take = [&](Bucket* b) {
    MaybeCompact(b);
    for (Entry* e : b->members) {
      if (e == nullptr || e->mark == epoch) continue;
      e->mark = epoch;
      out->push_back(Candidate{&e->key.str, e->info.get(), e->profile, e});
    }
  };
  take(always_.get());
  for (const ProfileHints& ph : hints) {
    auto pit = buckets_.find(ph.profile);
    if (pit == buckets_.end()) continue;
    for (const PluginHints& plugin : ph.hints.plugins) {
      auto bit = pit->second.find(plugin.plugin);
      if (bit != pit->second.end()) take(bit->second.get());
    }
  }
}

}  // namespace ksched::scheduler::queue
