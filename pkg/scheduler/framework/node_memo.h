// NodeMemo and NodeMemoKeys: a per-node plugin's result for one state of a
// node and one kind of pod, kept beside the node's hot fields so that the
// next cycle for an alike pod reads one byte instead of recomputing it from
// the node's resource sums.
//
// A cycle visits hundreds of nodes and is bound by memory latency: most of
// its time goes to loading each NodeInfo's lines. Between two cycles for
// pods with the same requests almost every node is unchanged (one node
// takes each bound pod), so Filter's and Score's answers for it are too. A
// NodeMemo slot holds a key and a byte; the plugin that owns the slot asks
// for its key's byte and, on a miss, computes and stores it.
//
// Exactness: a key names everything the stored byte depends on apart from
// the node's state: the plugin instance (so its configuration) and the pod
// side of the computation (NodeMemoKeys never gives two fingerprints one
// key, nor reuses a key). The node's state is covered by clearing: the
// NodeInfo clears its memo whenever it changes (every change that bumps its
// generation), and a copy carries the memo of the same state.
//
// Slots are fixed, one per plugin that uses them (in-tree plugins only):
//   kNodeResourcesFit        bit 7: the pod fits; bits 0-6: score + 1;
//   kBalancedAllocation      bits 0-6: score + 1;
//   kNodeAffinity            NodeAffinity's Filter verdict (its values).
// A byte of 0 means "not known".
//
// Thread-safety: NodeMemo's Get and Set are atomic (relaxed): the Filter and
// Score loops store into a node's memo from whichever thread evaluates it,
// and each node is evaluated by one thread per phase; copying and Clear are
// for the NodeInfo's owner, like its other writes. NodeMemoKeys is
// thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace ksched::scheduler::framework {

class NodeMemo {
 public:
  enum Slot : size_t { kNodeResourcesFit = 0, kBalancedAllocation = 1, kNodeAffinity = 2 };
  static constexpr size_t kSlots = 3;
  // Keys take the upper 56 bits of a slot's word, the byte the lower 8.
  static constexpr uint64_t kMaxKey = (uint64_t{1} << 56) - 1;

  NodeMemo() = default;
  NodeMemo(const NodeMemo& other) { *this = other; }
  NodeMemo& operator=(const NodeMemo& other) {
    for (size_t i = 0; i < kSlots; ++i) words_[i].store(other.words_[i].load(kOrder), kOrder);
    return *this;
  }

  // The byte stored under `key` (1..kMaxKey) in `slot`; 0 when the slot
  // holds another key or nothing.
  uint8_t Get(Slot slot, uint64_t key) const {
    const uint64_t word = words_[slot].load(kOrder);
    return (word >> 8) == key ? static_cast<uint8_t>(word) : 0;
  }
  // Stores `value` under `key` in `slot`, replacing what it held. Const: a
  // memo is not part of the NodeInfo's value.
  void Set(Slot slot, uint64_t key, uint8_t value) const { words_[slot].store((key << 8) | value, kOrder); }
  void Clear() {
    for (std::atomic<uint64_t>& w : words_) w.store(0, kOrder);
  }

 private:
  static constexpr std::memory_order kOrder = std::memory_order_relaxed;
  mutable std::array<std::atomic<uint64_t>, kSlots> words_{};
};

// A slot and a key: where one cycle's pod finds a plugin's answers (key 0:
// nowhere).
struct NodeMemoRef {
  NodeMemo::Slot slot = NodeMemo::kNodeResourcesFit;
  uint64_t key = 0;

  // The byte `memo` holds under this key (0: none).
  uint8_t Read(const NodeMemo& memo) const { return key != 0 ? memo.Get(slot, key) : 0; }
  // Whether `memo` holds an answer under this key.
  bool Answers(const NodeMemo& memo) const { return Read(memo) != 0; }
  // Stores `value` under this key; nothing when the key is 0.
  void Write(const NodeMemo& memo, uint8_t value) const {
    if (key != 0) memo.Set(slot, key, value);
  }
};

// Gives each distinct fingerprint (a plugin's pod-side inputs, as numbers)
// a key for its NodeMemo slot: the same key while the fingerprint is
// remembered, and a key no other fingerprint, here or in another
// NodeMemoKeys, ever had. A plugin holds one per instance. It remembers up
// to kCapacity fingerprints and then starts afresh (forgotten fingerprints
// get new keys). Once kMaxKey keys are spent it answers 0: no memo.
class NodeMemoKeys {
 public:
  static constexpr size_t kCapacity = 1024;
  uint64_t KeyFor(std::span<const int64_t> fingerprint);

 private:
  struct Hash {
    size_t operator()(const std::vector<int64_t>& v) const;
  };
  std::mutex mu_;
  std::unordered_map<std::vector<int64_t>, uint64_t, Hash> keys_;
};

}  // namespace ksched::scheduler::framework
