// NodeSlots: for one node list, where each NodeInfo sits (its slot) and, per
// constraint, the interned id of the node's topology value.
//
// Filter and Score run once per node per cycle. Reading a node's topology
// value from its labels (a std::map keyed by string, scattered over the
// heap) and then hashing that value to find its domain costs several cache
// misses per node; over the thousands of nodes a cycle visits that would be
// the largest cost of PodTopologySpread. The scheduler's snapshot keeps each
// NodeInfo at a stable address across cycles (it assigns changed ones in
// place), so SpreadCounter records the ids once, when a node changes, and a
// cycle finds a node's ids with one probe of an open-addressing table keyed
// by the NodeInfo's address.
//
// The ids describe the NodeInfos as they were when the owner last synced:
// callers may use them only for NodeInfos of the list that sync saw,
// unchanged since (a cycle's snapshot); other NodeInfos -- clones made for
// nominated pods or preemption live elsewhere -- are simply not found and
// must be read from their labels.
//
// Complexity: Find is O(1) expected (load factor <= 1/2); Rebuild is
// O(slots). Memory: 16 bytes per table entry (2-4 per slot) plus 4 bytes per
// slot and constraint.
//
// Thread-safety: const methods may run concurrently; mutation needs
// exclusive access (SpreadCounter copies a NodeSlots before changing one it
// has published).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pkg/scheduler/framework/node_info.h"

namespace ksched::scheduler::plugins::podtopologyspread {

class NodeSlots {
 public:
  // The node lacks the constraint's topology key.
  static constexpr int32_t kNoValue = -1;
  // The node has the key, but the owner does not intern this constraint's
  // values (hostname constraints in scoring, counted per node).
  static constexpr int32_t kNotInterned = -2;

  explicit NodeSlots(size_t num_constraints) : num_constraints_(num_constraints) {}

  // The slot of `ni`; -1 when it is not in the list (as of the last Rebuild).
  int32_t Find(const framework::NodeInfo* ni) const {
    if (table_.empty()) return -1;
    for (size_t i = Hash(ni) & mask_;; i = (i + 1) & mask_) {
      const Entry& e = table_[i];
      if (e.node == ni) return e.slot;
      if (e.node == nullptr) return -1;
    }
  }
  // A slot of `ni` (any one, should it sit in several), trying the one after
  // `hint` first, wrapping around: a caller walking the list in order passes
  // the slot it found last and so reads the slots in sequence instead of
  // probing the table at random. For a NodeSlots as of its last Rebuild.
  int32_t FindAfter(const framework::NodeInfo* ni, int32_t hint) const {
    size_t next = static_cast<size_t>(hint + 1);  // hint -1 tries slot 0
    if (next >= nodes_.size()) next = 0;
    if (next < nodes_.size() && nodes_[next] == ni) return static_cast<int32_t>(next);
    return Find(ni);
  }
  // A slot of `ni` for the per-node Filter and Score calls: FindAfter with,
  // as the hint, the slot this thread found last. The Parallelizer hands
  // each worker chunks of consecutive nodes of the list these slots were
  // built from, so the guess is right for most nodes.
  int32_t FindOnThisThread(const framework::NodeInfo* ni) const {
    thread_local int32_t last = -1;
    const int32_t slot = FindAfter(ni, last);
    if (slot >= 0) last = slot;
    return slot;
  }
  // The value id of `slot` for constraint `c`: an id of the owner's
  // ValueIndex for `c`, kNoValue or kNotInterned.
  int32_t value(int32_t slot, size_t c) const { return values_[static_cast<size_t>(slot) * num_constraints_ + c]; }

  size_t num_slots() const { return nodes_.size(); }
  size_t num_constraints() const { return num_constraints_; }
  const framework::NodeInfo* node(size_t slot) const { return nodes_[slot]; }

  // Sets the number of slots; new slots hold no node and kNoValue.
  void Resize(size_t slots);
  // Puts `ni` in `slot`. Find sees the change after Rebuild.
  void SetNode(size_t slot, const framework::NodeInfo* ni) { nodes_[slot] = ni; }
  void SetValue(size_t slot, size_t c, int32_t id) { values_[slot * num_constraints_ + c] = id; }
  // Rebuilds the address table from the slots' nodes (the first slot wins
  // for an address listed twice).
  void Rebuild();

 private:
  struct Entry {
    const framework::NodeInfo* node = nullptr;
    int32_t slot = -1;
  };

  // Fibonacci hashing: the top bits of the product mix all address bits.
  size_t Hash(const framework::NodeInfo* ni) const {
    return static_cast<size_t>((static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ni)) * 0x9E3779B97F4A7C15ULL) >>
                               shift_);
  }

  size_t num_constraints_;
  std::vector<const framework::NodeInfo*> nodes_;
  std::vector<int32_t> values_;
  std::vector<Entry> table_;
  size_t mask_ = 0;
  int shift_ = 63;  // 64 - log2(table size)
};

}  // namespace ksched::scheduler::plugins::podtopologyspread
