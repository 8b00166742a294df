// `ksched simulate` with Dynamic Resource Allocation: the snapshot's
// DeviceClasses, ResourceSlices and ResourceClaims reach the
// DynamicResources plugin, PreBind's claim writes are applied before the
// next cycle, --explain shows the plugin's rejections, and a preemption
// victim's claims are released as the resource-claim controller would.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "pkg/simulate/cluster_loader.h"
#include "pkg/simulate/html_report.h"
#include "pkg/simulate/report.h"
#include "pkg/simulate/simulation.h"
#include "pkg/simulate/simulation_test_util.h"

namespace ksched::simulate {
namespace {

using namespace testutil;  // NOLINT: the shared simulate test helpers

constexpr char kGpuClass[] = R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
)";

// The node's pool of `count` GPUs "gpu-0", "gpu-1", ...
std::string GpuSlice(const std::string& node, int count) {
  std::string s = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node +
                  "-gpu}\nspec:\n  driver: gpu.example.com\n  pool: {name: " + node +
                  ", generation: 1, resourceSliceCount: 1}\n  nodeName: " + node + "\n  devices:\n";
  for (int i = 0; i < count; ++i) s += "  - name: gpu-" + std::to_string(i) + "\n";
  return s;
}

// A claim for one GPU; `allocated_to` non-empty: allocated gpu-0 of that
// node and reserved for the pod `reserved_for` (uid uid-<pod>), as the
// scheduler leaves a claim it allocated.
std::string Claim(const std::string& name, const std::string& allocated_to = "",
                  const std::string& reserved_for = "") {
  std::string s = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: " + name +
                  "\n  namespace: default\n  uid: claim-" + name + "\n  resourceVersion: \"7\"\n";
  if (!allocated_to.empty()) s += "  finalizers: [resource.kubernetes.io/delete-protection]\n";
  s += "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu}\n";
  if (!allocated_to.empty()) {
    s += "status:\n  allocation:\n    devices:\n      results:\n      - {request: gpu, driver: gpu.example.com, "
         "pool: " +
         allocated_to + ", device: gpu-0}\n    nodeSelector:\n      nodeSelectorTerms:\n      - matchFields: "
                        "[{key: metadata.name, operator: In, values: [" +
         allocated_to + "]}]\n  reservedFor:\n  - {resource: pods, name: " + reserved_for + ", uid: uid-" +
         reserved_for + "}\n";
  }
  return s;
}

// `pod` (a Pod document) using the named claims, each as an entry of its
// own name.
std::string WithClaims(std::string pod, const std::vector<std::string>& claims) {
  pod += "  resourceClaims:\n";
  for (const std::string& c : claims) pod += "  - {name: " + c + ", resourceClaimName: " + c + "}\n";
  return pod;
}

// n1 has the only GPU. The older pod's claim gets it; the younger pod's
// claim then finds it taken (the first claim's allocation was applied
// before the second cycle) and --explain shows DynamicResources rejecting
// both nodes.
TEST(SimulationDraTest, AnAllocatedDeviceIsTakenForTheNextPod) {
  ClusterObjects c = Load(Node("n1", "4") + Node("n2", "4") + kGpuClass + GpuSlice("n1", 1) + Claim("first") +
                          Claim("second") + WithClaims(Pod("first", "1", 1), {"first"}) +
                          WithClaims(Pod("second", "1", 2), {"second"}));
  ASSERT_EQ(c.resource_claims.size(), 2u);
  ASSERT_EQ(c.resource_slices.size(), 1u);
  SimulationResult r = RunSim(c, Options(TieBreak::kLowestName, /*explain=*/true));
  const PodOutcome* first = Find(r, "first");
  const PodOutcome* second = Find(r, "second");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first->node, "n1");
  EXPECT_EQ(second->node, "");
  ASSERT_TRUE(second->fit_error.has_value());
  EXPECT_EQ(second->fit_error->rfind("0/2 nodes are available: 2 cannot allocate all claims.", 0), 0u)
      << *second->fit_error;
  nlohmann::ordered_json j = ReportJson(r)["pods"][1];
  ASSERT_EQ(j["name"], "second");
  const std::string rejected =
      R"({"plugin":"DynamicResources","code":"UnschedulableAndUnresolvable","reason":"cannot allocate all claims",)"
      R"("reasons":["cannot allocate all claims"]})";
  EXPECT_EQ(j["filter"].dump(), "{\"n1\":" + rejected + ",\"n2\":" + rejected + "}");
  // The first pod's explanation: only n1 reaches a GPU, and its claim got it.
  nlohmann::ordered_json f = ReportJson(r)["pods"][0]["filter"];
  EXPECT_EQ(f["n1"], "feasible");
  EXPECT_EQ(f["n2"]["plugin"], "DynamicResources");
  EXPECT_EQ(ReportJson(r)["pods"][0]["claims"].dump(),
            R"([{"name":"first","forExtendedResources":false,"devices":[{"request":"gpu","device":"gpu.example.com/n1/gpu-0",)"
            R"("bindingConditions":[]}]}])");
  EXPECT_EQ(j["claims"].dump(), "[]");  // pending: nothing allocated
  EXPECT_NE(ReportTable(r).find("  claim first: gpu -> gpu.example.com/n1/gpu-0\n"), std::string::npos)
      << ReportTable(r);
  EXPECT_NE(ReportHtml(r).find("<p class=\"claim\">claim first: gpu -&gt; gpu.example.com/n1/gpu-0</p>"),
            std::string::npos);
  // Why the second pod's claim finds no GPU: n1's is taken, none reaches n2.
  EXPECT_EQ(j["devices"].dump(),
            R"({"n1":[{"claim":"default/second","request":"gpu","reachable":1,"usable":0,"skipped":{"allocated":1}}],)"
            R"("n2":[{"claim":"default/second","request":"gpu","reachable":0,"usable":0,"skipped":{}}]})");
  EXPECT_NE(ReportTable(r).find("  n1: claim default/second, request gpu: 1 device reaches the node, 0 usable "
                                "(allocated 1)\n  n2: claim default/second, request gpu: no device reaches the node\n"),
            std::string::npos)
      << ReportTable(r);
  EXPECT_NE(ReportHtml(r).find("<p class=\"devices\">n1: claim default/second, request gpu: 1 device reaches the "
                               "node, 0 usable (allocated 1)</p>"),
            std::string::npos);
  EXPECT_EQ(ReportJson(r)["pods"][0]["devices"].dump(), "{}");  // placed
}

// Extended resources backed by DRA (1.36+): the class names example.com/gpu,
// n1's slice has two GPUs and n1 advertises none. Two pods asking for one
// each are placed on n1, each with a claim the scheduler created; the
// third waits.
TEST(SimulationDraTest, ExtendedResourceIsServedFromTheSlices) {
  auto gpu_pod = [](const std::string& name, int created) {
    std::string p = Pod(name, "100m", created);
    const std::string requests = "requests: {cpu: \"100m\", memory: 1Gi}";
    p.replace(p.find(requests), requests.size(),
              "requests: {cpu: \"100m\", memory: 1Gi, example.com/gpu: \"1\"}\n"
              "      limits: {example.com/gpu: \"1\"}");
    return p;
  };
  std::string cls = kGpuClass;
  cls += "  extendedResourceName: example.com/gpu\n";
  ClusterObjects c = Load(Node("n1", "4") + cls + GpuSlice("n1", 2) + gpu_pod("first", 1) + gpu_pod("second", 2) +
                          gpu_pod("third", 3));
  SimulationOptions o = Options(TieBreak::kLowestName, /*explain=*/true);
  o.features = scheduler::framework::FeatureGates::ForMinor(37);
  SimulationResult r = RunSim(c, o);
  std::vector<std::string> devices;
  for (const char* name : {"first", "second"}) {
    const PodOutcome* p = Find(r, name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->node, "n1") << name;
    // --explain names the claim the extended resource became, and its device.
    ASSERT_TRUE(p->explain.has_value());
    ASSERT_EQ(p->explain->claims.size(), 1u) << name;
    const ClaimAllocation& claim = p->explain->claims[0];
    EXPECT_TRUE(claim.for_extended_resources);
    EXPECT_EQ(claim.name.rfind(std::string(name) + "-extended-resources-", 0), 0u) << claim.name;
    ASSERT_EQ(claim.devices.size(), 1u);
    // The index among the container's requests sorted by name (cpu,
    // example.com/gpu, memory), as kube names them.
    EXPECT_EQ(claim.devices[0].request, "container-0-request-1");
    devices.push_back(claim.devices[0].device);
  }
  EXPECT_EQ(devices, (std::vector<std::string>{"gpu.example.com/n1/gpu-0", "gpu.example.com/n1/gpu-1"}));
  const PodOutcome* third = Find(r, "third");
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->node, "");
  ASSERT_TRUE(third->fit_error.has_value());
  EXPECT_EQ(third->fit_error->rfind("0/1 nodes are available: 1 cannot allocate all claims.", 0), 0u)
      << *third->fit_error;
  // --explain: the claim its extended resource would become finds both GPUs taken.
  ASSERT_TRUE(third->explain.has_value());
  ASSERT_EQ(third->explain->devices.count("n1"), 1u);
  EXPECT_EQ(RequestDevicesText(third->explain->devices.at("n1").at(0)),
            "claim (the pod's extended resources), request container-0-request-1: 2 devices reach the node, 0 usable "
            "(allocated 2)");

  // At 1.35 the gate is off: NodeResourcesFit refuses n1.
  o.features = scheduler::framework::FeatureGates::ForMinor(35);
  SimulationResult off = RunSim(c, o);
  const PodOutcome* first = Find(off, "first");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->node, "");
}

// n1 with one GPU that is attached only after scheduling, and the pod
// "first" using `claim` (a claim "first" document).
ClusterObjects FirstPodAndAnAttachedGpu(const std::string& claim) {
  std::string slice = GpuSlice("n1", 1);
  slice += "    bindingConditions: [attached]\n    bindingFailureConditions: [attach-failed]\n";
  return Load(Node("n1", "4") + kGpuClass + slice + claim + WithClaims(Pod("first", "1", 1), {"first"}));
}

// The pod "first" once `c` is simulated at kube 1.`minor` with --explain.
std::optional<PodOutcome> SimulateFirstPod(const ClusterObjects& c, int minor) {
  SimulationOptions o = Options(TieBreak::kLowestName, /*explain=*/true);
  o.features = scheduler::framework::FeatureGates::ForMinor(minor);
  SimulationResult r = RunSim(c, o);
  const PodOutcome* first = Find(r, "first");
  return first == nullptr ? std::nullopt : std::optional<PodOutcome>(*first);
}

// A device with binding conditions: the simulation takes them as met, and
// --explain says what a real binding would wait for.
TEST(SimulationDraTest, ExplainSaysWhatABindingWaitsFor) {
  ClusterObjects c = FirstPodAndAnAttachedGpu(Claim("first"));
  SimulationOptions o = Options(TieBreak::kLowestName, /*explain=*/true);
  o.features = scheduler::framework::FeatureGates::ForMinor(37);
  SimulationResult r = RunSim(c, o);
  const PodOutcome* first = Find(r, "first");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->node, "n1");
  ASSERT_TRUE(first->explain.has_value());
  ASSERT_EQ(first->explain->claims.size(), 1u);
  ASSERT_EQ(first->explain->claims[0].devices.size(), 1u);
  EXPECT_EQ(first->explain->claims[0].devices[0].binding_conditions, std::vector<std::string>{"attached"});
  EXPECT_NE(ReportTable(r).find("claim first: gpu -> gpu.example.com/n1/gpu-0 (binds once attached hold; taken as "
                                "met here)"),
            std::string::npos)
      << ReportTable(r);
}

// The pod's claim was allocated by an earlier attempt whose binding failed
// (its driver reported the failure condition): the first cycle finds it
// unavailable on every node and PostFilter frees it; the retry allocates
// afresh, and the simulation's driver meets the new binding at once.
TEST(SimulationDraTest, AFailedBindingIsFreedAndRetried) {
  std::string claim = Claim("first");
  claim +=
      "status:\n  allocation:\n    allocationTimestamp: \"2025-12-31T23:00:00Z\"\n    devices:\n      results:\n"
      "      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0, bindingConditions: [attached],\n"
      "         bindingFailureConditions: [attach-failed]}\n"
      "  devices:\n  - driver: gpu.example.com\n    pool: n1\n    device: gpu-0\n    conditions:\n"
      "    - {type: attach-failed, status: \"True\", reason: Timeout, message: no link,\n"
      "       lastTransitionTime: \"2025-12-31T23:01:00Z\"}\n";
  const ClusterObjects c = FirstPodAndAnAttachedGpu(claim);
  std::optional<PodOutcome> first = SimulateFirstPod(c, 37);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->node, "n1");
  EXPECT_EQ(first->attempts, 2);
  ASSERT_TRUE(first->explain.has_value());
  ASSERT_EQ(first->explain->claims.size(), 1u);
  EXPECT_EQ(first->explain->claims[0].devices.at(0).binding_conditions, std::vector<std::string>{"attached"});

  // At 1.35 binding conditions are not read: the claim stays allocated and
  // the pod goes where its allocation is, at once.
  first = SimulateFirstPod(c, 35);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->node, "n1");
  EXPECT_EQ(first->attempts, 1);
}

// Two pods share one claim: once the first is placed, the claim is
// allocated on its node and the second can go nowhere else, though the
// other node (emptier) would score higher.
TEST(SimulationDraTest, ASharedClaimKeepsItsPodsOnOneNode) {
  ClusterObjects c = Load(Node("n1", "4") + Node("n2", "4") + kGpuClass + GpuSlice("n1", 1) + GpuSlice("n2", 1) +
                          Claim("shared") + WithClaims(Pod("a", "2", 1), {"shared"}) +
                          WithClaims(Pod("b", "1", 2), {"shared"}));
  SimulationResult r = RunSim(c, Options(TieBreak::kLowestName, /*explain=*/true));
  const PodOutcome* a = Find(r, "a");
  const PodOutcome* b = Find(r, "b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(a->node, "n1");  // the nodes tie: the lowest name
  EXPECT_EQ(b->node, "n1");
  nlohmann::ordered_json f = ReportJson(r)["pods"][1]["filter"];
  EXPECT_EQ(f["n2"]["plugin"], "DynamicResources");
  EXPECT_EQ(f["n2"]["reason"], "resourceclaim not available on the node");
}

// The snapshot's allocated claim holds n1's GPU for the bound pod "low".
// "high" preempts "low" for CPU; the victim's claim is then released (the
// resource-claim controller's work), so the later "gpu" pod gets the
// device. Without the release it would stay pending.
TEST(SimulationDraTest, APreemptionVictimsClaimIsReleased) {
  ClusterObjects c = Load(Node("n1", "2") + kGpuClass + GpuSlice("n1", 1) + Claim("held", "n1", "low") +
                          Claim("want") + WithClaims(Pod("low", "2", 1, 0, "n1"), {"held"}) +
                          Pod("high", "1", 2, 100) + WithClaims(Pod("gpu", "500m", 3), {"want"}));
  SimulationResult r = RunSim(c, Options());
  const PodOutcome* high = Find(r, "high");
  const PodOutcome* gpu = Find(r, "gpu");
  ASSERT_NE(high, nullptr);
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(high->victims.size(), 1u);
  EXPECT_EQ(high->victims[0].name, "low");
  EXPECT_EQ(high->node, "n1");
  EXPECT_EQ(gpu->node, "n1");
}

}  // namespace
}  // namespace ksched::simulate
