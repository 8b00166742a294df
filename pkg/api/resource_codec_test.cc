// The resource.k8s.io/v1 codec, on objects shaped as the Kubernetes API
// reference and the DRA example driver publish them.
#include "pkg/api/resource_codec.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched::api {
namespace {

using nlohmann::json;

json J(std::string_view text) {
  auto parsed = ParseJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : json();
}

// Decodes through the tree and through the text fast path: both must give
// the same object, and encoding it (as a tree or as text) must give back
// the same JSON.
template <class T>
T DecodeBothWays(std::string_view text) {
  auto slow = FromJson<T>(J(text));
  EXPECT_TRUE(slow.ok()) << slow.status().ToString();
  auto fast = FromJsonText<T>(text);
  EXPECT_TRUE(fast.ok()) << fast.status().ToString();
  if (!slow.ok() || !fast.ok()) return T{};
  EXPECT_EQ(ToJson(*slow), ToJson(*fast));
  EXPECT_EQ(J(ToJsonText(*slow)), ToJson(*slow));
  auto again = FromJson<T>(ToJson(*slow));
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(ToJson(*again), ToJson(*slow));
  }
  return *slow;
}

constexpr const char* kDeviceClass = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
  "metadata": {"name": "gpu.example.com", "resourceVersion": "12"},
  "spec": {
    "selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
    "config": [{"opaque": {"driver": "gpu.example.com",
                           "parameters": {"apiVersion": "gpu.resource.example.com/v1alpha1",
                                          "kind": "GpuConfig", "sharing": {"strategy": "TimeSlicing"}}}}]
  }
})";

TEST(ResourceCodecTest, DeviceClass) {
  DeviceClass c = DecodeBothWays<DeviceClass>(kDeviceClass);
  EXPECT_EQ(c.metadata.name, "gpu.example.com");
  ASSERT_EQ(c.spec.selectors.size(), 1u);
  ASSERT_TRUE(c.spec.selectors[0].cel.has_value());
  EXPECT_EQ(c.spec.selectors[0].cel->expression, "device.driver == 'gpu.example.com'");
  ASSERT_EQ(c.spec.config.size(), 1u);
  ASSERT_TRUE(c.spec.config[0].opaque.has_value());
  EXPECT_EQ(c.spec.config[0].opaque->driver, "gpu.example.com");
  // Opaque parameters come back as they were.
  EXPECT_EQ(J(c.spec.config[0].opaque->parameters.text),
            J(kDeviceClass)["spec"]["config"][0]["opaque"]["parameters"]);
  json encoded = ToJson(c);
  EXPECT_EQ(encoded["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(encoded["kind"], "DeviceClass");
  EXPECT_EQ(encoded["spec"], J(kDeviceClass)["spec"]);
}

constexpr const char* kClaim = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
  "metadata": {"name": "pod-1-gpu-x7k2q", "namespace": "team-a", "uid": "c-1",
               "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
               "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "pod-1", "uid": "p-1",
                                    "controller": true, "blockOwnerDeletion": true}]},
  "spec": {"devices": {
    "requests": [
      {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2,
        "selectors": [{"cel": {"expression": "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"}}],
        "tolerations": [{"key": "example.com/broken", "operator": "Exists"}]}},
      {"name": "nic", "firstAvailable": [
        {"name": "fast", "deviceClassName": "nic.example.com", "allocationMode": "ExactCount", "count": 1,
         "selectors": [{"cel": {"expression": "device.attributes['nic.example.com'].speed >= 100"}}]},
        {"name": "any", "deviceClassName": "nic.example.com", "allocationMode": "All"}]},
      {"name": "monitor", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "All", "adminAccess": true}}
    ],
    "constraints": [{"requests": ["gpu", "nic"], "matchAttribute": "dra.example.com/pcieRoot"}],
    "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"mode": "mps"}}}]
  }},
  "status": {
    "allocation": {
      "devices": {
        "results": [
          {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
          {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-1"},
          {"request": "nic/fast", "driver": "nic.example.com", "pool": "node-1", "device": "eth1"},
          {"request": "monitor", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "adminAccess": true}
        ],
        "config": [{"source": "FromClass", "requests": ["gpu"],
                    "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}]
      },
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}
    },
    "reservedFor": [{"resource": "pods", "name": "pod-1", "uid": "p-1"}],
    "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                 "conditions": [{"type": "Ready", "status": "True", "reason": "r", "message": "",
                                 "lastTransitionTime": "2025-01-01T00:00:00Z"}]}]
  }
})";

TEST(ResourceCodecTest, ResourceClaimSpecAndStatus) {
  ResourceClaim c = DecodeBothWays<ResourceClaim>(kClaim);
  EXPECT_EQ(c.metadata.annotations.at("resource.kubernetes.io/pod-claim-name"), "gpu");
  const auto& requests = c.spec.devices.requests;
  ASSERT_EQ(requests.size(), 3u);
  ASSERT_TRUE(requests[0].exactly.has_value());
  EXPECT_EQ(requests[0].exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(requests[0].exactly->allocation_mode, kDeviceAllocationModeExactCount);
  EXPECT_EQ(requests[0].exactly->count, 2);
  ASSERT_EQ(requests[0].exactly->selectors.size(), 1u);
  EXPECT_FALSE(requests[0].exactly->admin_access.has_value());
  EXPECT_FALSE(requests[1].exactly.has_value());
  ASSERT_EQ(requests[1].first_available.size(), 2u);
  EXPECT_EQ(requests[1].first_available[0].name, "fast");
  EXPECT_EQ(requests[1].first_available[1].allocation_mode, kDeviceAllocationModeAll);
  EXPECT_EQ(requests[2].exactly->admin_access, std::optional<bool>(true));
  ASSERT_EQ(c.spec.devices.constraints.size(), 1u);
  EXPECT_EQ(c.spec.devices.constraints[0].match_attribute,
            std::optional<std::string>("dra.example.com/pcieRoot"));
  EXPECT_EQ(c.spec.devices.config[0].requests, std::vector<std::string>{"gpu"});

  ASSERT_TRUE(c.status.allocation.has_value());
  const auto& results = c.status.allocation->devices.results;
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[2].request, "nic/fast");
  EXPECT_EQ(results[3].admin_access, std::optional<bool>(true));
  EXPECT_EQ(c.status.allocation->devices.config[0].source, "FromClass");
  ASSERT_TRUE(c.status.allocation->node_selector.has_value());
  EXPECT_EQ(c.status.allocation->node_selector->node_selector_terms[0].match_fields[0].values[0],
            "node-1");
  ASSERT_EQ(c.status.reserved_for.size(), 1u);
  EXPECT_EQ(c.status.reserved_for[0].resource, "pods");
  EXPECT_EQ(c.status.reserved_for[0].uid, "p-1");

  // What ksched writes back keeps the drivers' device status and the whole
  // status as read, and the requests' tolerations.
  json encoded = ToJson(c);
  EXPECT_EQ(encoded["status"], J(kClaim)["status"]);
  EXPECT_EQ(encoded["spec"]["devices"]["requests"][0]["exactly"]["tolerations"][0]["key"], "example.com/broken");
}

TEST(ResourceCodecTest, ResourceClaimTemplate) {
  constexpr const char* kTemplate = R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "single-gpu", "namespace": "team-a"},
    "spec": {"metadata": {"labels": {"app": "trainer"}},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
  })";
  ResourceClaimTemplate t = DecodeBothWays<ResourceClaimTemplate>(kTemplate);
  EXPECT_EQ(t.spec.metadata.labels.at("app"), "trainer");
  ASSERT_EQ(t.spec.spec.devices.requests.size(), 1u);
  EXPECT_EQ(t.spec.spec.devices.requests[0].exactly->device_class_name, "gpu.example.com");
  EXPECT_EQ(t.spec.spec.devices.requests[0].exactly->count, 0);  // defaulting is the server's
  EXPECT_EQ(ToJson(t)["spec"], J(kTemplate)["spec"]);
}

constexpr const char* kSlice = R"({
  "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
  "metadata": {"name": "node-1-gpu.example.com-abcde", "ownerReferences": [
    {"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "n-1", "controller": true}]},
  "spec": {
    "driver": "gpu.example.com",
    "nodeName": "node-1",
    "pool": {"generation": 3, "name": "node-1", "resourceSliceCount": 1},
    "devices": [
      {"name": "gpu-0",
       "attributes": {"driverVersion": {"version": "1.0.0"}, "index": {"int": 0},
                      "model": {"string": "LATEST-GPU-MODEL"}, "mig": {"bool": false},
                      "uuid": {"string": "gpu-18db0e85"}},
       "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": 1.5}},
       "taints": [{"key": "example.com/broken", "effect": "NoSchedule"}],
       "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]}
    ]
  }
})";

TEST(ResourceCodecTest, ResourceSlice) {
  ResourceSlice s = DecodeBothWays<ResourceSlice>(kSlice);
  EXPECT_EQ(s.spec.driver, "gpu.example.com");
  EXPECT_EQ(s.spec.node_name, std::optional<std::string>("node-1"));
  EXPECT_FALSE(s.spec.all_nodes.has_value());
  EXPECT_FALSE(s.spec.node_selector.has_value());
  EXPECT_EQ(s.spec.pool.name, "node-1");
  EXPECT_EQ(s.spec.pool.generation, 3);
  EXPECT_EQ(s.spec.pool.resource_slice_count, 1);
  ASSERT_EQ(s.spec.devices.size(), 1u);
  const Device& d = s.spec.devices[0];
  EXPECT_EQ(d.attributes.at("driverVersion").version_value, std::optional<std::string>("1.0.0"));
  EXPECT_EQ(d.attributes.at("index").int_value, std::optional<int64_t>(0));
  EXPECT_EQ(d.attributes.at("model").string_value, std::optional<std::string>("LATEST-GPU-MODEL"));
  EXPECT_EQ(d.attributes.at("mig").bool_value, std::optional<bool>(false));
  EXPECT_FALSE(d.attributes.at("mig").int_value.has_value());
  // Capacities keep their written form; a number becomes its quantity text.
  EXPECT_EQ(d.capacity.at("memory").value, "80Gi");
  EXPECT_EQ(d.capacity.at("cores").value, "1500m");
  json encoded = ToJson(s);
  EXPECT_EQ(encoded["spec"]["devices"][0]["capacity"]["memory"]["value"], "80Gi");
  EXPECT_EQ(encoded["spec"]["pool"], J(kSlice)["spec"]["pool"]);
  EXPECT_EQ(encoded["spec"]["devices"][0]["taints"][0]["effect"], "NoSchedule");
  ASSERT_EQ(d.consumes_counters.size(), 1u);
  EXPECT_EQ(d.consumes_counters[0].counter_set, "gpu-0");
  EXPECT_EQ(d.consumes_counters[0].counters.at("memory").value, Quantity::MustParse("40Gi"));
  EXPECT_EQ(encoded["spec"]["devices"][0]["consumesCounters"], J(kSlice)["spec"]["devices"][0]["consumesCounters"]);
}

TEST(ResourceCodecTest, PartitionableDeviceFields) {
  ResourceSlice counters = DecodeBothWays<ResourceSlice>(R"({"spec": {"driver": "d", "nodeName": "n",
      "pool": {"name": "p", "resourceSliceCount": 2},
      "sharedCounters": [{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}, "units": {"value": 8}}}]}})");
  ASSERT_EQ(counters.spec.shared_counters.size(), 1u);
  EXPECT_EQ(counters.spec.shared_counters[0].name, "gpu-0");
  EXPECT_EQ(counters.spec.shared_counters[0].counters.at("units").value, Quantity::MustParse("8"));
  EXPECT_EQ(ToJson(counters)["spec"]["sharedCounters"][0]["counters"]["memory"]["value"], "80Gi");

  ResourceSlice devices = DecodeBothWays<ResourceSlice>(R"({"spec": {"driver": "d", "perDeviceNodeSelection": true,
      "pool": {"name": "p", "resourceSliceCount": 2},
      "devices": [{"name": "a", "nodeName": "n"}, {"name": "b", "allNodes": true},
                  {"name": "c", "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions":
                      [{"key": "zone", "operator": "In", "values": ["z1"]}]}]}}]}})");
  EXPECT_EQ(devices.spec.per_device_node_selection, std::optional<bool>(true));
  ASSERT_EQ(devices.spec.devices.size(), 3u);
  EXPECT_EQ(devices.spec.devices[0].node_name, std::optional<std::string>("n"));
  EXPECT_EQ(devices.spec.devices[1].all_nodes, std::optional<bool>(true));
  ASSERT_TRUE(devices.spec.devices[2].node_selector.has_value());
  EXPECT_EQ(devices.spec.devices[2].node_selector->node_selector_terms.at(0).match_expressions.at(0).key, "zone");
  json encoded = ToJson(devices);
  EXPECT_EQ(encoded["spec"]["perDeviceNodeSelection"], true);
  EXPECT_EQ(encoded["spec"]["devices"][1]["allNodes"], true);
  EXPECT_FALSE(encoded["spec"].contains("sharedCounters"));
  // A counter must be a quantity, and the error names it.
  auto bad = FromJson<ResourceSlice>(J(R"({"spec": {"sharedCounters": [{"name": "g", "counters": {"m": {"value": "lots"}}}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("spec.sharedCounters[0].counters.m.value: ", 0), 0u) << bad.status().message();
}

TEST(ResourceCodecTest, SliceForAllNodesKeepsEmptyRequiredFields) {
  ResourceSlice s = DecodeBothWays<ResourceSlice>(
      R"({"spec": {"driver": "net.example.com", "allNodes": true, "pool": {"name": "p"}}})");
  EXPECT_EQ(s.spec.all_nodes, std::optional<bool>(true));
  json encoded = ToJson(s);
  // Required fields without omitempty are written even when zero.
  EXPECT_EQ(encoded["spec"]["pool"]["generation"], 0);
  EXPECT_EQ(encoded["spec"]["pool"]["resourceSliceCount"], 0);
  EXPECT_TRUE(encoded["spec"]["devices"].is_array());
}

TEST(ResourceCodecTest, BadCapacityNamesItsField) {
  const std::string text =
      R"({"spec": {"driver": "d", "pool": {"name": "p"}, "devices": [{"name": "x", "capacity": {"memory": {"value": "lots"}}}]}})";
  auto slow = FromJson<ResourceSlice>(J(text));
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().message().rfind("spec.devices[0].capacity.memory.value: ", 0), 0u)
      << slow.status().message();
  auto fast = FromJsonText<ResourceSlice>(text);
  ASSERT_FALSE(fast.ok());
  EXPECT_EQ(fast.status().message(), slow.status().message());
}

TEST(ResourceCodecTest, BindingConditionFields) {
  ResourceSlice slice = DecodeBothWays<ResourceSlice>(R"({"spec": {"driver": "d", "pool": {"name": "p"}, "allNodes": true,
      "devices": [{"name": "a", "bindsToNode": true, "bindingConditions": ["Attached"],
                   "bindingFailureConditions": ["AttachFailed"]}]}})");
  const Device& d = slice.spec.devices.at(0);
  EXPECT_EQ(d.binds_to_node, std::optional<bool>(true));
  EXPECT_EQ(d.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(d.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});

  ResourceClaim claim = DecodeBothWays<ResourceClaim>(R"({"status": {
      "allocation": {"allocationTimestamp": "2026-01-02T03:04:05Z",
        "devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "a",
          "bindingConditions": ["Attached"], "bindingFailureConditions": ["AttachFailed"]}]}},
      "devices": [{"driver": "d", "pool": "p", "device": "a", "data": {"k": 1},
        "conditions": [{"type": "Attached", "status": "True", "reason": "Done", "message": "ok",
                        "lastTransitionTime": "2026-01-02T03:04:06Z"}]}]}})");
  const DeviceRequestAllocationResult& r = claim.status.allocation->devices.results.at(0);
  EXPECT_EQ(r.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(r.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});
  EXPECT_TRUE(claim.status.allocation->allocation_timestamp.has_value());
  ASSERT_EQ(claim.status.device_statuses.size(), 1u);
  const AllocatedDeviceStatus& st = claim.status.device_statuses[0];
  EXPECT_EQ(st.device, "a");
  ASSERT_EQ(st.conditions.size(), 1u);
  EXPECT_EQ(st.conditions[0].type, "Attached");
  EXPECT_EQ(st.conditions[0].status, "True");
  EXPECT_EQ(st.conditions[0].reason, "Done");
  // The driver's data is written back as it came.
  json encoded = ToJson(claim);
  EXPECT_EQ(encoded["status"]["devices"][0]["data"]["k"], 1);
  EXPECT_EQ(encoded["status"]["allocation"]["devices"]["results"][0]["bindingConditions"][0], "Attached");
}

TEST(ResourceCodecTest, BadDeviceStatusNamesItsField) {
  const std::string text =
      R"({"status": {"devices": [{"driver": "d", "pool": "p", "device": "a", "conditions": [{"type": 3}]}]}})";
  auto slow = FromJson<ResourceClaim>(J(text));
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().message().rfind("status.devices[0].conditions[0].type: ", 0), 0u)
      << slow.status().message();
  auto fast = FromJsonText<ResourceClaim>(text);
  ASSERT_FALSE(fast.ok());
  EXPECT_EQ(fast.status().message(), slow.status().message());
  auto bad_list = FromJson<ResourceSlice>(J(R"({"spec": {"devices": [{"name": "a", "bindingConditions": "x"}]}})"));
  ASSERT_FALSE(bad_list.ok());
  EXPECT_EQ(bad_list.status().message().rfind("spec.devices[0].bindingConditions: ", 0), 0u)
      << bad_list.status().message();
}

TEST(ResourceCodecTest, WrongTypesAreErrors) {
  auto claim = FromJson<ResourceClaim>(
      J(R"({"spec": {"devices": {"requests": [{"name": "a", "exactly": {"count": "2"}}]}}})"));
  ASSERT_FALSE(claim.ok());
  EXPECT_EQ(claim.status().message().rfind("spec.devices.requests[0].exactly.count: ", 0), 0u)
      << claim.status().message();
  auto slice = FromJson<ResourceSlice>(
      J(R"({"spec": {"devices": [{"name": "a", "attributes": {"n": {"int": "1"}}}]}})"));
  ASSERT_FALSE(slice.ok());
  EXPECT_EQ(slice.status().message().rfind("spec.devices[0].attributes.n.int: ", 0), 0u)
      << slice.status().message();
}

TEST(ResourceCodecTest, ListsCarryKind) {
  ResourceSliceList list;
  list.metadata.resource_version = "7";
  list.items.emplace_back();
  list.items[0].metadata.name = "s";
  json encoded = ToJson(list);
  EXPECT_EQ(encoded["kind"], "ResourceSliceList");
  EXPECT_EQ(encoded["apiVersion"], "resource.k8s.io/v1");
  auto decoded = FromJson<ResourceSliceList>(encoded);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->items.size(), 1u);
  EXPECT_EQ(decoded->items[0].metadata.name, "s");
}

TEST(ResourceCodecTest, PodResourceClaims) {
  constexpr const char* kPod = R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "pod-1", "namespace": "team-a"},
    "spec": {"containers": [{"name": "c", "image": "i"}],
             "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"},
                                {"name": "shared", "resourceClaimName": "shared-nic"}]},
    "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "pod-1-gpu-x7k2q"},
                                         {"name": "other"}]}
  })";
  Pod p = DecodeBothWays<Pod>(kPod);
  ASSERT_EQ(p.spec.resource_claims.size(), 2u);
  EXPECT_EQ(p.spec.resource_claims[0].name, "gpu");
  EXPECT_EQ(p.spec.resource_claims[0].resource_claim_template_name,
            std::optional<std::string>("single-gpu"));
  EXPECT_FALSE(p.spec.resource_claims[0].resource_claim_name.has_value());
  EXPECT_EQ(p.spec.resource_claims[1].resource_claim_name, std::optional<std::string>("shared-nic"));
  ASSERT_EQ(p.status.resource_claim_statuses.size(), 2u);
  EXPECT_EQ(p.status.resource_claim_statuses[0].resource_claim_name,
            std::optional<std::string>("pod-1-gpu-x7k2q"));
  EXPECT_FALSE(p.status.resource_claim_statuses[1].resource_claim_name.has_value());
  json encoded = ToJson(p);
  EXPECT_EQ(encoded["spec"]["resourceClaims"], J(kPod)["spec"]["resourceClaims"]);
  EXPECT_EQ(encoded["status"]["resourceClaimStatuses"], J(kPod)["status"]["resourceClaimStatuses"]);
}

TEST(ResourceCodecTest, ExtendedResourceNameAndPodExtendedResourceClaimStatus) {
  DeviceClass c = DecodeBothWays<DeviceClass>(
      R"({"metadata": {"name": "gpu"}, "spec": {"extendedResourceName": "example.com/gpu"}})");
  EXPECT_EQ(c.spec.extended_resource_name, std::optional<std::string>("example.com/gpu"));
  EXPECT_EQ(ToJson(c)["spec"]["extendedResourceName"], "example.com/gpu");
  DeviceClass plain = DecodeBothWays<DeviceClass>(R"({"metadata": {"name": "gpu"}, "spec": {}})");
  EXPECT_FALSE(plain.spec.extended_resource_name.has_value());
  EXPECT_FALSE(ToJson(plain)["spec"].contains("extendedResourceName"));

  constexpr const char* kPod = R"({
    "metadata": {"name": "pod-1", "namespace": "team-a"},
    "spec": {"containers": [{"name": "c", "image": "i"}]},
    "status": {"extendedResourceClaimStatus": {
      "requestMappings": [{"containerName": "c", "resourceName": "example.com/gpu",
                           "requestName": "container-0-request-0"}],
      "resourceClaimName": "pod-1-extended-resources-abcde"}}
  })";
  Pod p = DecodeBothWays<Pod>(kPod);
  ASSERT_TRUE(p.status.extended_resource_claim_status.has_value());
  const PodExtendedResourceClaimStatus& st = *p.status.extended_resource_claim_status;
  EXPECT_EQ(st.resource_claim_name, "pod-1-extended-resources-abcde");
  ASSERT_EQ(st.request_mappings.size(), 1u);
  EXPECT_EQ(st.request_mappings[0].container_name, "c");
  EXPECT_EQ(st.request_mappings[0].resource_name, "example.com/gpu");
  EXPECT_EQ(st.request_mappings[0].request_name, "container-0-request-0");
  EXPECT_EQ(ToJson(p)["status"]["extendedResourceClaimStatus"], J(kPod)["status"]["extendedResourceClaimStatus"]);
}

TEST(ResourceCodecTest, DeviceTaintsTolerationsAndRules) {
  auto slice = DecodeBothWays<ResourceSlice>(R"({"spec": {"driver": "d", "pool": {"name": "p"}, "devices": [
    {"name": "x", "taints": [{"key": "broken", "value": "fan", "effect": "NoSchedule",
                              "timeAdded": "2026-11-29T06:00:00Z"}]}]}})");
  ASSERT_EQ(slice.spec.devices.at(0).taints.size(), 1u);
  EXPECT_EQ(slice.spec.devices[0].taints[0].effect, "NoSchedule");
  EXPECT_TRUE(slice.spec.devices[0].taints[0].time_added.has_value());

  auto claim = DecodeBothWays<ResourceClaim>(R"({"spec": {"devices": {"requests": [
    {"name": "a", "exactly": {"deviceClassName": "c", "tolerations": [{"key": "broken", "operator": "Exists",
                                                                        "tolerationSeconds": 30}]}},
    {"name": "b", "firstAvailable": [{"name": "s", "deviceClassName": "c", "tolerations": [{"effect": "NoExecute"}]}]}]}},
    "status": {"allocation": {"devices": {"results": [{"request": "a", "driver": "d", "pool": "p", "device": "x",
                                                     "tolerations": [{"key": "broken", "operator": "Exists"}]}]}}}})");
  ASSERT_EQ(claim.spec.devices.requests.at(0).exactly->tolerations.size(), 1u);
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->tolerations[0].operator_, "Exists");
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->tolerations[0].toleration_seconds, 30);
  EXPECT_EQ(claim.spec.devices.requests.at(1).first_available.at(0).tolerations.at(0).effect, "NoExecute");
  EXPECT_EQ(claim.status.allocation->devices.results.at(0).tolerations.at(0).key, "broken");

  auto rule = DecodeBothWays<DeviceTaintRule>(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
    "metadata": {"name": "r"}, "spec": {"deviceSelector": {"driver": "d", "pool": "p"},
    "taint": {"key": "maintenance", "effect": "NoExecute"}}, "status": {"conditions": []}})");
  ASSERT_TRUE(rule.spec.device_selector.has_value());
  EXPECT_EQ(rule.spec.device_selector->pool, "p");
  EXPECT_FALSE(rule.spec.device_selector->device.has_value());
  EXPECT_EQ(rule.spec.taint.key, "maintenance");
  EXPECT_EQ(ToJson(rule)["kind"], "DeviceTaintRule");
}

}  // namespace
}  // namespace ksched::api

namespace ksched::api {
namespace {

TEST(ResourceCodecTest, ConsumableCapacityFields) {
  ResourceSlice slice = DecodeBothWays<ResourceSlice>(R"({"spec": {"driver": "d", "nodeName": "n",
      "pool": {"name": "p", "resourceSliceCount": 1},
      "devices": [{"name": "gpu", "allowMultipleAllocations": true, "capacity": {
        "memory": {"value": "40Gi", "requestPolicy": {"default": "1Gi",
                   "validRange": {"min": "1Gi", "max": "8Gi", "step": "1Gi"}}},
        "bandwidth": {"value": "10", "requestPolicy": {"validValues": ["1", "5", "10"]}}}}]}})");
  const Device& d = slice.spec.devices.at(0);
  EXPECT_EQ(d.allow_multiple_allocations, std::optional<bool>(true));
  const CapacityRequestPolicy& memory = *d.capacity.at("memory").request_policy;
  EXPECT_EQ(memory.default_value, Quantity::MustParse("1Gi"));
  EXPECT_EQ(memory.valid_range->max, Quantity::MustParse("8Gi"));
  EXPECT_EQ(memory.valid_range->step, Quantity::MustParse("1Gi"));
  EXPECT_EQ(d.capacity.at("bandwidth").request_policy->valid_values.size(), 3u);
  json encoded = ToJson(slice);
  EXPECT_EQ(encoded["spec"]["devices"][0]["capacity"]["memory"]["requestPolicy"]["validRange"]["min"], "1Gi");
  EXPECT_EQ(encoded["spec"]["devices"][0]["allowMultipleAllocations"], true);

  ResourceClaim claim = DecodeBothWays<ResourceClaim>(R"({"spec": {"devices": {
      "requests": [{"name": "r", "exactly": {"deviceClassName": "c", "capacity": {"requests": {"memory": "3Gi"}}}},
                   {"name": "f", "firstAvailable": [{"name": "s", "deviceClassName": "c",
                                                     "capacity": {"requests": {"memory": "1Gi"}}}]}],
      "constraints": [{"requests": ["r"], "distinctAttribute": "d/numa"}]}},
    "status": {"allocation": {"devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "gpu",
      "shareID": "4a6cdee8-8b1d-4d8c-a8b1-1f0f0f0f0f0f", "consumedCapacity": {"memory": "4Gi"}}]}}}})");
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->capacity->requests.at("memory"), Quantity::MustParse("3Gi"));
  EXPECT_EQ(claim.spec.devices.requests[1].first_available[0].capacity->requests.at("memory"),
            Quantity::MustParse("1Gi"));
  EXPECT_EQ(claim.spec.devices.constraints[0].distinct_attribute, std::optional<std::string>("d/numa"));
  const DeviceRequestAllocationResult& result = claim.status.allocation->devices.results.at(0);
  EXPECT_EQ(result.share_id, std::optional<std::string>("4a6cdee8-8b1d-4d8c-a8b1-1f0f0f0f0f0f"));
  EXPECT_EQ(result.consumed_capacity.at("memory"), Quantity::MustParse("4Gi"));
  // What PreBind writes: the shareID and consumed capacity as kube writes them.
  json written = ToJson(claim)["status"];
  EXPECT_EQ(written["allocation"]["devices"]["results"][0]["shareID"], "4a6cdee8-8b1d-4d8c-a8b1-1f0f0f0f0f0f");
  EXPECT_EQ(written["allocation"]["devices"]["results"][0]["consumedCapacity"]["memory"], "4Gi");
  // An exclusive result writes neither.
  claim.status.allocation->devices.results[0].share_id.reset();
  claim.status.allocation->devices.results[0].consumed_capacity.clear();
  json exclusive = ToJson(claim)["status"]["allocation"]["devices"]["results"][0];
  EXPECT_FALSE(exclusive.contains("shareID"));
  EXPECT_FALSE(exclusive.contains("consumedCapacity"));
}

TEST(ResourceCodecTest, BadCapacityPolicyAndRequestNameTheirFields) {
  auto policy = FromJson<ResourceSlice>(J(R"({"spec": {"devices": [{"name": "x", "capacity": {"m": {"value": "1",
      "requestPolicy": {"validRange": {"min": "lots"}}}}}]}})"));
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message().rfind("spec.devices[0].capacity.m.requestPolicy.validRange.min: ", 0), 0u)
      << policy.status().message();
  auto request = FromJson<ResourceClaim>(J(R"({"spec": {"devices": {"requests": [{"name": "r",
      "exactly": {"deviceClassName": "c", "capacity": {"requests": {"memory": "much"}}}}]}}})"));
  ASSERT_FALSE(request.ok());
  EXPECT_EQ(request.status().message().rfind("spec.devices.requests[0].exactly.capacity.requests.memory: ", 0), 0u)
      << request.status().message();
  auto consumed = FromJsonText<ResourceClaim>(R"({"status": {"allocation": {"devices": {"results": [
      {"request": "r", "driver": "d", "pool": "p", "device": "x", "consumedCapacity": {"memory": true}}]}}}})");
  ASSERT_FALSE(consumed.ok());
  EXPECT_NE(consumed.status().message().find("consumedCapacity.memory"), std::string::npos) << consumed.status().message();
}

}  // namespace
}  // namespace ksched::api
