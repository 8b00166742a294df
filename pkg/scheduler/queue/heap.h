// Heap: a binary min-heap of values addressed by a unique key (kube's
// backend/heap), used for activeQ and both backoff heaps.
//
// Complexity: AddOrUpdate, Delete and Pop are O(log n) plus one hash lookup;
// Peek, Get, Has and size are O(1) (hash lookup for Get/Has). Values live in
// the heap vector (comparisons read them directly); each element's position
// is kept in a dense array indexed by a per-element handle, so re-sifting
// never hashes. The key index is a flat open-addressing table (no node
// allocation per element, see key_index.h); a key's hash is computed once,
// when it is added or looked up (or handed in by a caller that already has
// it), and kept beside the key: Pop and table growth never hash a string
// again, and removing an element reads no other element's key.
// Key strings of deleted (not popped) elements stay allocated in their
// handle's slot and are reused by the next insertion; Clear frees them.
//
// `Less(a, b)` is true when a must come out before b; it must be a strict
// weak ordering and must not change while the element is in the heap (call
// AddOrUpdate again after changing what it reads). Ties come out in an
// unspecified order.
//
// Thread-safety: none; the owner serializes access.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/queue/key_index.h"

namespace ksched::scheduler::queue {

// Transparent hashing so string keys can be looked up by string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A string key stored with its hash (see Heap).
struct HashedKey {
  std::string str;
  size_t hash;
};
// A lookup key: a view plus its hash.
struct HashedKeyView {
  std::string_view str;
  size_t hash;
};
struct HashedKeyHash {
  using is_transparent = void;
  size_t operator()(const HashedKey& k) const noexcept { return k.hash; }
  size_t operator()(const HashedKeyView& k) const noexcept { return k.hash; }
};
struct HashedKeyEq {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return a.hash == b.hash && std::string_view(a.str) == std::string_view(b.str);
  }
};

template <class Value, class Less>
class Heap {
 public:
  explicit Heap(Less less = Less()) : less_(std::move(less)) {}

  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }

  // Inserts `value` under `key`, or replaces the value already there and
  // restores heap order. Returns true when the key was new.
  bool AddOrUpdate(std::string_view key, Value value) { return AddOrUpdate(key, StringHash{}(key), std::move(value)); }
  // As above with the key's StringHash, which the caller already has.
  bool AddOrUpdate(std::string_view key, size_t hash, Value value) {
    PrefetchFreeHandle();
    const uint32_t h = Find(key, hash);
    if (h != kNone) return Replace(h, std::move(value));
    return Insert(NewHandle(key, hash), std::move(value));
  }
  // As above, taking ownership of the key string (no copy).
  bool AddOrUpdateOwned(std::string&& key, Value value) {
    const size_t hash = StringHash{}(key);
    return AddOrUpdateOwned(std::move(key), hash, std::move(value));
  }
  bool AddOrUpdateOwned(std::string&& key, size_t hash, Value value) {
    PrefetchFreeHandle();
    const uint32_t h = Find(key, hash);
    if (h != kNone) return Replace(h, std::move(value));
    return Insert(NewHandle(std::move(key), hash), std::move(value));
  }

  // Re-establishes order after the value under `key` changed in place.
  void Fix(std::string_view key) {
    const uint32_t h = Find(key);
    if (h != kNone) Fix(pos_[h]);
  }

  // Removes and returns the value under `key`, if any.
  std::optional<Value> Delete(std::string_view key) {
    const uint32_t h = Find(key);
    if (h == kNone) return std::nullopt;
    const size_t i = pos_[h];
    Value v = std::move(heap_[i].value);
    RemoveAt(i);
    Unindex(h);
    FreeHandle(h);
    return v;
  }

  // The value ordered first, or nullptr when empty.
  const Value* Peek() const { return heap_.empty() ? nullptr : &heap_.front().value; }
  // The key of the value ordered first; the heap must not be empty.
  const std::string& PeekKey() const { return keys_[heap_.front().handle].str; }

  // Removes and returns the key and value ordered first; the heap must not
  // be empty.
  std::pair<std::string, Value> Pop() {
    assert(!heap_.empty());
    const uint32_t h = heap_.front().handle;
    // Needed after the sift below; fetched meanwhile.
    __builtin_prefetch(&keys_[h]);
    Value v = std::move(heap_.front().value);
    RemoveAt(0);
    Unindex(h);
    std::string key = std::move(keys_[h].str);
    FreeHandle(h);
    return {std::move(key), std::move(v)};
  }

  const Value* Get(std::string_view key) const {
    const uint32_t h = Find(key);
    return h == kNone ? nullptr : &heap_[pos_[h]].value;
  }
  Value* Get(std::string_view key) {
    const uint32_t h = Find(key);
    return h == kNone ? nullptr : &heap_[pos_[h]].value;
  }
  bool Has(std::string_view key) const { return Find(key) != kNone; }
  // Hints that a key with this StringHash is about to be looked up or added
  // (batch moves fetch ahead to overlap cache misses). No effect otherwise.
  void PrefetchKey(size_t hash) const { index_.Prefetch(hash); }

  // Calls fn(key, value) for every element, in heap (not sorted) order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (const Slot& s : heap_) fn(keys_[s.handle].str, s.value);
  }

  void Clear() {
    heap_.clear();
    pos_.clear();
    keys_.clear();
    free_handles_.clear();
    index_.Clear();
  }

 private:
  // Each element has a small integer handle; its heap position, key and
  // key hash live in dense arrays indexed by the handle. Re-sifting updates
  // pos_[handle], a compact array that stays in cache.
  struct Slot {
    Value value;
    uint32_t handle;
  };
  static constexpr uint32_t kNone = KeyIndex::kNone;

  uint32_t Find(std::string_view key) const { return heap_.empty() ? kNone : Find(key, StringHash{}(key)); }
  uint32_t Find(std::string_view key, size_t hash) const {
    return index_.Find(hash, [&](uint32_t h) { return keys_[h].str == key; });
  }
  void Unindex(uint32_t h) { index_.Erase(keys_[h].hash, h); }

  // A handle for a new element keyed `key` (not yet indexed or placed).
  uint32_t NewHandle(std::string&& key, size_t hash) {
    if (!free_handles_.empty()) {
      const uint32_t h = free_handles_.back();
      free_handles_.pop_back();
      keys_[h] = HashedKey{std::move(key), hash};
      return h;
    }
    keys_.push_back(HashedKey{std::move(key), hash});
    return PushHandle();
  }
  uint32_t NewHandle(std::string_view key, size_t hash) {
    if (!free_handles_.empty()) {
      const uint32_t h = free_handles_.back();
      free_handles_.pop_back();
      keys_[h].str.assign(key);  // reuses the old key's buffer
      keys_[h].hash = hash;
      return h;
    }
    keys_.push_back(HashedKey{std::string(key), hash});
    return PushHandle();
  }
  uint32_t PushHandle() {
    pos_.push_back(0);
    return static_cast<uint32_t>(pos_.size() - 1);
  }
  void FreeHandle(uint32_t h) { free_handles_.push_back(h); }
  // The key slot a new element will take, fetched while the index is probed.
  void PrefetchFreeHandle() const {
    if (!free_handles_.empty()) __builtin_prefetch(&keys_[free_handles_.back()], 1);
  }
  void Place(size_t i) { pos_[heap_[i].handle] = static_cast<uint32_t>(i); }

  bool Insert(uint32_t h, Value value) {
    index_.Insert(keys_[h].hash, h);
    heap_.push_back(Slot{std::move(value), h});
    Place(heap_.size() - 1);
    SiftUp(heap_.size() - 1);
    return true;
  }
  bool Replace(uint32_t h, Value value) {
    heap_[pos_[h]].value = std::move(value);
    Fix(pos_[h]);
    return false;
  }

  // Returns true when the element moved up.
  bool SiftUp(size_t i) {
    const size_t start = i;
    Slot moving = std::move(heap_[i]);
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!less_(moving.value, heap_[parent].value)) break;
      heap_[i] = std::move(heap_[parent]);
      Place(i);
      i = parent;
    }
    heap_[i] = std::move(moving);
    Place(i);
    return i != start;
  }

  void SiftDown(size_t i) {
    const size_t size = heap_.size();
    Slot moving = std::move(heap_[i]);
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= size) break;
      // The next level's candidates (i's four grandchildren) are fetched
      // while this level is compared: on a large heap each level is a cache
      // miss, and this overlaps them.
      const size_t grandchild = 2 * child + 1;
      if (grandchild < size) {
        __builtin_prefetch(&heap_[grandchild]);
        __builtin_prefetch(&heap_[std::min(grandchild + 3, size - 1)]);
      }
      if (child + 1 < size && less_(heap_[child + 1].value, heap_[child].value)) ++child;
      if (!less_(heap_[child].value, moving.value)) break;
      heap_[i] = std::move(heap_[child]);
      Place(i);
      i = child;
    }
    heap_[i] = std::move(moving);
    Place(i);
  }

  void Fix(size_t i) {
    if (!SiftUp(i)) SiftDown(i);
  }

  void RemoveAt(size_t i) {
    const size_t last = heap_.size() - 1;
    if (i != last) {
      heap_[i] = std::move(heap_[last]);
      Place(i);
      heap_.pop_back();
      Fix(i);
    } else {
      heap_.pop_back();
    }
  }

  Less less_;
  std::vector<Slot> heap_;
  std::vector<uint32_t> pos_;          // handle -> index in heap_
  std::vector<HashedKey> keys_;        // handle -> key and its StringHash
  std::vector<uint32_t> free_handles_;
  KeyIndex index_;                     // key -> handle
};

}  // namespace ksched::scheduler::queue
