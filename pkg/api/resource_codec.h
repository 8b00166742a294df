// JSON conversion of the resource.k8s.io/v1 objects (resource_types.h):
// FromJson, FromJsonText and ToJson (codec.h) are instantiated for
// DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
// DeviceTaintRule and their lists, with the conventions codec.h states. Opaque configuration and the
// claim's status.devices round-trip as JSON text; a capacity that is not a
// quantity is an error naming its field.
//
// Thread-safety: free functions without shared state.
#pragma once

#include "pkg/api/codec.h"
#include "pkg/api/resource_types.h"

namespace ksched::api {

#define KSCHED_API_TYPE_INFO(T, KIND, RESOURCE, NAMESPACED)         \
  template <>                                                       \
  struct TypeInfo<T> {                                              \
    static constexpr const char* kApiVersion = "resource.k8s.io/v1"; \
    static constexpr const char* kKind = KIND;                      \
    static constexpr const char* kResource = RESOURCE;              \
    static constexpr bool kNamespaced = NAMESPACED;                 \
  };
KSCHED_API_TYPE_INFO(DeviceClass, "DeviceClass", "deviceclasses", false)
KSCHED_API_TYPE_INFO(ResourceClaim, "ResourceClaim", "resourceclaims", true)
KSCHED_API_TYPE_INFO(ResourceClaimTemplate, "ResourceClaimTemplate", "resourceclaimtemplates", true)
KSCHED_API_TYPE_INFO(ResourceSlice, "ResourceSlice", "resourceslices", false)
// The v1 of 1.37; 1.35 and 1.36 serve the same fields as v1alpha3 and
// v1beta2 (InformerFactoryOptions::api_versions picks).
KSCHED_API_TYPE_INFO(DeviceTaintRule, "DeviceTaintRule", "devicetaintrules", false)
#undef KSCHED_API_TYPE_INFO

}  // namespace ksched::api
