// Heap: a 4-ary min-heap of values addressed by a unique key (kube's
// backend/heap), used for activeQ and both backoff heaps.
//
// Complexity: AddOrUpdate, Delete and Pop are O(log n) plus one hash lookup;
// Peek, Get, Has and size are O(1) (hash lookup for Get/Has). The heap array
// holds small, trivially copyable slots: what the order compares plus the
// element's handle (a small integer). The values, keys and key hashes live
// in a handle-indexed entry array (one cache line per element), and each
// element's position in a dense handle-indexed array, so sifting moves
// 16-byte slots and never touches a value or hashes. With 16-byte slots,
// the four children of a node share one cache line (the array is aligned
// for it), so a sift-down misses the cache about once per level on a heap
// larger than the cache, over half as many levels as a binary heap (each
// level's successors are prefetched while it is compared). Pop also
// fetches the entries of the two elements that become the head next (read
// off the top of the heap before sifting), so Pops in a row find them in
// cache. The arrays come from ArrayAllocator (line-aligned, huge pages once
// large). The key index is a flat open-addressing table (no node allocation per element,
// see key_index.h); a key's hash is computed once, when it is added or
// looked up (or handed in by a caller that already has it), and kept beside
// the key: Pop and table growth never hash a string again, and removing an
// element reads no other element's key. Key strings of deleted (not
// popped) elements stay allocated in their handle's entry and are reused by
// the next insertion; Pop frees the popped key (see Pop); Clear frees all.
//
// Order: either a plain comparator `Less(a, b)` over values (the slot then
// holds a copy of the value; fine for small values), or an order policy
// with a nested trivially copyable `Slot` type holding a `uint32_t handle`,
// `Slot MakeSlot(const Value&, uint32_t handle) const` and
// `bool Less(const Slot&, const Slot&) const`, which lets a heap of large
// values sift on a compact copy of what it orders by. `Less` is true when a
// must come out before b; it must be a strict weak ordering and must not
// change while the element is in the heap (call Fix or AddOrUpdate after
// changing what MakeSlot reads). Ties come out in an unspecified order.
//
// Thread-safety: none; the owner serializes access.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pkg/scheduler/queue/array_allocator.h"
#include "pkg/scheduler/queue/key_index.h"
#include "pkg/scheduler/queue/prefetch.h"

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

// An order policy has a nested Slot type (see Heap).
template <class Order>
concept HeapOrderPolicy = requires { typename Order::Slot; };

// The order policy for a plain comparator over values: the slot holds a
// copy of the value.
template <class Value, class Cmp>
struct ByValueOrder {
  struct Slot {
    Value value;
    uint32_t handle;
  };
  Cmp cmp;
  Slot MakeSlot(const Value& v, uint32_t handle) const { return Slot{v, handle}; }
  bool Less(const Slot& a, const Slot& b) const { return cmp(a.value, b.value); }
};

namespace heap_internal {

template <class Value, class Cmp>
struct OrderOf {
  using type = ByValueOrder<Value, Cmp>;
  static type Make(Cmp cmp) { return type{std::move(cmp)}; }
};
template <class Value, HeapOrderPolicy Policy>
struct OrderOf<Value, Policy> {
  using type = Policy;
  static type Make(Policy p) { return p; }
};

}  // namespace heap_internal

template <class Value, class Less>
class Heap {
  using OrderTraits = heap_internal::OrderOf<Value, Less>;
  using Order = typename OrderTraits::type;
  static_assert(std::is_trivially_copyable_v<typename Order::Slot> || !HeapOrderPolicy<Less>,
                "an order policy's Slot must be trivially copyable");

 public:
  using Slot = typename Order::Slot;

  explicit Heap(Less less = Less()) : order_(OrderTraits::Make(std::move(less))) { heap_.resize(kPad); }

  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;

  size_t size() const { return heap_.size() - kPad; }
  bool empty() const { return heap_.size() == kPad; }

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
    if (h != kNone) Refresh(h);
  }

  // Removes and returns the value under `key`, if any.
  std::optional<Value> Delete(std::string_view key) {
    const uint32_t h = Find(key);
    if (h == kNone) return std::nullopt;
    Value v = std::move(entries_[h].value);
    RemoveAt(pos_[h]);
    Unindex(h);
    FreeHandle(h);
    return v;
  }

  // The value ordered first, or nullptr when empty.
  const Value* Peek() const { return empty() ? nullptr : &entries_[At(0).handle].value; }
  // The slot ordered first (what the order compares), or nullptr when empty.
  const Slot* PeekSlot() const { return empty() ? nullptr : &At(0); }
  // The key of the value ordered first; the heap must not be empty.
  const std::string& PeekKey() const { return entries_[At(0).handle].key; }

  // Removes and returns the value ordered first; the heap must not be
  // empty. With `key`, the element's key string is moved there (and its
  // hash to `hash`, if given).
  Value Pop(std::string* key = nullptr, size_t* hash_out = nullptr) {
    assert(!empty());
    const uint32_t h = At(0).handle;
    Entry& e = entries_[h];
    // The entry and the index slot are cold on a large heap. Reading the
    // hash here and fetching the slot lets both misses overlap the sift
    // below (which does not depend on them) instead of following it.
    const size_t hash = e.hash;
    index_.Prefetch(hash);
    // The elements that will be the head after this one leaves, and after
    // the next one, are known now from the (hot) top of the heap: fetch
    // their entries, so Pops that follow find them in cache however long
    // this one's misses take (see PredictedAfterNext).
    uint32_t second;
    NextHeads(&second, &after_next_);
    PrefetchEntry(second);
    PrefetchEntry(after_next_);
    // The key's heap buffer (when it has one) is freed below, and free
    // reads the allocator's header just before it: fetch both now.
    if (key == nullptr && e.key.capacity() > kInlineKeyCapacity) {
      queue::Prefetch(e.key.data() - sizeof(size_t));
      queue::Prefetch(e.key.data());
    }
    RemoveAt(0);
    index_.Erase(hash, h);
    Value v = std::move(e.value);
    // The key string is freed here rather than kept for the next insertion,
    // so glibc reuses the popped records' chunks whole instead of splitting
    // coalesced blocks (Add+Pop of 100k pods: 105 ms, against 170 ms with
    // keys kept).
    if (key != nullptr) {
      *key = std::move(e.key);
    } else {
      std::string().swap(e.key);
    }
    if (hash_out != nullptr) *hash_out = hash;
    FreeHandle(h);
    return v;
  }

  const Value* Get(std::string_view key) const {
    const uint32_t h = Find(key);
    return h == kNone ? nullptr : &entries_[h].value;
  }
  Value* Get(std::string_view key) {
    const uint32_t h = Find(key);
    return h == kNone ? nullptr : &entries_[h].value;
  }
  bool Has(std::string_view key) const { return Find(key) != kNone; }
  // Hints that a key with this StringHash is about to be looked up or added
  // (batch moves fetch ahead to overlap cache misses). No effect otherwise.
  void PrefetchKey(size_t hash) const { index_.Prefetch(hash); }
  // The value that the last Pop predicted would be the head after the
  // next Pop (its entry was fetched then), or nullptr. A hint for
  // prefetching only: the heap may have changed since, and the value may
  // be a moved-from one or another element's.
  const Value* PredictedAfterNext() const {
    return after_next_ < entries_.size() ? &entries_[after_next_].value : nullptr;
  }
  // Hints that a new key with this StringHash is about to be added: fetches
  // its index slot, the entry it will take and the heap leaf it will start
  // from. No effect otherwise.
  void PrefetchInsert(size_t hash) const {
    index_.Prefetch(hash);
    PrefetchFreeHandle();
    const size_t leaf = size();
    if (leaf > 0) queue::Prefetch(&At((leaf - 1) / kArity));
  }

  // Calls fn(key, value) for every element, in heap (not sorted) order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < size(); ++i) {
      const Entry& e = entries_[At(i).handle];
      fn(e.key, e.value);
    }
  }

  void Clear() {
    heap_.resize(kPad);
    heap_.shrink_to_fit();
    pos_.clear();
    entries_.clear();
    free_handles_.clear();
    index_.Clear();
    after_next_ = kNone;
  }

 private:
  static constexpr size_t kArity = 4;
  static constexpr size_t kLine = 64;
  // Slots before the root so that each group of four siblings (logical
  // indices 4i+1..4i+4) starts a cache line when slots are 16 bytes.
  static constexpr size_t kPad = sizeof(Slot) * kArity == kLine ? kArity - 1 : 0;
  static constexpr uint32_t kNone = KeyIndex::kNone;
  // Longest key a std::string holds without a heap buffer.
  static constexpr size_t kInlineKeyCapacity = std::string().capacity();

  // Per handle: the value, its key and the key's StringHash, on one line.
  struct alignas(kLine) Entry {
    Value value{};
    size_t hash = 0;
    std::string key;
  };

  Slot& At(size_t i) { return heap_[i + kPad]; }
  const Slot& At(size_t i) const { return heap_[i + kPad]; }
  bool SlotLess(const Slot& a, const Slot& b) const { return order_.Less(a, b); }

  uint32_t Find(std::string_view key) const { return empty() ? kNone : Find(key, StringHash{}(key)); }
  uint32_t Find(std::string_view key, size_t hash) const {
    return index_.Find(hash, [&](uint32_t h) { return entries_[h].key == key; });
  }
  void Unindex(uint32_t h) { index_.Erase(entries_[h].hash, h); }

  // A handle for a new element keyed `key` (not yet indexed or placed).
  uint32_t NewHandle(std::string&& key, size_t hash) {
    const uint32_t h = TakeHandle();
    entries_[h].key = std::move(key);
    entries_[h].hash = hash;
    return h;
  }
  uint32_t NewHandle(std::string_view key, size_t hash) {
    const uint32_t h = TakeHandle();
    entries_[h].key.assign(key);  // reuses the old key's buffer
    entries_[h].hash = hash;
    return h;
  }
  uint32_t TakeHandle() {
    if (!free_handles_.empty()) {
      const uint32_t h = free_handles_.back();
      free_handles_.pop_back();
      return h;
    }
    entries_.emplace_back();
    pos_.push_back(0);
    return static_cast<uint32_t>(pos_.size() - 1);
  }
  void FreeHandle(uint32_t h) { free_handles_.push_back(h); }
  // The handles that become the head after one Pop and after two Pops
  // (prefetch hints: elements added or removed in between are not
  // foreseen); kNone where the heap is too small. They follow from the top
  // three levels and the last slot by replaying the start of Pop's sift,
  // ties included: equal priorities are common, and a guess that broke a
  // tie differently from the sift would fetch the wrong records.
  void NextHeads(uint32_t* second, uint32_t* third) const {
    *second = *third = kNone;
    const size_t n = size();
    if (n < 2) return;
    const size_t m = n - 1;  // the first Pop moves the last slot (m) to the root
    const Slot& moving = At(m);
    if (m == 1) {
      *second = moving.handle;
      return;
    }
    // The first Pop's sift: the best child (first of equals) rises unless
    // the moving slot is not after it.
    const size_t b1 = FirstBest(1, std::min(kArity, m - 1));
    // The second Pop moves the then last slot (m - 1; the first sift
    // rarely reaches it) to the root: the first best of the root's
    // children then rises unless that slot is not after it.
    const Slot& moving2 = At(m - 1);
    const size_t last_child2 = std::min(kArity, m - 2);
    if (!SlotLess(At(b1), moving)) {
      // The moving slot stays at the root and comes out next; the
      // children are untouched.
      *second = moving.handle;
      *third = last_child2 == 0 || !SlotLess(At(b1), moving2) ? moving2.handle : At(b1).handle;
      if (b1 > last_child2 && last_child2 > 0) {
        // b1 is the slot the second Pop moves; take the best of the rest.
        const size_t b = FirstBest(1, last_child2);
        *third = !SlotLess(At(b), moving2) ? moving2.handle : At(b).handle;
      }
      return;
    }
    *second = At(b1).handle;
    // Slot b1 then holds its best child, unless the moving slot stops there.
    const size_t g = FirstBest(kArity * b1 + 1, std::min(kArity * b1 + kArity, m - 1));
    const Slot& at_b1 = g != 0 && SlotLess(At(g), moving) ? At(g) : moving;
    const Slot* best = nullptr;
    for (size_t c = 1; c <= last_child2; ++c) {
      const Slot& s = c == b1 ? at_b1 : At(c);
      if (best == nullptr || SlotLess(s, *best)) best = &s;
    }
    *third = best == nullptr || !SlotLess(*best, moving2) ? moving2.handle : best->handle;
  }
  // The first of the least slots at logical indices [first, last], as the
  // sift picks among children; 0 when the range is empty.
  size_t FirstBest(size_t first, size_t last) const {
    if (first > last) return 0;
    size_t best = first;
    for (size_t c = first + 1; c <= last; ++c) {
      if (SlotLess(At(c), At(best))) best = c;
    }
    return best;
  }
  void PrefetchEntry(uint32_t h) const {
    if (h != kNone) queue::Prefetch(&entries_[h]);
  }

  // The entry a new element will take, fetched while the index is probed.
  void PrefetchFreeHandle() const {
    if (!free_handles_.empty()) PrefetchForWrite(&entries_[free_handles_.back()]);
  }

  bool Insert(uint32_t h, Value value) {
    index_.Insert(entries_[h].hash, h);
    entries_[h].value = std::move(value);
    heap_.push_back(order_.MakeSlot(entries_[h].value, h));
    SiftUp(size() - 1, At(size() - 1));
    return true;
  }
  bool Replace(uint32_t h, Value value) {
    entries_[h].value = std::move(value);
    Refresh(h);
    return false;
  }
  // Rebuilds the slot of `h` from its value and restores order.
  void Refresh(uint32_t h) {
    const size_t i = pos_[h];
    const Slot s = order_.MakeSlot(entries_[h].value, h);
    if (!SiftUp(i, s)) SiftDown(i, s);
  }

  // Places `moving` at or above logical index i; true when it moved up.
  bool SiftUp(size_t i, Slot moving) {
    const size_t start = i;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!SlotLess(moving, At(parent))) break;
      Put(i, At(parent));
      i = parent;
    }
    Put(i, moving);
    return i != start;
  }

  // Places `moving` at or below logical index i.
  void SiftDown(size_t i, Slot moving) {
    const size_t n = size();
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      // The next level's candidates (the children of these four) are one
      // contiguous run of 16 slots: fetched while this level is compared,
      // so on a heap larger than the cache the levels' misses overlap.
      const size_t next = kArity * first + 1;
      if (next < n) {
        const char* p = reinterpret_cast<const char*>(&At(next));
        const size_t bytes = std::min(n - next, kArity * kArity) * sizeof(Slot);
        for (size_t off = 0; off < bytes; off += kLine) queue::Prefetch(p + off);
      }
      size_t best = first;
      const size_t last = std::min(first + kArity, n);
      for (size_t c = first + 1; c < last; ++c) {
        if (SlotLess(At(c), At(best))) best = c;
      }
      if (!SlotLess(At(best), moving)) break;
      Put(i, At(best));
      i = best;
    }
    Put(i, moving);
  }

  void Put(size_t i, const Slot& s) {
    At(i) = s;
    pos_[s.handle] = static_cast<uint32_t>(i);
  }

  void RemoveAt(size_t i) {
    const size_t last = size() - 1;
    if (i != last) {
      const Slot moving = At(last);
      heap_.pop_back();
      if (!SiftUp(i, moving)) SiftDown(i, moving);
    } else {
      heap_.pop_back();
    }
  }

  Order order_;
  // Line-aligned; huge pages once large (see array_allocator.h).
  std::vector<Slot, ArrayAllocator<Slot>> heap_;  // kPad unused slots, then the heap
  std::vector<uint32_t, ArrayAllocator<uint32_t>> pos_;  // handle -> logical index in the heap
  std::vector<Entry, ArrayAllocator<Entry>> entries_;  // handle -> value, key, hash
  std::vector<uint32_t> free_handles_;
  KeyIndex index_;  // key -> handle
  uint32_t after_next_ = kNone;  // see PredictedAfterNext
};

}  // namespace ksched::scheduler::queue
