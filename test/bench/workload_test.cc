#include "test/bench/workload.h"

#include <gtest/gtest.h>

#include "pkg/api/codec.h"
#include "pkg/api/resource_codec.h"
#include "test/bench/dra_ops.h"
#include "test/bench/dra_workloads.h"

#include <filesystem>
#include <fstream>

namespace ksched::bench {
namespace {

using nlohmann::json;

constexpr char kFixtures[] = "../shared/fixtures/scheduler_perf";

const Workload* Find(const std::vector<Workload>& all, const std::string& name) {
  for (const Workload& w : all) {
    if (w.FullName() == name) return &w;
  }
  return nullptr;
}

TEST(WorkloadTest, LoadsSchedulingBasicWithItsParamsAndTemplates) {
  auto all = LoadTestCases(std::string(kFixtures) + "/misc/performance-config.yaml");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const Workload* w = Find(*all, "SchedulingBasic/5000Nodes_10000Pods");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->threshold, 680);
  ASSERT_EQ(w->ops.size(), 3u);
  EXPECT_EQ(w->ops[0].opcode, Opcode::kCreateNodes);
  EXPECT_EQ(w->ops[0].count, 5000);
  // No nodeTemplatePath: scheduler_perf's base node.
  EXPECT_EQ(w->ops[0].object_template["status"]["capacity"]["cpu"], "4");
  EXPECT_EQ(w->ops[1].opcode, Opcode::kCreatePods);
  EXPECT_EQ(w->ops[1].count, 1000);
  EXPECT_FALSE(w->ops[1].collect_metrics);
  EXPECT_EQ(w->ops[1].namespace_, "namespace-1");
  // defaultPodTemplatePath, relative to the config file.
  EXPECT_EQ(w->ops[1].object_template["metadata"]["generateName"], "pod-");
  EXPECT_EQ(w->ops[2].count, 10000);
  EXPECT_TRUE(w->ops[2].collect_metrics);
  EXPECT_EQ(w->MeasuredPods(), 10000);
  EXPECT_EQ(w->Unsupported(), "");
}

TEST(WorkloadTest, ScaledMultipliesCountsKeepingAtLeastOne) {
  auto all = LoadTestCases(std::string(kFixtures) + "/misc/performance-config.yaml");
  ASSERT_TRUE(all.ok());
  const Workload* w = Find(*all, "SchedulingBasic/5000Nodes_10000Pods");
  ASSERT_NE(w, nullptr);
  Workload s = w->Scaled(0.01);
  EXPECT_EQ(s.ops[0].count, 50);
  EXPECT_EQ(s.ops[1].count, 10);
  EXPECT_EQ(s.MeasuredPods(), 100);
  Workload tiny = w->Scaled(1e-9);
  EXPECT_EQ(tiny.ops[0].count, 1);
}

TEST(WorkloadTest, ChurnLabelsAndFeatureGates) {
  auto misc = LoadTestCases(std::string(kFixtures) + "/misc/performance-config.yaml");
  ASSERT_TRUE(misc.ok());
  const Workload* u = Find(*misc, "Unschedulable/5kNodes/100Init/10kPods");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->threshold, 590);
  ASSERT_EQ(u->ops[2].opcode, Opcode::kChurn);
  EXPECT_EQ(u->ops[2].interval, std::chrono::milliseconds(200));
  ASSERT_EQ(u->ops[2].churn_templates.size(), 1u);
  EXPECT_EQ(u->ops[2].churn_templates[0]["spec"]["priority"], 10);
  EXPECT_EQ(u->Unsupported(), "");

  auto ts = LoadTestCases(std::string(kFixtures) + "/topology_spreading/performance-config.yaml");
  ASSERT_TRUE(ts.ok());
  const Workload* t = Find(*ts, "TopologySpreading/5000Nodes_5000Pods");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ops[0].label_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(t->ops[0].label_values, (std::vector<std::string>{"moon-1", "moon-2", "moon-3"}));

  auto aff = LoadTestCases(std::string(kFixtures) + "/affinity/performance-config.yaml");
  ASSERT_TRUE(aff.ok());
  const Workload* a = Find(*aff, "SchedulingPodAntiAffinity/5000Nodes_2000Pods");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->feature_gates.at("SchedulerQueueingHints"), false);
  EXPECT_EQ(a->ops[1].opcode, Opcode::kCreateNamespaces);
  EXPECT_EQ(a->ops[1].prefix, "sched");
  EXPECT_EQ(a->ops[1].count, 2);
  EXPECT_EQ(a->ops[3].namespace_, "sched-1");
  // createPodSets is not something this harness runs.
  const Workload* ns = Find(*aff, "SchedulingRequiredPodAntiAffinityWithNSSelector/500Nodes");
  ASSERT_NE(ns, nullptr);
  EXPECT_NE(ns->Unsupported().find("createPodSets"), std::string::npos);
}

TEST(WorkloadTest, MissingParameterAndBadFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "scheduler_perf_workload_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "config.yaml");
    out << "- name: T\n  workloadTemplate:\n  - opcode: createNodes\n    countParam: $nodes\n"
           "  workloads:\n  - name: w\n    params:\n      other: 3\n";
  }
  auto all = LoadTestCases((dir / "config.yaml").string());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].Unsupported(), "parameter nodes is not set");
  {
    std::ofstream out(dir / "bad.yaml");
    out << "- name: T\n  defaultPodTemplatePath: missing.yaml\n  workloadTemplate:\n  - opcode: createPods\n"
           "    count: 1\n  workloads:\n  - name: w\n";
  }
  EXPECT_FALSE(LoadTestCases((dir / "bad.yaml").string()).ok());
  EXPECT_FALSE(LoadTestCases((dir / "absent.yaml").string()).ok());
  std::filesystem::remove_all(dir);
}

// The built-in DRA workload: draperf's objects, in kube's op order, and
// scaling keeps one slice per node and one class.
TEST(DraWorkloadTest, ObjectsAndScaling) {
  std::vector<Workload> all = DraWorkloads();
  const Workload* w = Find(all, "SchedulingWithResourceClaimTemplate/2000pods_200nodes");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->ops.size(), 7u);
  EXPECT_EQ(w->ops[0].opcode, Opcode::kCreateNodes);
  EXPECT_EQ(w->ops[0].count, 200);
  EXPECT_EQ(w->ops[0].object_template["metadata"]["generateName"], "scheduler-perf-dra-");
  EXPECT_EQ(w->ops[1].object_template["kind"], "DeviceClass");
  EXPECT_EQ(w->ops[2].object_template["kind"], "ResourceSlice");
  EXPECT_EQ(w->ops[2].count, 200);
  EXPECT_EQ(w->ops[2].object_template["spec"]["devices"].size(), 10u);
  EXPECT_EQ(w->ops[3].object_template["kind"], "ResourceClaim");
  EXPECT_EQ(w->ops[3].count, 1000);
  EXPECT_EQ(w->ops[3].namespace_, "init");
  EXPECT_EQ(w->ops[4].opcode, Opcode::kAllocResourceClaims);
  EXPECT_EQ(w->ops[5].object_template["kind"], "ResourceClaimTemplate");
  EXPECT_TRUE(w->ops[6].collect_metrics);
  EXPECT_TRUE(w->ops[6].claims_from_templates);
  EXPECT_EQ(w->MeasuredPods(), 1000);
  EXPECT_TRUE(w->UsesResourceClaims());
  EXPECT_EQ(w->Unsupported(), "");
  EXPECT_FALSE(w->MayPreempt());
  // Every slice's device decodes as the typed codec reads it.
  json slice = InstantiateIndexed(w->ops[2].object_template, 7);
  EXPECT_EQ(slice["metadata"]["name"], "resourceslice-7");
  EXPECT_EQ(slice["spec"]["nodeName"], "scheduler-perf-dra-7");
  EXPECT_EQ(slice["spec"]["pool"]["name"], "resourceslice-7");
  EXPECT_TRUE(api::FromJson<api::ResourceSlice>(slice).ok());

  Workload half = w->Scaled(0.5);
  EXPECT_EQ(half.ops[0].count, 100);
  EXPECT_EQ(half.ops[1].count, 1);
  EXPECT_EQ(half.ops[2].count, 100);
  EXPECT_EQ(half.ops[3].count, 500);
  EXPECT_EQ(half.MeasuredPods(), 500);
  EXPECT_EQ(Find(*LoadTestCases(std::string(kFixtures) + "/misc/performance-config.yaml"), w->FullName()), nullptr);
}

TEST(DraOpsTest, InstantiateIndexedReplacesEveryPlaceholderInStrings) {
  json t = {{"metadata", {{"name", "a-{{.Index}}-{{.Index}}"}}}, {"spec", {{"n", 3}, {"l", json::array({"x{{.Index}}"})}}}};
  json o = InstantiateIndexed(t, 12);
  EXPECT_EQ(o["metadata"]["name"], "a-12-12");
  EXPECT_EQ(o["spec"]["n"], 3);
  EXPECT_EQ(o["spec"]["l"][0], "x12");
}

json Slice(const std::string& name, const std::string& node, int devices) {
  json d = json::array();
  for (int i = 0; i < devices; ++i) d.push_back({{"name", "dev-" + std::to_string(i)}});
  return {{"metadata", {{"name", name}}},
          {"spec", {{"driver", "drv"}, {"nodeName", node}, {"pool", {{"name", name}}}, {"devices", d}}}};
}

json Claim(const std::string& name) {
  return {{"kind", "ResourceClaim"},
          {"metadata", {{"name", name}, {"namespace", "init"}}},
          {"spec", {{"devices", {{"requests", json::array({{{"name", "req-0"}}})}}}}}};
}

TEST(DraOpsTest, AllocateRoundRobinFillsTheNodesEvenly) {
  std::vector<json> slices = {Slice("s0", "n0", 2), Slice("s1", "n1", 2)};
  std::vector<json> claims = {Claim("c0"), Claim("c1"), Claim("c2"), Claim("c3")};
  auto out = AllocateRoundRobin(claims, slices);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 4u);
  const char* want[][3] = {{"s0", "dev-0", "n0"}, {"s1", "dev-0", "n1"}, {"s0", "dev-1", "n0"}, {"s1", "dev-1", "n1"}};
  for (size_t i = 0; i < 4; ++i) {
    const json& a = (*out)[i]["status"]["allocation"];
    EXPECT_EQ(a["devices"]["results"][0]["request"], "req-0");
    EXPECT_EQ(a["devices"]["results"][0]["driver"], "drv");
    EXPECT_EQ(a["devices"]["results"][0]["pool"], want[i][0]);
    EXPECT_EQ(a["devices"]["results"][0]["device"], want[i][1]);
    EXPECT_EQ(a["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"][0], want[i][2]);
    auto typed = api::FromJson<api::ResourceClaim>((*out)[i]);
    ASSERT_TRUE(typed.ok()) << typed.status().ToString();
    EXPECT_TRUE(typed->status.allocation.has_value());
  }
  claims.push_back(Claim("c4"));
  EXPECT_FALSE(AllocateRoundRobin(claims, slices).ok());  // 5 claims, 4 devices
  EXPECT_FALSE(AllocateRoundRobin(claims, {}).ok());
  EXPECT_TRUE(AllocateRoundRobin({}, {})->empty());
}

TEST(DraOpsTest, ClaimsFromTemplatesMakesOneClaimPerTemplateEntry) {
  std::map<std::string, json> templates = {
      {"test/tpl",
       {{"metadata", {{"name", "tpl"}}},
        {"spec", {{"metadata", {{"labels", {{"l", "v"}}}}}, {"spec", {{"devices", {{"requests", json::array()}}}}}}}}}};
  json pod = {{"metadata", {{"name", "p"}, {"namespace", "test"}}},
              {"spec",
               {{"resourceClaims", json::array({{{"name", "gpu"}, {"resourceClaimTemplateName", "tpl"}},
                                                {{"name", "own"}, {"resourceClaimName", "x"}}})}}}};
  auto claims = ClaimsFromTemplates(pod, templates);
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  ASSERT_EQ(claims->size(), 1u);
  EXPECT_EQ((*claims)[0]["metadata"]["name"], "p-gpu");
  EXPECT_EQ((*claims)[0]["metadata"]["namespace"], "test");
  EXPECT_EQ((*claims)[0]["metadata"]["labels"]["l"], "v");
  EXPECT_TRUE((*claims)[0]["spec"]["devices"].contains("requests"));
  EXPECT_EQ(pod["spec"]["resourceClaims"][0], json({{"name", "gpu"}, {"resourceClaimName", "p-gpu"}}));
  EXPECT_EQ(pod["spec"]["resourceClaims"][1]["resourceClaimName"], "x");

  json other = {{"metadata", {{"name", "q"}, {"namespace", "elsewhere"}}},
                {"spec", {{"resourceClaims", json::array({{{"name", "gpu"}, {"resourceClaimTemplateName", "tpl"}}})}}}};
  EXPECT_EQ(ClaimsFromTemplates(other, templates).status().code(), util::StatusCode::kNotFound);
}

}  // namespace
}  // namespace ksched::bench
