#include "test/bench/workload.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ksched::bench {
namespace {

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

}  // namespace
}  // namespace ksched::bench
