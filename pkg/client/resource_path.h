// REST paths of the API types, computed from api::TypeInfo<T>:
//   apiVersion "v1"                -> /api/v1/...
//   apiVersion "storage.k8s.io/v1" -> /apis/storage.k8s.io/v1/...
// Namespaced collections take a namespace segment unless the namespace is
// empty (all namespaces); cluster-scoped types ignore the namespace.
//
//   CollectionPath<api::Pod>("default")       /api/v1/namespaces/default/pods
//   CollectionPath<api::Pod>("")              /api/v1/pods
//   ObjectPath<api::Lease>("kube-system", "ksched")
//                     /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched
//   ObjectPath<api::Pod>("d", "p", "binding") /api/v1/namespaces/d/pods/p/binding
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "pkg/api/codec.h"

namespace ksched::client {

// "/api/v1" for the core group, "/apis/GROUP/VERSION" otherwise.
std::string ApiPrefix(std::string_view api_version);

std::string CollectionPath(std::string_view api_version, std::string_view resource, bool namespaced,
                           std::string_view ns);

template <class T>
std::string CollectionPath(std::string_view ns = "") {
  using Info = api::TypeInfo<T>;
  return CollectionPath(Info::kApiVersion, Info::kResource, Info::kNamespaced, ns);
}

template <class T>
std::string ObjectPath(std::string_view ns, std::string_view name, std::string_view subresource = "") {
  std::string path = CollectionPath<T>(ns);
  path.push_back('/');
  path.append(name);
  if (!subresource.empty()) {
    path.push_back('/');
    path.append(subresource);
  }
  return path;
}

}  // namespace ksched::client
