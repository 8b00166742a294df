// Smoke run of the scheduler_perf harness: the smallest workloads of the
// issue-6 set (and SchedulingBasic/5000Nodes_10000Pods at 1 %) and
// PreemptionBasic/5Nodes, in process and end to end. Every created pod must
// be bound (read back from the pod lister / the API server) unless
// preemption evicted it, the never-fitting churn pods of Unschedulable must
// stay unbound, and the measurements must be populated. The built-in DRA
// workload at a tiny size, in process: every pod bound with its claim
// allocated on its node, no device twice.
#include <gtest/gtest.h>

#include "test/bench/dra_workloads.h"
#include "test/bench/runner.h"
#include "test/bench/workload.h"

namespace ksched::bench {
namespace {

constexpr char kFixtures[] = "../shared/fixtures/scheduler_perf";

std::vector<Workload> LoadAll() {
  std::vector<Workload> all;
  for (const char* f : {"/misc/performance-config.yaml", "/affinity/performance-config.yaml",
                        "/topology_spreading/performance-config.yaml"}) {
    auto w = LoadTestCases(std::string(kFixtures) + f);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    if (w.ok()) all.insert(all.end(), w->begin(), w->end());
  }
  return all;
}

Workload Get(const std::string& name, double scale = 1.0) {
  static const std::vector<Workload> all = LoadAll();
  for (const Workload& w : all) {
    if (w.FullName() == name) return w.Scaled(scale);
  }
  ADD_FAILURE() << "no workload " << name;
  return Workload{};
}

class SmokeTest : public ::testing::TestWithParam<Mode> {
 protected:
  WorkloadResult RunIt(const Workload& w) {
    RunOptions o;
    o.mode = GetParam();
    o.verbose = false;
    o.pod_timeout = std::chrono::seconds(30);
    o.sample_interval = std::chrono::milliseconds(100);
    return RunWorkload(w, o);
  }

  static void ExpectAllScheduled(const WorkloadResult& r, int64_t nodes, int64_t pods, int64_t measured) {
    SCOPED_TRACE(r.mode + " " + r.workload);
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.nodes, nodes);
    EXPECT_EQ(r.pods_created, pods);
    EXPECT_EQ(r.measured_pods, measured);
    EXPECT_EQ(r.measured_scheduled, measured);
    EXPECT_FALSE(r.samples.empty());
    EXPECT_GT(r.throughput.average, 0);
    // Every measured pod was scheduled by an attempt the metrics saw.
    EXPECT_GE(r.attempt_scheduled.count, static_cast<uint64_t>(measured));
    EXPECT_GT(r.extension_points.count("Filter"), 0u);
    EXPECT_GT(r.peak_rss_kb, 0);
  }
};

TEST_P(SmokeTest, SchedulingBasicAtOnePercent) {
  WorkloadResult r = RunIt(Get("SchedulingBasic/5000Nodes_10000Pods", 0.01));
  ExpectAllScheduled(r, 50, 110, 100);
}

TEST_P(SmokeTest, NodeAffinity) {
  ExpectAllScheduled(RunIt(Get("SchedulingNodeAffinity/5Nodes")), 5, 15, 10);
}

TEST_P(SmokeTest, PodAntiAffinityPutsEachPodOnItsOwnNode) {
  // 5 nodes, 1 + 4 pods that repel each other by hostname: exactly fits.
  ExpectAllScheduled(RunIt(Get("SchedulingPodAntiAffinity/5Nodes_QueueingHintsEnabled")), 5, 5, 4);
}

TEST_P(SmokeTest, TopologySpreading) {
  ExpectAllScheduled(RunIt(Get("TopologySpreading/5Nodes")), 5, 20, 10);
}

TEST_P(SmokeTest, UnschedulableChurnPodsNeverBind) {
  WorkloadResult r = RunIt(Get("Unschedulable/5Nodes/1Init/10Pods"));
  ExpectAllScheduled(r, 5, 11, 10);
  EXPECT_GE(r.churn_created, 1);
  EXPECT_EQ(r.churn_bound, 0);
}

TEST_P(SmokeTest, PreemptionEvictsTheMinimumForEachHighPriorityPod) {
  // 5 nodes of 4 cpus, each full with 4 low-priority pods of 900m; each of
  // the 5 pods of 3 cpus evicts 3 of them (the 4th is reprieved). A
  // preemptor retried before its nomination reached the informer may
  // preempt again, choosing only victims already terminating: more
  // preemptions counted, no more pods evicted.
  WorkloadResult r = RunIt(Get("PreemptionBasic/5Nodes"));
  ExpectAllScheduled(r, 5, 25, 5);
  EXPECT_EQ(r.pods_evicted, 15);
  EXPECT_GE(r.preemptions, 5);
  EXPECT_GE(r.preemption_victims, 15);
  EXPECT_GE(r.victims_total, 15);
  EXPECT_GE(r.preemption_attempts, 5);
  EXPECT_GT(r.preemptions_per_s, 0);
}

// insn_count's settings: the churn op creates its rounds at once and the
// scheduler has tried them before the measured pods come, so none of their
// attempts falls into the measured phase (the instruction count's); the
// measured pods come one at a time and all get a node.
TEST(SmokeRepeatableTest, ChurnRoundsComeBeforeTheMeasuredPhase) {
  RunOptions o;
  o.verbose = false;
  o.pod_timeout = std::chrono::seconds(30);
  o.churn_rounds = 2;
  o.one_pod_at_a_time = true;
  o.cluster.parallelism = 1;
  o.cluster.seed = 1;
  WorkloadResult r = RunWorkload(Get("Unschedulable/5Nodes/1Init/10Pods"), o);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.measured_scheduled, 10);
  EXPECT_EQ(r.churn_created, 2);
  EXPECT_EQ(r.churn_bound, 0);
  EXPECT_EQ(r.attempts_unschedulable, 0u);
}

// Open loop: the measured pods arrive at the rate asked for, each one's
// create-to-bound latency is measured, and the scheduler's SLI histogram
// counts them.
TEST_P(SmokeTest, OpenLoopMeasuresEveryPodsLatency) {
  RunOptions o;
  o.mode = GetParam();
  o.verbose = false;
  o.pod_timeout = std::chrono::seconds(30);
  o.arrival_rate = 200;
  WorkloadResult r = RunWorkload(Get("Unschedulable/5Nodes/1Init/10Pods"), o);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.measured_scheduled, 10);
  ASSERT_EQ(r.pod_latency_ms.size(), 10u);
  for (double ms : r.pod_latency_ms) EXPECT_GE(ms, 0);
  EXPECT_EQ(r.pod_latency.samples, 10u);
  EXPECT_GE(r.pod_latency.p99, r.pod_latency.p50);
  // The tenth pod is sent 9/200 s after the first.
  EXPECT_GE(r.create_seconds, 0.045);
  EXPECT_GE(r.sli.count, 10u);
}

// SchedulingWithResourceClaimTemplate on 2 nodes of 10 devices: 10 init
// claims allocated round-robin, then 10 pods, each with its own claim from
// the template. Every device is taken at the end, so a device given twice
// would also leave a pod without one. Run as the daemon would (parallel
// Filter, random tie-breaking) and as insn_count runs it.
TEST(SmokeDraTest, EveryPodBoundWithItsClaimAllocatedOnItsNode) {
  for (bool repeatable : {false, true}) {
    SCOPED_TRACE(repeatable ? "insn_count's settings" : "defaults");
    RunOptions o;
    o.verbose = false;
    o.pod_timeout = std::chrono::seconds(30);
    o.sample_interval = std::chrono::milliseconds(100);
    if (repeatable) {
      o.one_pod_at_a_time = true;
      o.cluster.parallelism = 1;
      o.cluster.seed = 1;
    }
    WorkloadResult r = RunWorkload(DraWorkload("2nodes", 2, 10, 10), o);
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.nodes, 2);
    EXPECT_EQ(r.measured_pods, 10);
    EXPECT_EQ(r.measured_scheduled, 10);
    EXPECT_EQ(r.pods_with_claims, 10);
    EXPECT_EQ(r.claims_allocated, 10);
    EXPECT_EQ(r.devices_allocated, 20);  // the init claims' 10 and the pods' 10, each once
    EXPECT_EQ(r.attempts_error, 0u);
    EXPECT_GT(r.extension_points.count("PreBind"), 0u);
  }
}

// The smallest of kube's sizes, as scheduler_perf --workload selects it.
TEST(SmokeDraTest, FastWorkload) {
  RunOptions o;
  o.verbose = false;
  o.pod_timeout = std::chrono::seconds(30);
  for (const Workload& w : DraWorkloads()) {
    if (w.name != "fast") continue;
    WorkloadResult r = RunWorkload(w, o);
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.claims_allocated, 10);
    EXPECT_EQ(r.devices_allocated, 10);
    return;
  }
  ADD_FAILURE() << "no built-in fast workload";
}

// End to end the DRA objects are not created yet: the run fails and says
// so instead of measuring pods without claims.
TEST(SmokeDraTest, OtherModesRefuseInsteadOfMeasuring) {
  RunOptions o;
  o.mode = Mode::kE2e;
  o.verbose = false;
  o.pod_timeout = std::chrono::seconds(30);
  WorkloadResult r = RunWorkload(DraWorkload("tiny", 1, 0, 1), o);
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.error.find("in process only"), std::string::npos) << r.error;
  EXPECT_EQ(r.measured_scheduled, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, SmokeTest, ::testing::Values(Mode::kInProcess, Mode::kE2e),
                         [](const auto& info) { return std::string(ModeName(info.param)); });

}  // namespace
}  // namespace ksched::bench
