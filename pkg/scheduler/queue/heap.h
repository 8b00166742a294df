// Heap: a binary min-heap of values addressed by a unique key (kube's
// backend/heap), used for activeQ and both backoff heaps.
//
// Complexity: AddOrUpdate, Delete and Pop are O(log n) plus one hash lookup;
// Peek, Get, Has and size are O(1) (hash lookup for Get/Has). Values live in
// the heap vector (comparisons read them directly); each key's hash-map node
// records the value's position, so re-sifting never hashes.
//
// `Less(a, b)` is true when a must come out before b; it must be a strict
// weak ordering and must not change while the element is in the heap (call
// AddOrUpdate again after changing what it reads). Ties come out in an
// unspecified order.
//
// Thread-safety: none; the owner serializes access.
#pragma once

#include <cassert>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ksched::scheduler::queue {

// Transparent hashing so string keys can be looked up by string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
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
  bool AddOrUpdate(std::string_view key, Value value) {
    auto it = nodes_.find(key);
    if (it != nodes_.end()) return Replace(it->second, std::move(value));
    return Insert(nodes_.emplace(std::string(key), Node{}).first, std::move(value));
  }
  // As above, taking ownership of the key string (one hash, no copy).
  bool AddOrUpdate(std::string&& key, Value value) {
    auto [it, inserted] = nodes_.try_emplace(std::move(key));
    if (!inserted) return Replace(it->second, std::move(value));
    return Insert(it, std::move(value));
  }

  // Re-establishes order after the value under `key` changed in place.
  void Fix(std::string_view key) {
    auto it = nodes_.find(key);
    if (it != nodes_.end()) Fix(it->second.index);
  }

  // Removes and returns the value under `key`, if any.
  std::optional<Value> Delete(std::string_view key) {
    auto it = nodes_.find(key);
    if (it == nodes_.end()) return std::nullopt;
    size_t i = it->second.index;
    Value v = std::move(heap_[i].value);
    RemoveAt(i);
    nodes_.erase(it);
    return v;
  }

  // The value ordered first, or nullptr when empty.
  const Value* Peek() const { return heap_.empty() ? nullptr : &heap_.front().value; }
  // The key of the value ordered first; the heap must not be empty.
  const std::string& PeekKey() const { return *heap_.front().node->key; }

  // Removes and returns the key and value ordered first; the heap must not
  // be empty.
  std::pair<std::string, Value> Pop() {
    assert(!heap_.empty());
    Value v = std::move(heap_.front().value);
    const std::string* key = heap_.front().node->key;
    RemoveAt(0);
    auto handle = nodes_.extract(nodes_.find(std::string_view(*key)));
    return {std::move(handle.key()), std::move(v)};
  }

  const Value* Get(std::string_view key) const {
    auto it = nodes_.find(key);
    return it == nodes_.end() ? nullptr : &heap_[it->second.index].value;
  }
  Value* Get(std::string_view key) {
    auto it = nodes_.find(key);
    return it == nodes_.end() ? nullptr : &heap_[it->second.index].value;
  }
  bool Has(std::string_view key) const { return nodes_.find(key) != nodes_.end(); }

  // Calls fn(key, value) for every element, in heap (not sorted) order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (const Slot& s : heap_) fn(*s.node->key, s.value);
  }

  void Clear() {
    heap_.clear();
    nodes_.clear();
  }

 private:
  // The hash-map side of an element: where it sits in heap_.
  struct Node {
    size_t index = 0;
    const std::string* key = nullptr;  // the map entry's own key
  };
  // The heap side: values live in the vector so comparisons read them
  // without another indirection.
  struct Slot {
    Value value;
    Node* node;
  };
  using Map = std::unordered_map<std::string, Node, StringHash, std::equal_to<>>;

  bool Insert(typename Map::iterator it, Value value) {
    it->second.key = &it->first;
    it->second.index = heap_.size();
    heap_.push_back(Slot{std::move(value), &it->second});
    SiftUp(heap_.size() - 1);
    return true;
  }
  bool Replace(Node& n, Value value) {
    heap_[n.index].value = std::move(value);
    Fix(n.index);
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
      heap_[i].node->index = i;
      i = parent;
    }
    heap_[i] = std::move(moving);
    heap_[i].node->index = i;
    return i != start;
  }

  void SiftDown(size_t i) {
    const size_t size = heap_.size();
    Slot moving = std::move(heap_[i]);
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && less_(heap_[child + 1].value, heap_[child].value)) ++child;
      if (!less_(heap_[child].value, moving.value)) break;
      heap_[i] = std::move(heap_[child]);
      heap_[i].node->index = i;
      i = child;
    }
    heap_[i] = std::move(moving);
    heap_[i].node->index = i;
  }

  void Fix(size_t i) {
    if (!SiftUp(i)) SiftDown(i);
  }

  void RemoveAt(size_t i) {
    const size_t last = heap_.size() - 1;
    if (i != last) {
      heap_[i] = std::move(heap_[last]);
      heap_[i].node->index = i;
      heap_.pop_back();
      Fix(i);
    } else {
      heap_.pop_back();
    }
  }

  Less less_;
  std::vector<Slot> heap_;
  Map nodes_;
};

}  // namespace ksched::scheduler::queue
