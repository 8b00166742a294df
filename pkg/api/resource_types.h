// Dynamic Resource Allocation objects (resource.k8s.io/v1) as ksched reads
// and writes them: DeviceClass, ResourceClaim, ResourceClaimTemplate and
// ResourceSlice.
//
// Same conventions as types.h: snake_case JSON names, `std::optional` for
// fields the API leaves nil, shared as `std::shared_ptr<const T>` once
// decoded. Device taints, tolerations and DeviceTaintRules are modelled
// (on by default from v1.36), and so are partitionable devices (shared
// counters, counter consumption, per-device node selection; on from v1.36)
// and consumable capacity (multi-allocatable devices, capacity request
// policies, capacity requests, distinctAttribute, shareID and consumed
// capacity in results; on from v1.36), and binding conditions (the
// device's bindsToNode, bindingConditions and bindingFailureConditions, the
// results' copies, the allocation timestamp and the conditions drivers
// report in status.devices; on from v1.36). Opaque driver configuration and
// the drivers' device status are kept as JSON text so that what ksched
// writes back keeps them; the status's conditions are decoded besides.
// JSON conversion lives in resource_codec.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// ---------------------------------------------------------------- taints

inline constexpr const char* kDeviceTaintEffectNone = "None";
inline constexpr const char* kDeviceTaintEffectNoSchedule = "NoSchedule";
inline constexpr const char* kDeviceTaintEffectNoExecute = "NoExecute";

// A taint on a device, published in its ResourceSlice or added by a
// DeviceTaintRule.
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // None, NoSchedule, NoExecute (others are ignored)
  std::optional<Time> time_added;

  bool operator==(const DeviceTaint&) const = default;
};

// A request's toleration of device taints; the same matching rules as a
// pod's toleration of node taints (empty operator means Equal).
struct DeviceToleration {
  std::string key;
  std::string operator_;  // Equal, Exists
  std::string value;
  std::string effect;  // empty: every effect
  std::optional<int64_t> toleration_seconds;
};

// ---------------------------------------------------------------- DeviceClass

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  // The extended resource a pod may request to get a device of this class
  // (DRAExtendedResource); every class also serves its implicit name
  // kDeviceClassExtendedResourcePrefix + its own name.
  std::optional<std::string> extended_resource_name;
};

// resourceapi.ResourceDeviceClassPrefix: the implicit extended resource
// name of a DeviceClass is this prefix followed by the class name.
inline constexpr std::string_view kDeviceClassExtendedResourcePrefix = "deviceclass.resource.kubernetes.io/";
// resourceapi.ExtendedResourceClaimAnnotation: marks the claim the scheduler
// created for a pod's extended resources.
inline constexpr std::string_view kExtendedResourceClaimAnnotation = "resource.kubernetes.io/extended-resource-claim";

struct DeviceClass {
  ObjectMeta metadata;
  DeviceClassSpec spec;
};

// ---------------------------------------------------------------- ResourceClaim

inline constexpr const char* kDeviceAllocationModeExactCount = "ExactCount";
inline constexpr const char* kDeviceAllocationModeAll = "All";

// How much of each capacity of a multi-allocatable device one allocation
// asks for (qualified capacity name -> amount); a capacity not named takes
// the device's default (its request policy's, else all of it).
struct CapacityRequirements {
  std::map<std::string, Quantity> requests;
};

// One way to satisfy a request (the `exactly` form, or one entry of
// `firstAvailable`, whose name is set).
struct ExactDeviceRequest {
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;  // ExactCount (defaulted by the API server), All
  int64_t count = 0;            // ExactCount: defaulted to 1
  std::optional<bool> admin_access;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;  // consumable capacity
};

struct DeviceSubRequest {
  std::string name;
  std::string device_class_name;
  std::vector<DeviceSelector> selectors;
  std::string allocation_mode;
  int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  std::optional<CapacityRequirements> capacity;
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
  // Every device of the named requests has the attribute, each with a
  // different value (consumable capacity's; at most one of the two is set).
  std::optional<std::string> distinct_attribute;
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
  std::vector<DeviceToleration> tolerations;  // the request's, as allocated
  // Set on each share of a multi-allocatable device: unique per device.
  std::optional<std::string> share_id;
  std::map<std::string, Quantity> consumed_capacity;  // empty: absent
  // The device's binding conditions, copied by the allocator when
  // DRADeviceBindingConditions is on.
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
};

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
};

struct AllocationResult {
  DeviceAllocationResult devices;
  std::optional<NodeSelector> node_selector;  // unset: usable on every node
  // Set by the scheduler's PreBind (binding conditions on): where the
  // bindingTimeout counts from.
  std::optional<Time> allocation_timestamp;
};

struct ResourceClaimConsumerReference {
  std::string api_group;  // "" for core pods
  std::string resource;   // "pods"
  std::string name;
  std::string uid;
};

// One entry of status.devices as the scheduler reads it (the rest of the
// entry, data and networkData, stays in ResourceClaimStatus::devices).
struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;
};

struct ResourceClaimStatus {
  std::optional<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reserved_for;
  RawJson devices;  // []AllocatedDeviceStatus, written by drivers, verbatim
  // The same list decoded (read-only: encoding writes `devices`, or this
  // when `devices` is empty).
  std::vector<AllocatedDeviceStatus> device_statuses;
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

// The valid amounts of a range: min, then every step above it (any
// amount from min when there is no step), up to max.
struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
};

// What one allocation of a multi-allocatable device may consume of a
// capacity: `default_value` when the request names none; otherwise the
// request rounded up to the smallest of `valid_values` or to the range
// (at most one of the two is set).
struct CapacityRequestPolicy {
  std::optional<Quantity> default_value;
  std::vector<Quantity> valid_values;  // ascending
  std::optional<CapacityRequestPolicyRange> valid_range;
};

// The quantity as written in the slice ("1.5Gi"); the codec checks that it
// parses. Kept as text because DRA's CEL quantity functions depend on it.
struct DeviceCapacity {
  std::string value;
  std::optional<CapacityRequestPolicy> request_policy;
};

// One counter of a CounterSet, or what a device consumes of it.
struct Counter {
  Quantity value;
};

// A named set of counters that the devices of a pool draw from (for
// example one physical GPU's memory, shared by its partitions).
struct CounterSet {
  std::string name;
  std::map<std::string, Counter> counters;
};

// What a device consumes, while allocated, of the counters of one set.
struct DeviceCounterConsumption {
  std::string counter_set;
  std::map<std::string, Counter> counters;
};

struct Device {
  std::string name;
  std::map<std::string, DeviceAttributeValue> attributes;  // qualified name -> value
  std::map<std::string, DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  // With the slice's perDeviceNodeSelection, exactly one of these says
  // which nodes reach the device.
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::vector<DeviceTaint> taints;
  // The device may be allocated to several requests and claims at once,
  // each consuming part of its capacity (consumable capacity).
  std::optional<bool> allow_multiple_allocations;
  // Binding conditions (DRADeviceBindingConditions): an allocation of the
  // device is pinned to the chosen node, and the pod binds only once the
  // driver reports every binding condition True in the claim's
  // status.devices (a failure condition True gives up).
  std::optional<bool> binds_to_node;
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
};

// Exactly one of node_name, node_selector, all_nodes and
// per_device_node_selection says which nodes reach the slice's devices. A
// slice with shared_counters publishes counter sets and no devices.
struct ResourceSliceSpec {
  std::string driver;
  ResourcePool pool;
  std::optional<std::string> node_name;
  std::optional<NodeSelector> node_selector;
  std::optional<bool> all_nodes;
  std::optional<bool> per_device_node_selection;
  std::vector<Device> devices;
  std::vector<CounterSet> shared_counters;
};

struct ResourceSlice {
  ObjectMeta metadata;
  ResourceSliceSpec spec;
};

// ---------------------------------------------------------------- DeviceTaintRule

// Which devices a DeviceTaintRule taints: every device whose driver, pool
// and name match the fields that are set. A rule without a selector taints
// nothing.
struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;

  bool operator==(const DeviceTaintSelector&) const = default;
};

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> device_selector;
  DeviceTaint taint;

  bool operator==(const DeviceTaintRuleSpec&) const = default;
};

// resource.k8s.io DeviceTaintRule (v1 from 1.37; v1beta2 in 1.36, v1alpha3
// in 1.35, same fields). Its status is the eviction controller's and is
// not read.
struct DeviceTaintRule {
  ObjectMeta metadata;
  DeviceTaintRuleSpec spec;
};

using DeviceClassList = List<DeviceClass>;
using ResourceClaimList = List<ResourceClaim>;
using ResourceClaimTemplateList = List<ResourceClaimTemplate>;
using ResourceSliceList = List<ResourceSlice>;
using DeviceTaintRuleList = List<DeviceTaintRule>;

}  // namespace ksched::api
