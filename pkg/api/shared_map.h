// SharedMap<K, V>: a std::map member of an API object that many objects
// share, copy-on-write, as SharedList (shared_list.h) is for lists. The pods
// of one workload carry equal labels; the decoder interns them
// (interned.h), so they hold one copy and copying a pod copies a pointer.
//
// Reads are std::map's const interface (and a conversion to
// `const std::map<K, V>&`). Writes go through Mutable(), operator[],
// emplace, insert_or_assign, erase, clear or assignment, which first copy a
// map that is shared or interned; so iteration is const only, and reading
// a non-const object through anything but operator[] never copies.
//
// Thread-safety: as a std::map for one SharedMap object. The map it points
// to is immutable once shared, so objects that share it may be used on
// different threads. Interned() is thread-safe.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <memory>
#include <utility>

#include "pkg/api/interned.h"

namespace ksched::api {

template <class K, class V>
class SharedMap {
 public:
  using Map = std::map<K, V>;
  using value_type = typename Map::value_type;
  using size_type = size_t;
  using const_iterator = typename Map::const_iterator;
  using iterator = const_iterator;  // entries are written through Mutable()

  SharedMap() = default;
  SharedMap(Map entries) { Assign(std::move(entries)); }  // NOLINT: as a map
  SharedMap(std::initializer_list<value_type> entries) { Assign(Map(entries)); }
  SharedMap& operator=(Map entries) {
    Assign(std::move(entries));
    return *this;
  }
  SharedMap& operator=(std::initializer_list<value_type> entries) {
    Assign(Map(entries));
    return *this;
  }

  // The interned map equal to `entries` (see Intern in interned.h).
  static SharedMap Interned(size_t hash, Map entries) {
    SharedMap map;
    if (entries.empty()) return map;
    map.node_ = Intern(hash, std::move(entries));
    return map;
  }

  const Map& get() const { return node_ ? node_->value : EmptyMap(); }
  operator const Map&() const { return get(); }  // NOLINT: reads as a map

  bool empty() const { return get().empty(); }
  size_t size() const { return get().size(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  const_iterator find(const K& key) const { return get().find(key); }
  size_t count(const K& key) const { return get().count(key); }
  bool contains(const K& key) const { return get().contains(key); }
  const V& at(const K& key) const { return get().at(key); }

  // The map to write: a private copy when the current one is shared with
  // another object or interned.
  Map& Mutable() {
    if (!node_) node_ = std::make_shared<SharedValue<Map>>();
    return MutableShared(&node_);
  }
  V& operator[](const K& key) { return Mutable()[key]; }
  template <class... Args>
  auto emplace(Args&&... args) {
    return Mutable().emplace(std::forward<Args>(args)...);
  }
  template <class M>
  auto insert_or_assign(const K& key, M&& value) {
    return Mutable().insert_or_assign(key, std::forward<M>(value));
  }
  size_t erase(const K& key) {
    return contains(key) ? Mutable().erase(key) : 0;
  }
  void clear() { node_.reset(); }

  // True when both hold the same map object (not merely equal maps).
  bool SharesWith(const SharedMap& other) const { return node_ == other.node_; }

  friend bool operator==(const SharedMap& a, const SharedMap& b) {
    return a.node_ == b.node_ || a.get() == b.get();
  }
  friend bool operator==(const SharedMap& a, const Map& b) { return a.get() == b; }

 private:
  static const Map& EmptyMap() {
    static const Map empty;
    return empty;
  }

  void Assign(Map entries) {
    if (entries.empty()) {
      node_.reset();
      return;
    }
    auto node = std::make_shared<SharedValue<Map>>();
    node->value = std::move(entries);
    node_ = std::move(node);
  }

  std::shared_ptr<const SharedValue<Map>> node_;  // null: empty
};

}  // namespace ksched::api
