#include "test/bench/dra_workloads.h"

#include <fmt/format.h>

namespace ksched::bench {

using nlohmann::json;

namespace {

constexpr char kDriver[] = "test-driver.cdi.k8s.io";
constexpr char kClassName[] = "test-class";
constexpr char kTemplateName[] = "test-claim-template";
constexpr char kInitNamespace[] = "init";
constexpr char kTestNamespace[] = "test";
constexpr int kDevicesPerSlice = 10;  // kube's numDevices
constexpr int kPciRoots = 2;          // kube's numPCIRoots

json Request() {
  return {{"name", "req-0"},
          {"exactly", {{"deviceClassName", kClassName}, {"allocationMode", "ExactCount"}, {"count", 1}}}};
}

json ClaimSpec() { return {{"devices", {{"requests", json::array({Request()})}}}}; }

json NodeTemplate() {
  json n = BaseNodeTemplate();
  n["metadata"]["generateName"] = "scheduler-perf-dra-";
  n["metadata"]["labels"] = {{"node-with-dra", "true"}};
  return n;
}

json DeviceClass() {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "DeviceClass"},
          {"metadata", {{"name", kClassName}}},
          {"spec", {{"selectors", json::array({{{"cel", {{"expression", fmt::format("device.driver == \"{}\"", kDriver)}}}}})}}}};
}

// kube's resourceslice-basic-devices for node {{.Index}}.
json SliceTemplate() {
  json devices = json::array();
  for (int d = 0; d < kDevicesPerSlice; ++d) {
    const std::string root = std::to_string(d % kPciRoots);
    const std::string address = fmt::format("0000:0{}:00.0", d);
    devices.push_back(
        {{"name", fmt::format("basic-device-{}", d)},
         {"attributes",
          {{"driver", {{"string", "xe"}}},
           {"driverVersion", {{"version", "1.2.3"}}},
           {"resource.k8s.io/pciRoot", {{"string", root}}},
           {"family", {{"string", "Arc Pro B-Series"}}},
           {"health", {{"string", "Healthy"}}},
           {"model", {{"string", "B60"}}},
           {"pciAddress", {{"string", address}}},
           {"pciId", {{"string", "0xe211"}}},
           {"pciRoot", {{"string", "0" + root}}},
           {"resource.kubernetes.io/pciBusID", {{"string", address}}},
           {"resource.kubernetes.io/pciRoot", {{"string", "pci0000:0" + root}}},
           {"sriov", {{"bool", true}}},
           {"type", {{"string", "gpu"}}}}},
         {"capacity", {{"memory", {{"value", "24480Mi"}}}, {"millicores", {{"value", "1k"}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", "resourceslice-{{.Index}}"}}},
          {"spec",
           {{"driver", kDriver},
            {"nodeName", "scheduler-perf-dra-{{.Index}}"},
            {"pool", {{"name", "resourceslice-{{.Index}}"}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", devices}}}};
}

json InitClaimTemplate() {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata", {{"name", "init-{{.Index}}"}}},
          {"spec", ClaimSpec()}};
}

json ClaimTemplate() {
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaimTemplate"},
          {"metadata", {{"name", kTemplateName}}},
          {"spec", {{"spec", ClaimSpec()}}}};
}

// kube's pod-with-claim-template: the base pod, its container using claim
// "resource" from the template.
json PodTemplate() {
  json p = BasePodTemplate();
  p["metadata"]["generateName"] = "test-dra-";
  p["spec"]["containers"][0]["resources"]["claims"] = json::array({{{"name", "resource"}}});
  p["spec"]["resourceClaims"] = json::array({{{"name", "resource"}, {"resourceClaimTemplateName", kTemplateName}}});
  return p;
}

Op MakeOp(Opcode code, int64_t count, json tmpl, std::string ns = "") {
  Op op;
  op.opcode = code;
  op.count = count;
  op.object_template = std::move(tmpl);
  op.namespace_ = std::move(ns);
  return op;
}

}  // namespace

Workload DraWorkload(const std::string& name, int64_t nodes, int64_t init_claims, int64_t pods) {
  Workload w;
  w.test_case = kDraTestCase;
  w.name = name;
  w.ops.push_back(MakeOp(Opcode::kCreateNodes, nodes, NodeTemplate()));
  w.ops.push_back(MakeOp(Opcode::kCreateAny, 1, DeviceClass()));
  w.ops.push_back(MakeOp(Opcode::kCreateAny, nodes, SliceTemplate()));
  w.ops.push_back(MakeOp(Opcode::kCreateAny, init_claims, InitClaimTemplate(), kInitNamespace));
  w.ops.push_back(MakeOp(Opcode::kAllocResourceClaims, 0, json(), kInitNamespace));
  w.ops.push_back(MakeOp(Opcode::kCreateAny, 1, ClaimTemplate(), kTestNamespace));
  Op measured = MakeOp(Opcode::kCreatePods, pods, PodTemplate(), kTestNamespace);
  measured.collect_metrics = true;
  measured.claims_from_templates = true;
  w.ops.push_back(std::move(measured));
  for (size_t i = 0; i < w.ops.size(); ++i) w.ops[i].index = static_cast<int>(i);
  return w;
}

std::vector<Workload> DraWorkloads() {
  return {DraWorkload("fast", 1, 0, 10), DraWorkload("2000pods_200nodes", 200, 1000, 1000),
          DraWorkload("5000pods_500nodes", 500, 2500, 2500)};
}

}  // namespace ksched::bench
