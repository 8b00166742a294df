// JSON fields of the resource.k8s.io/v1 objects (resource_types.h).

#include <string>

#include "pkg/api/codec_fields.h"

namespace ksched::api {

// ---------------------------------------------------------------- raw JSON

util::Status Decode(const Decoder& d, RawJson* out) {
  if (d.IsAbsent()) return util::Status::Ok();
  out->text = d.json().dump();
  return util::Status::Ok();
}

void Encode(const RawJson& in, nlohmann::json* out) {
  // The text was written by Decode's dump(), so it parses.
  *out = nlohmann::json::parse(in.text, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded()) *out = nullptr;
}

bool ReadFast(JsonReader& r, RawJson* out) { return ReadFastViaDecode(r, out); }
void Write(JsonWriter& w, const RawJson& in) { WriteViaEncode(w, in); }

// ---------------------------------------------------------------- selectors, config

template <StructOf<CELDeviceSelector> S, class V>
void VisitFields(S& s, V& v) {
  v("expression", s.expression, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CELDeviceSelector)

template <StructOf<DeviceSelector> S, class V>
void VisitFields(S& s, V& v) {
  v("cel", s.cel);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceSelector)

template <StructOf<OpaqueDeviceConfiguration> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver, kKeepEmpty);
  v("parameters", s.parameters);
}
KSCHED_API_DEFINE_FIELDS_CODEC(OpaqueDeviceConfiguration)

template <StructOf<DeviceClassConfiguration> S, class V>
void VisitFields(S& s, V& v) {
  v("opaque", s.opaque);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceClassConfiguration)

template <StructOf<DeviceClaimConfiguration> S, class V>
void VisitFields(S& s, V& v) {
  v("requests", s.requests);
  v("opaque", s.opaque);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceClaimConfiguration)

template <StructOf<DeviceAllocationConfiguration> S, class V>
void VisitFields(S& s, V& v) {
  v("source", s.source, kKeepEmpty);
  v("requests", s.requests);
  v("opaque", s.opaque);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceAllocationConfiguration)

// ---------------------------------------------------------------- DeviceClass

template <StructOf<DeviceClassSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("selectors", s.selectors);
  v("config", s.config);
  v("extendedResourceName", s.extended_resource_name);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceClassSpec)

template <StructOf<DeviceClass> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceClass)

// ---------------------------------------------------------------- taints

template <StructOf<DeviceTaint> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key, kKeepEmpty);
  v("value", s.value);
  v("effect", s.effect, kKeepEmpty);
  v("timeAdded", s.time_added);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceTaint)

template <StructOf<DeviceToleration> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key);
  v("operator", s.operator_);
  v("value", s.value);
  v("effect", s.effect);
  v("tolerationSeconds", s.toleration_seconds);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceToleration)

// ---------------------------------------------------------------- ResourceClaim

template <StructOf<CapacityRequirements> S, class V>
void VisitFields(S& s, V& v) {
  v("requests", s.requests);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CapacityRequirements)

template <StructOf<ExactDeviceRequest> S, class V>
void VisitFields(S& s, V& v) {
  v("deviceClassName", s.device_class_name, kKeepEmpty);
  v("selectors", s.selectors);
  v("allocationMode", s.allocation_mode);
  v("count", s.count);
  v("adminAccess", s.admin_access);
  v("tolerations", s.tolerations);
  v("capacity", s.capacity);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ExactDeviceRequest)

template <StructOf<DeviceSubRequest> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("deviceClassName", s.device_class_name, kKeepEmpty);
  v("selectors", s.selectors);
  v("allocationMode", s.allocation_mode);
  v("count", s.count);
  v("tolerations", s.tolerations);
  v("capacity", s.capacity);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceSubRequest)

template <StructOf<DeviceRequest> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("exactly", s.exactly);
  v("firstAvailable", s.first_available);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceRequest)

template <StructOf<DeviceConstraint> S, class V>
void VisitFields(S& s, V& v) {
  v("requests", s.requests);
  v("matchAttribute", s.match_attribute);
  v("distinctAttribute", s.distinct_attribute);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceConstraint)

template <StructOf<DeviceClaim> S, class V>
void VisitFields(S& s, V& v) {
  v("requests", s.requests, kKeepEmpty);
  v("constraints", s.constraints);
  v("config", s.config);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceClaim)

template <StructOf<ResourceClaimSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("devices", s.devices);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceClaimSpec)

template <StructOf<DeviceRequestAllocationResult> S, class V>
void VisitFields(S& s, V& v) {
  v("request", s.request, kKeepEmpty);
  v("driver", s.driver, kKeepEmpty);
  v("pool", s.pool, kKeepEmpty);
  v("device", s.device, kKeepEmpty);
  v("adminAccess", s.admin_access);
  v("tolerations", s.tolerations);
  v("shareID", s.share_id);
  v("consumedCapacity", s.consumed_capacity);
  v("bindingConditions", s.binding_conditions);
  v("bindingFailureConditions", s.binding_failure_conditions);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceRequestAllocationResult)

template <StructOf<DeviceAllocationResult> S, class V>
void VisitFields(S& s, V& v) {
  v("results", s.results);
  v("config", s.config);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceAllocationResult)

template <StructOf<AllocationResult> S, class V>
void VisitFields(S& s, V& v) {
  v("devices", s.devices);
  v("nodeSelector", s.node_selector);
  v("allocationTimestamp", s.allocation_timestamp);
}
KSCHED_API_DEFINE_FIELDS_CODEC(AllocationResult)

template <StructOf<ResourceClaimConsumerReference> S, class V>
void VisitFields(S& s, V& v) {
  v("apiGroup", s.api_group);
  v("resource", s.resource, kKeepEmpty);
  v("name", s.name, kKeepEmpty);
  v("uid", s.uid, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceClaimConsumerReference)

template <StructOf<AllocatedDeviceStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver, kKeepEmpty);
  v("pool", s.pool, kKeepEmpty);
  v("device", s.device, kKeepEmpty);
  v("shareID", s.share_id);
  v("conditions", s.conditions);
}
KSCHED_API_DEFINE_FIELDS_CODEC(AllocatedDeviceStatus)

template <StructOf<ResourceClaimStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("allocation", s.allocation);
  v("reservedFor", s.reserved_for);
  v("devices", s.devices);
}

// status.devices is kept verbatim and decoded for its conditions too.
util::Status Decode(const Decoder& d, ResourceClaimStatus* out) {
  KSCHED_API_RETURN_IF_ERROR(DecodeFields(d, out));
  if (d.IsAbsent()) return util::Status::Ok();
  return Decode(d.Field("devices"), &out->device_statuses);
}

void Encode(const ResourceClaimStatus& in, nlohmann::json* out) {
  EncodeFields(in, out);
  if (in.devices.empty() && !in.device_statuses.empty()) Encode(in.device_statuses, &(*out)["devices"]);
}

void Write(JsonWriter& w, const ResourceClaimStatus& in) {
  w.BeginObject();
  WriteFieldsOf(w, in);
  if (in.devices.empty() && !in.device_statuses.empty()) {
    w.Key("devices");
    Write(w, in.device_statuses);
  }
  w.EndObject();
}

bool ReadFast(JsonReader& r, ResourceClaimStatus* out) {
  if (!ReadFields(r, out)) return false;
  if (out->devices.empty()) return true;
  // Rare (drivers write it) and short: decoded from the kept text.
  const nlohmann::json j = nlohmann::json::parse(out->devices.text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return false;
  try {
    return Decode(Decoder(j), &out->device_statuses).ok();
  } catch (const std::exception&) {
    return false;
  }
}

template <StructOf<ResourceClaim> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceClaim)

template <StructOf<ResourceClaimTemplateSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceClaimTemplateSpec)

template <StructOf<ResourceClaimTemplate> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceClaimTemplate)

// ---------------------------------------------------------------- ResourceSlice

template <StructOf<ResourcePool> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("generation", s.generation, kKeepEmpty);
  v("resourceSliceCount", s.resource_slice_count, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourcePool)

template <StructOf<DeviceAttributeValue> S, class V>
void VisitFields(S& s, V& v) {
  v("int", s.int_value);
  v("bool", s.bool_value);
  v("string", s.string_value);
  v("version", s.version_value);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceAttributeValue)

template <StructOf<CapacityRequestPolicyRange> S, class V>
void VisitFields(S& s, V& v) {
  v("min", s.min);
  v("max", s.max);
  v("step", s.step);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CapacityRequestPolicyRange)

template <StructOf<CapacityRequestPolicy> S, class V>
void VisitFields(S& s, V& v) {
  v("default", s.default_value);
  v("validValues", s.valid_values);
  v("validRange", s.valid_range);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CapacityRequestPolicy)

// The value keeps its written text (a JSON number's text for a number); it
// must parse as a quantity, as kube-apiserver's decoding demands.
util::Status Decode(const Decoder& d, DeviceCapacity* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireObject());
  if (d.IsAbsent()) return util::Status::Ok();
  KSCHED_API_RETURN_IF_ERROR(Decode(d.Field("requestPolicy"), &out->request_policy));
  const Decoder value = d.Field("value");
  if (value.IsAbsent()) return util::Status::Ok();
  Quantity parsed;
  KSCHED_API_RETURN_IF_ERROR(Decode(value, &parsed));
  out->value = value.json().is_string() ? value.json().get<std::string>() : parsed.ToString();
  return util::Status::Ok();
}

void Encode(const DeviceCapacity& in, nlohmann::json* out) {
  *out = nlohmann::json::object({{"value", in.value.empty() ? std::string("0") : in.value}});
  if (in.request_policy) Encode(*in.request_policy, &(*out)["requestPolicy"]);
}

bool ReadFast(JsonReader& r, DeviceCapacity* out) { return ReadFastViaDecode(r, out); }
void Write(JsonWriter& w, const DeviceCapacity& in) { WriteViaEncode(w, in); }

template <StructOf<Counter> S, class V>
void VisitFields(S& s, V& v) {
  v("value", s.value, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Counter)

template <StructOf<CounterSet> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("counters", s.counters, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(CounterSet)

template <StructOf<DeviceCounterConsumption> S, class V>
void VisitFields(S& s, V& v) {
  v("counterSet", s.counter_set, kKeepEmpty);
  v("counters", s.counters, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceCounterConsumption)

template <StructOf<Device> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("attributes", s.attributes);
  v("capacity", s.capacity);
  v("consumesCounters", s.consumes_counters);
  v("nodeName", s.node_name);
  v("nodeSelector", s.node_selector);
  v("allNodes", s.all_nodes);
  v("taints", s.taints);
  v("allowMultipleAllocations", s.allow_multiple_allocations);
  v("bindsToNode", s.binds_to_node);
  v("bindingConditions", s.binding_conditions);
  v("bindingFailureConditions", s.binding_failure_conditions);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Device)

template <StructOf<ResourceSliceSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver, kKeepEmpty);
  v("pool", s.pool);
  v("nodeName", s.node_name);
  v("nodeSelector", s.node_selector);
  v("allNodes", s.all_nodes);
  v("perDeviceNodeSelection", s.per_device_node_selection);
  v("devices", s.devices, kKeepEmpty);
  v("sharedCounters", s.shared_counters);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceSliceSpec)

template <StructOf<ResourceSlice> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceSlice)

// ---------------------------------------------------------------- DeviceTaintRule

template <StructOf<DeviceTaintSelector> S, class V>
void VisitFields(S& s, V& v) {
  v("driver", s.driver);
  v("pool", s.pool);
  v("device", s.device);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceTaintSelector)

template <StructOf<DeviceTaintRuleSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("deviceSelector", s.device_selector);
  v("taint", s.taint);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceTaintRuleSpec)

template <StructOf<DeviceTaintRule> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(DeviceTaintRule)

}  // namespace ksched::api
