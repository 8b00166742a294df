// Dynamic Resource Allocation objects (resource.k8s.io/v1) as ksched reads
// and writes them: DeviceClass, ResourceClaim, ResourceClaimTemplate and
// ResourceSlice.
//
// Same conventions as types.h: snake_case JSON names, `std::optional` for
// fields the API leaves nil, shared as `std::shared_ptr<const T>` once
// decoded. Fields of features that are alpha (off by default) in v1.34 —
// partitionable devices, consumable capacity, device taints and
// tolerations, binding conditions, extended resources — are not modelled:
// kube-apiserver drops them while their gates are off, and the scheduler
// ignores them. Opaque driver configuration and the drivers' device status
// are kept as JSON text so that what ksched writes back keeps them.
// JSON conversion lives in resource_codec.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::api {

// A JSON value kept verbatim (runtime.RawExtension and the like), as compact
// JSON text; empty means absent.
struct RawJson {
  std::string text;
  bool empty() const { return text.empty(); }
};

// ---------------------------------------------------------------- selectors, config

struct CELDeviceSelector {
  std::string expression;
};

struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
};

struct OpaqueDeviceConfiguration {
  std::string driver;
  RawJson parameters;
};

// DeviceConfiguration inlined in the class, claim and allocation configs.
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceClaimConfiguration {
  std::vector<std::string> requests;  // empty: every request
  std::optional<OpaqueDeviceConfiguration> opaque;
};

struct DeviceAllocationConfiguration {
  std::string source;  // FromClass, FromClaim
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
};

// ---------------------------------------------------------------- DeviceClass

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
};

struct DeviceClass {
  ObjectMeta metadata;
  DeviceClassSpec spec;
};

// ---------------------------------------------------------------- ResourceClaim

inline constexpr const char* kDeviceAllocationModeExactCount = "ExactCount";
inline constexpr const char* kDeviceAllocationModeAll = "All";

// One way to satisfy a request (the `exactly` form, or one entry of
// `firstAvailable`, whose name is set).
struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;  // ExactCount (defaulted by the API server), All
  int64_t count = 0;            // ExactCount: defaulted to 1
  std::optional<bool> admin_access;
};

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;
  int64_t count = 0;
};

// Exactly one of `exactly` and `first_available` is set.
struct DeviceRequest {
  std::string name;
  std::optional<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> first_available;  // tried in order
};

struct DeviceConstraint {
  std::vector<std::string> requests;  // empty: every request
  std::optional<std::string> match_attribute;  // a fully qualified name
};

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
};

struct ResourceClaimSpec {
  DeviceClaim devices;
};

struct DeviceRequestAllocationResult {
  std::string request;  // "req" or "req/subreq" for a firstAvailable choice
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<bool> admin_access;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;  // unset: usable on every node
};

struct ResourceClaimConsumerReference {
  std::string api_group;  // "" for core pods
  std::string resource;   // "pods"
  std::string name;
  std::string uid;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  RawJson devices;  // []AllocatedDeviceStatus, written by drivers
};

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
};

// ---------------------------------------------------------------- ResourceClaimTemplate

struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;  // labels and annotations copied to the claim
  ResourceClaimSpec spec;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
};

// ---------------------------------------------------------------- ResourceSlice

struct ResourcePool {
  std::string name;
  int64_t generation = 0;
  int64_t resource_slice_count = 0;
};

// Exactly one of the four value kinds is set.
struct DeviceAttributeValue {
  std::optional<int64_t> int_value;
  std::optional<bool> bool_value;
  std::optional<std::string> string_value;
  std::optional<std::string> version_value;
};

// The quantity as written in the slice ("1.5Gi"); the codec checks that it
// parses. Kept as text because DRA's CEL quantity functions depend on it.
struct DeviceCapacity {
  std::string value;
};

struct Device {
  std::string name;
  std::map<std::string, DeviceAttributeValue> attributes;  // qualified name -> value
  std::map<std::string, DeviceCapacity> capacity;
};

// Exactly one of node_name, node_selector and all_nodes says which nodes
// reach the slice's devices.
struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<Device> devices;
};

struct ResourceSlice {
  ObjectMeta metadata;
  ResourceSliceSpec spec;
};

using DeviceClassList = List<DeviceClass>;
using ResourceClaimList = List<ResourceClaim>;
using ResourceClaimTemplateList = List<ResourceClaimTemplate>;
using ResourceSliceList = List<ResourceSlice>;

}  // namespace ksched::api
