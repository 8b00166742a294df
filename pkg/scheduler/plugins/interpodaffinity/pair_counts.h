// PairIndex and PairCounts: (topology key, topology value) pairs interned to
// dense ids, and a table of counts per pair -- the form in which
// InterPodAffinity's PreFilterState holds kube's topologyToMatchedTermCount
// maps, so that a state is a few integer vectors to copy rather than
// thousands of strings.
//
// A PairIndex is shared between the plugin's counters and the states built
// from them; once shared it is never modified (a writer copies it first), so
// readers need no lock. Ids are stable: a copy keeps every id and only
// appends.
//
// Thread-safety: PairIndex const methods are safe concurrently. PairCounts
// follows CycleState's rule: readers run concurrently, one owner mutates.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/short_string_hash.h"

namespace ksched::scheduler::plugins::interpodaffinity {

// The node's value for label `key`, or nullptr when the node lacks it.
inline const std::string* NodeLabel(const api::StringMap& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

class PairIndex {
 public:
  // The id of (key, value), -1 when absent. Never allocates.
  int32_t Find(std::string_view key, std::string_view value) const;
  // The id of (key, value), added if new.
  int32_t Intern(std::string_view key, std::string_view value);
  int32_t size() const { return static_cast<int32_t>(pairs_.size()); }
  const std::string& key(int32_t id) const { return keys_[pairs_[id].first].key; }
  const std::string& value(int32_t id) const { return keys_[pairs_[id].first].values[pairs_[id].second]; }

  // Number of distinct keys, and the key with index k (0 <= k < num_keys()).
  size_t num_keys() const { return keys_.size(); }
  const std::string& key_at(size_t k) const { return keys_[k].key; }
  // The id of (key_at(k), value), -1 when absent.
  int32_t FindInKey(size_t k, std::string_view value) const;

 private:
  // The values of one key in an open-addressing table (linear probing) of
  // small slots: lookups touch one or two cache lines, which matters for
  // Filter, called for thousands of nodes per cycle.
  struct Slot {
    uint32_t tag = 0;     // high bits of the value's hash
    int32_t local = -1;   // index into values/ids; -1: empty
  };
  struct PerKey {
    std::string key;
    std::vector<std::string> values;  // by local index
    std::vector<int32_t> ids;         // pair id by local index
    std::vector<Slot> table;          // size: a power of two, at most half full
  };
  static size_t HashOf(std::string_view value) { return util::ShortStringHash(value); }
  static void Place(PerKey& k, size_t hash, int32_t local);

  // Keys are few (one per topology key in use), searched linearly.
  std::vector<PerKey> keys_;
  // id -> (key index, local index).
  std::vector<std::pair<size_t, int32_t>> pairs_;
};

class PairCounts {
 public:
  PairCounts() = default;
  // Counts per id of `index` (missing ids count 0).
  PairCounts(std::shared_ptr<const PairIndex> index, std::vector<int64_t> counts);

  // The count of (key, value); 0 when absent.
  int64_t Get(std::string_view key, std::string_view value) const;
  // The keys this table has counts under (possibly zero counts).
  const PairIndex& index() const { return *index_; }
  // The sum over keys k of the count of (k, labels[k]).
  int64_t SumForNode(const api::StringMap& labels) const;
  // Adds `delta` to (key, value), interning it in a private copy of the
  // index when new.
  void Add(const std::string& key, const std::string& value, int64_t delta);

  // Pairs with a non-zero count (kube's len(map): zero entries are dropped).
  size_t size() const { return nonzero_; }
  bool empty() const { return nonzero_ == 0; }
  // Non-zero entries, ordered, for tests and debugging.
  std::map<std::pair<std::string, std::string>, int64_t> Entries() const;

 private:
  std::shared_ptr<const PairIndex> index_ = std::make_shared<PairIndex>();
  std::vector<int64_t> counts_;
  size_t nonzero_ = 0;
};

}  // namespace ksched::scheduler::plugins::interpodaffinity
