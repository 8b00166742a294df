#include "pkg/scheduler/plugins/interpodaffinity/hit_counter.h"

#include <algorithm>
#include <utility>

#include "pkg/scheduler/plugins/helper/parallel_chunks.h"

namespace ksched::scheduler::plugins::interpodaffinity {

namespace {

// Below this many changed nodes re-counting runs on the caller.
constexpr size_t kMinChangedToParallelize = 64;

}  // namespace

int32_t HitCounter::Intern(const std::string& key, const std::string& value) {
  int32_t id = index_->Find(key, value);
  if (id >= 0) return id;
  // States of earlier cycles may hold the index: publish a new one.
  if (index_.use_count() != 1) index_ = std::make_shared<PairIndex>(*index_);
  id = index_->Intern(key, value);
  for (std::vector<int64_t>& t : totals_) t.resize(index_->size(), 0);
  pair_refs_.resize(index_->size(), 0);
  return id;
}

void HitCounter::Remove(size_t slot) {
  for (const Entry& e : slot_entries_[slot]) {
    totals_[e.table][e.pair] -= e.count;
    if (--pair_refs_[e.pair] == 0) --live_pairs_;
  }
  slot_entries_[slot].clear();
  total_hits_ -= slot_hits_[slot];
  slot_hits_[slot] = 0;
  slot_node_[slot] = nullptr;
  slot_generation_[slot] = 0;
}

void HitCounter::Sync(const framework::NodeInfoList& nodes, util::Parallelizer& parallelizer, const CountFn& count) {
  for (size_t i = nodes.size(); i < slot_node_.size(); ++i) Remove(i);
  slot_node_.resize(nodes.size(), nullptr);
  slot_generation_.resize(nodes.size(), 0);
  slot_entries_.resize(nodes.size());
  slot_hits_.resize(nodes.size(), 0);

  std::vector<size_t> changed;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int64_t generation = nodes[i]->generation();
    // Generation 0 is a NodeInfo that never saw a mutation: always re-count.
    if (slot_node_[i] != nodes[i] || slot_generation_[i] != generation || generation == 0) changed.push_back(i);
  }
  last_recounted_ = changed.size();
  if (changed.empty()) return;

  std::vector<std::vector<Hit>> hits(changed.size());
  auto count_range = [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) count(*nodes[changed[k]], hits[k]);
  };
  if (changed.size() < kMinChangedToParallelize) {
    count_range(0, changed.size());
  } else {
    helper::ParallelChunks chunks(parallelizer, static_cast<int>(changed.size()));
    chunks.Run([&](int, int begin, int end) { count_range(begin, end); });
  }

  for (size_t k = 0; k < changed.size(); ++k) {
    const size_t slot = changed[k];
    Remove(slot);
    std::vector<Entry>& entries = slot_entries_[slot];
    for (const Hit& h : hits[k]) {
      const int32_t pair = Intern(*h.key, *h.value);
      totals_[h.table][pair] += h.delta;
      // A node usually yields few distinct pairs: merge repeats.
      auto same = std::find_if(entries.begin(), entries.end(),
                               [&](const Entry& e) { return e.pair == pair && e.table == h.table; });
      if (same != entries.end()) {
        same->count += h.delta;
      } else {
        entries.push_back(Entry{pair, h.table, h.delta});
        if (pair_refs_[pair]++ == 0) ++live_pairs_;
      }
    }
    slot_hits_[slot] = static_cast<int64_t>(hits[k].size());
    total_hits_ += slot_hits_[slot];
    slot_node_[slot] = nodes[slot];
    slot_generation_[slot] = nodes[slot]->generation();
  }
}

HitCounter& HitCounterCache::Get(const std::string& signature, int num_tables) {
  for (Entry& e : entries_) {
    if (e.signature == signature) {
      e.last_use = ++uses_;
      if (e.counter->NeedsRebuild()) e.counter = std::make_unique<HitCounter>(num_tables);
      return *e.counter;
    }
  }
  Entry* slot = nullptr;
  if (entries_.size() < capacity_) {
    slot = &entries_.emplace_back();
  } else {
    slot = &*std::min_element(entries_.begin(), entries_.end(),
                              [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
  }
  slot->signature = signature;
  slot->last_use = ++uses_;
  slot->counter = std::make_unique<HitCounter>(num_tables);
  return *slot->counter;
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
