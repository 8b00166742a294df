// Standard index functions for Store<T>::AddIndexer.
//
//   kNamespaceIndex    object -> its namespace (client-go's NamespaceIndex);
//                      cluster-scoped objects are not indexed.
//   kPodNodeNameIndex  pod -> spec.nodeName; unassigned pods are not indexed,
//                      so ByIndex(kPodNodeNameIndex, node) lists exactly the
//                      pods bound to `node`.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::informer {

inline constexpr const char kNamespaceIndex[] = "namespace";
inline constexpr const char kPodNodeNameIndex[] = "spec.nodeName";

template <class T>
std::vector<std::string> NamespaceIndexFunc(const T& object) {
  if (object.metadata.namespace_.empty()) return {};
  return {object.metadata.namespace_};
}

std::vector<std::string> PodNodeNameIndexFunc(const api::Pod& pod);

}  // namespace ksched::informer
