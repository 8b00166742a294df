// ResourceType: the identity of a watched collection (group/version, kind,
// REST resource, scope), taken from api::TypeInfo<T>, and the list of API
// types the informer templates are instantiated for.
//
// Store<T>, Reflector<T> and SharedInformer<T> are defined in their .cc files
// and explicitly instantiated for exactly the types of
// KSCHED_INFORMER_FOR_EACH_TYPE, so that every user does not recompile them.
//
// Thread-safety: values; no shared state.
#pragma once

#include <string>

#include "pkg/api/codec.h"
#include "pkg/api/podgroup.h"
#include "pkg/api/resource_codec.h"
#include "pkg/api/types.h"

namespace ksched::informer {

struct ResourceType {
  std::string api_version;  // "v1", "storage.k8s.io/v1"
  std::string kind;         // "Pod"
  std::string resource;     // "pods"
  bool namespaced = false;

  template <class T>
  static ResourceType Of() {
    using Info = api::TypeInfo<T>;
    return ResourceType{Info::kApiVersion, Info::kKind, Info::kResource, Info::kNamespaced};
  }
};

// X(type) for every type an informer can watch.
#define KSCHED_INFORMER_FOR_EACH_TYPE(X) \
  X(::ksched::api::Pod)                  \
  X(::ksched::api::Node)                 \
  X(::ksched::api::PersistentVolume)     \
  X(::ksched::api::PersistentVolumeClaim) \
  X(::ksched::api::StorageClass)         \
  X(::ksched::api::CSINode)              \
  X(::ksched::api::CSIDriver)            \
  X(::ksched::api::CSIStorageCapacity)   \
  X(::ksched::api::VolumeAttachment)     \
  X(::ksched::api::PodDisruptionBudget)  \
  X(::ksched::api::Namespace)            \
  X(::ksched::api::Service)              \
  X(::ksched::api::ReplicationController) \
  X(::ksched::api::ReplicaSet)           \
  X(::ksched::api::StatefulSet)          \
  X(::ksched::api::PodGroup)             \
  X(::ksched::api::DeviceClass)          \
  X(::ksched::api::ResourceClaim)        \
  X(::ksched::api::ResourceClaimTemplate) \
  X(::ksched::api::ResourceSlice)        \
  X(::ksched::api::DeviceTaintRule)

}  // namespace ksched::informer
