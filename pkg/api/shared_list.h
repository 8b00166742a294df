// SharedList<T>: a list member of an API object that many objects share,
// copy-on-write. Pods of one workload come from one template: their
// containers, tolerations and spread constraints are equal, and a cluster
// holds every pod. The decoder interns these lists (SharedList::Interned),
// so equal lists decode to one copy, and copying a pod copies a pointer.
//
// Reads are std::vector's const interface (and a conversion to
// `const std::vector<T>&`). Writes go through Mutable(), push_back,
// emplace_back, clear or assignment, which first copy a list that is
// shared or interned; so element access is const only, and reading a
// non-const object never copies.
//
// Thread-safety: as a std::vector<T> for one SharedList object. The list it
// points to is immutable once shared, so objects that share it may be used
// on different threads. Interned() is thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ksched::api {

template <class T>
class SharedList {
 public:
  using value_type = T;
  using size_type = size_t;
  using const_iterator = typename std::vector<T>::const_iterator;
  using iterator = const_iterator;  // elements are written through Mutable()

  SharedList() = default;
  SharedList(std::vector<T> items) { Assign(std::move(items)); }  // NOLINT: as a vector
  SharedList(std::initializer_list<T> items) { Assign(std::vector<T>(items)); }
  SharedList& operator=(std::vector<T> items) {
    Assign(std::move(items));
    return *this;
  }
  SharedList& operator=(std::initializer_list<T> items) {
    Assign(std::vector<T>(items));
    return *this;
  }

  // The one list equal to `items` among those interned and still alive,
  // or a new one. `hash` must be equal for equal lists (the codec hashes
  // their encoded text). O(lists with that hash) comparisons, under a lock.
  static SharedList Interned(size_t hash, std::vector<T> items);

  const std::vector<T>& get() const { return node_ ? node_->items : EmptyItems(); }
  operator const std::vector<T>&() const { return get(); }  // NOLINT: reads as a vector

  bool empty() const { return get().empty(); }
  size_t size() const { return get().size(); }
  const T& operator[](size_t i) const { return get()[i]; }
  const T& at(size_t i) const { return get().at(i); }
  const T& front() const { return get().front(); }
  const T& back() const { return get().back(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }

  // The list to write: a private copy when the current one is shared with
  // another object or interned (others may still find it).
  std::vector<T>& Mutable() {
    if (!node_ || node_->interned || node_.use_count() != 1) {
      auto copy = std::make_shared<Node>();
      if (node_) copy->items = node_->items;
      node_ = std::move(copy);
    }
    return const_cast<Node&>(*node_).items;
  }
  void push_back(T item) { Mutable().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return Mutable().emplace_back(std::forward<Args>(args)...);
  }
  void clear() { node_.reset(); }

  // True when both hold the same list object (not merely equal lists).
  bool SharesWith(const SharedList& other) const { return node_ == other.node_; }

  friend bool operator==(const SharedList& a, const SharedList& b) {
    return a.node_ == b.node_ || a.get() == b.get();
  }
  friend bool operator==(const SharedList& a, const std::vector<T>& b) { return a.get() == b; }

 private:
  struct Node {
    std::vector<T> items;
    bool interned = false;  // set before the node is published, never after
  };

  // Entries of the intern table: weak, so a list lives only while objects
  // hold it; expired entries are swept when the table doubles.
  struct Table {
    std::mutex mu;
    std::unordered_multimap<size_t, std::weak_ptr<const Node>> lists;
    size_t sweep_at = 64;
  };

  static const std::vector<T>& EmptyItems() {
    static const std::vector<T> empty;
    return empty;
  }

  void Assign(std::vector<T> items) {
    if (items.empty()) {
      node_.reset();
      return;
    }
    auto node = std::make_shared<Node>();
    node->items = std::move(items);
    node_ = std::move(node);
  }

  std::shared_ptr<const Node> node_;  // null: empty
};

template <class T>
SharedList<T> SharedList<T>::Interned(size_t hash, std::vector<T> items) {
  SharedList list;
  if (items.empty()) return list;
  static Table table;
  std::lock_guard<std::mutex> lock(table.mu);
  auto [first, last] = table.lists.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    std::shared_ptr<const Node> live = it->second.lock();
    if (live && live->items == items) {
      list.node_ = std::move(live);
      return list;
    }
  }
  auto node = std::make_shared<Node>();
  node->items = std::move(items);
  node->items.shrink_to_fit();
  node->interned = true;
  table.lists.emplace(hash, node);
  list.node_ = std::move(node);
  if (table.lists.size() >= table.sweep_at) {
    std::erase_if(table.lists, [](const auto& entry) { return entry.second.expired(); });
    table.sweep_at = std::max<size_t>(64, 2 * table.lists.size());
  }
  return list;
}

}  // namespace ksched::api
