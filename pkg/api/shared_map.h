// SharedMap<K, V>: a std::map member of an API object that many objects
// share, copy-on-write (shared_collection.h). The pods of one workload carry
// equal labels; the decoder interns them.
//
// Reads are std::map's const interface; writes go through Mutable(),
// operator[], emplace, insert_or_assign, erase, clear or assignment, which
// copy a shared map first, so reading a non-const object through anything
// but operator[] never copies. Thread-safety: as SharedCollection's.
#pragma once

#include <cstddef>
#include <map>
#include <utility>

#include "pkg/api/shared_collection.h"

namespace ksched::api {

template <class K, class V>
class SharedMap : public SharedCollection<std::map<K, V>, SharedMap<K, V>> {
  using Base = SharedCollection<std::map<K, V>, SharedMap<K, V>>;

 public:
  using Map = std::map<K, V>;
  using Base::Base;
  using Base::operator=;

  typename Map::const_iterator find(const K& key) const { return this->get().find(key); }
  size_t count(const K& key) const { return this->get().count(key); }
  bool contains(const K& key) const { return this->get().contains(key); }
  const V& at(const K& key) const { return this->get().at(key); }

  V& operator[](const K& key) { return this->Mutable()[key]; }
  template <class... Args>
  auto emplace(Args&&... args) {
    return this->Mutable().emplace(std::forward<Args>(args)...);
  }
  template <class M>
  auto insert_or_assign(const K& key, M&& value) {
    return this->Mutable().insert_or_assign(key, std::forward<M>(value));
  }
  size_t erase(const K& key) { return contains(key) ? this->Mutable().erase(key) : 0; }
};

}  // namespace ksched::api
