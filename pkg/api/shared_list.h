// SharedList<T>: a list member of an API object that many objects share,
// copy-on-write. Pods of one workload come from one template: their
// containers, tolerations and spread constraints are equal, and a cluster
// holds every pod. The decoder interns these lists (interned.h), so equal
// lists decode to one copy, and copying a pod copies a pointer.
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

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "pkg/api/interned.h"

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

  // The interned list equal to `items` (see Intern in interned.h).
  static SharedList Interned(size_t hash, std::vector<T> items) {
    SharedList list;
    if (items.empty()) return list;
    items.shrink_to_fit();
    list.node_ = Intern(hash, std::move(items));
    return list;
  }

  const std::vector<T>& get() const { return node_ ? node_->value : EmptyItems(); }
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
  // another object or interned.
  std::vector<T>& Mutable() {
    if (!node_) node_ = std::make_shared<SharedValue<std::vector<T>>>();
    return MutableShared(&node_);
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
  static const std::vector<T>& EmptyItems() {
    static const std::vector<T> empty;
    return empty;
  }

  void Assign(std::vector<T> items) {
    if (items.empty()) {
      node_.reset();
      return;
    }
    auto node = std::make_shared<SharedValue<std::vector<T>>>();
    node->value = std::move(items);
    node_ = std::move(node);
  }

  std::shared_ptr<const SharedValue<std::vector<T>>> node_;  // null: empty
};

}  // namespace ksched::api
