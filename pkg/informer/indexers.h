// The standard index function for Store<T>::AddIndexer:
//
//   kNamespaceIndex    object -> its namespace (client-go's NamespaceIndex);
//                      cluster-scoped objects are not indexed.
//
// Each index costs every write to its store a lookup and, when the value
// changes, a set insert; the factory installs only what listers read.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::informer {

inline constexpr const char kNamespaceIndex[] = "namespace";

template <class T>
std::vector<std::string> NamespaceIndexFunc(const T& object) {
  if (object.metadata.namespace_.empty()) return {};
  return {object.metadata.namespace_};
}

}  // namespace ksched::informer
