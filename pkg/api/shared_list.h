// SharedList<T>: a list member of an API object that many objects share,
// copy-on-write (shared_collection.h). Pods of one workload come from one
// template: their containers, tolerations and spread constraints are equal,
// and a cluster holds every pod, so the decoder interns these lists.
//
// Reads are std::vector's const interface; writes go through Mutable(),
// push_back, emplace_back, clear or assignment, which copy a shared list
// first. Thread-safety: as SharedCollection's.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "pkg/api/shared_collection.h"

namespace ksched::api {

template <class T>
class SharedList : public SharedCollection<std::vector<T>, SharedList<T>> {
  using Base = SharedCollection<std::vector<T>, SharedList<T>>;

 public:
  using Base::Base;
  using Base::operator=;

  const T& operator[](size_t i) const { return this->get()[i]; }
  const T& at(size_t i) const { return this->get().at(i); }
  const T& front() const { return this->get().front(); }
  const T& back() const { return this->get().back(); }

  void push_back(T item) { this->Mutable().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return this->Mutable().emplace_back(std::forward<Args>(args)...);
  }
};

}  // namespace ksched::api
