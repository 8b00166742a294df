#include "pkg/scheduler/plugins/interpodaffinity/pair_counts.h"

#include <algorithm>

namespace ksched::scheduler::plugins::interpodaffinity {

// ---------------------------------------------------------------- PairIndex

int32_t PairIndex::Find(std::string_view key, std::string_view value) const {
  for (size_t k = 0; k < keys_.size(); ++k) {
    if (keys_[k].key == key) return FindInKey(k, value);
  }
  return -1;
}

int32_t PairIndex::FindInKey(size_t k, std::string_view value) const {
  const PerKey& pk = keys_[k];
  if (pk.table.empty()) return -1;
  const size_t hash = HashOf(value);
  const uint32_t tag = static_cast<uint32_t>(hash >> 32);
  const size_t mask = pk.table.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = pk.table[i];
    if (s.local < 0) return -1;
    if (s.tag == tag && pk.values[s.local] == value) return pk.ids[s.local];
  }
}

void PairIndex::Place(PerKey& k, size_t hash, int32_t local) {
  const size_t mask = k.table.size() - 1;
  size_t i = hash & mask;
  while (k.table[i].local >= 0) i = (i + 1) & mask;
  k.table[i] = Slot{static_cast<uint32_t>(hash >> 32), local};
}

int32_t PairIndex::Intern(std::string_view key, std::string_view value) {
  size_t k = 0;
  while (k < keys_.size() && keys_[k].key != key) ++k;
  if (k == keys_.size()) keys_.push_back(PerKey{std::string(key), {}, {}, {}});
  const int32_t found = FindInKey(k, value);
  if (found >= 0) return found;
  PerKey& pk = keys_[k];
  const int32_t local = static_cast<int32_t>(pk.values.size());
  const int32_t id = static_cast<int32_t>(pairs_.size());
  pk.values.emplace_back(value);
  pk.ids.push_back(id);
  pairs_.emplace_back(k, local);
  if ((pk.values.size() * 2) > pk.table.size()) {
    // Grow to keep the table at most half full, and re-place everything.
    pk.table.assign(std::max<size_t>(16, pk.table.size() * 2), Slot{});
    for (int32_t l = 0; l < static_cast<int32_t>(pk.values.size()); ++l) Place(pk, HashOf(pk.values[l]), l);
  } else {
    Place(pk, HashOf(value), local);
  }
  return id;
}

// ---------------------------------------------------------------- PairCounts

PairCounts::PairCounts(std::shared_ptr<const PairIndex> index, std::vector<int64_t> counts)
    : index_(std::move(index)), counts_(std::move(counts)) {
  for (int64_t c : counts_) {
    if (c != 0) ++nonzero_;
  }
}

int64_t PairCounts::Get(std::string_view key, std::string_view value) const {
  const int32_t id = index_->Find(key, value);
  return id < 0 || static_cast<size_t>(id) >= counts_.size() ? 0 : counts_[id];
}

int64_t PairCounts::SumForNode(const api::StringMap& labels) const {
  if (nonzero_ == 0) return 0;
  int64_t sum = 0;
  for (size_t k = 0; k < index_->num_keys(); ++k) {
    auto it = labels.find(index_->key_at(k));
    if (it == labels.end()) continue;
    const int32_t id = index_->FindInKey(k, it->second);
    if (id >= 0 && static_cast<size_t>(id) < counts_.size()) sum += counts_[id];
  }
  return sum;
}

void PairCounts::Add(const std::string& key, const std::string& value, int64_t delta) {
  if (delta == 0) return;
  int32_t id = index_->Find(key, value);
  if (id < 0) {
    auto copy = std::make_shared<PairIndex>(*index_);
    id = copy->Intern(key, value);
    index_ = std::move(copy);
  }
  if (static_cast<size_t>(id) >= counts_.size()) counts_.resize(id + 1, 0);
  const int64_t before = counts_[id];
  counts_[id] += delta;
  if (before == 0) ++nonzero_;
  if (counts_[id] == 0) --nonzero_;
}

std::map<std::pair<std::string, std::string>, int64_t> PairCounts::Entries() const {
  std::map<std::pair<std::string, std::string>, int64_t> out;
  for (size_t id = 0; id < counts_.size(); ++id) {
    if (counts_[id] != 0) out[{index_->key(id), index_->value(id)}] = counts_[id];
  }
  return out;
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
