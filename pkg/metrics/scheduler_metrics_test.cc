#include "pkg/metrics/scheduler_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>
#include <vector>

#include "pkg/metrics/exposition.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/metrics_test_util.h"
#include "pkg/metrics/process_collector.h"

namespace ksched::metrics {
namespace {

struct FamilySpec {
  const char* name;
  prometheus::MetricType type;
  std::set<std::string> labels;  // without "le"
  std::vector<double> buckets;   // histograms only
  const char* help_prefix;
};

const prometheus::MetricFamily* Find(const std::vector<prometheus::MetricFamily>& families,
                                     const std::string& name) {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// At the newest minor (1.37).
TEST(SchedulerMetricsTest, EveryKubeSchedulerFamilyWithNamesTypesLabelsAndBuckets) {
  using T = prometheus::MetricType;
  const std::vector<FamilySpec> specs = {
      {"scheduler_schedule_attempts_total", T::Counter, {"result", "profile"}, {}, "[STABLE] "},
      {"scheduler_scheduling_attempt_duration_seconds", T::Histogram, {"result", "profile"},
       ExponentialBuckets(0.001, 2, 15), "[STABLE] "},
      {"scheduler_scheduling_algorithm_duration_seconds", T::Histogram, {},
       ExponentialBuckets(0.001, 2, 15), "[BETA] "},
      {"scheduler_event_handling_duration_seconds", T::Histogram, {"event"},
       ExponentialBuckets(0.0001, 2, 12), "[ALPHA] "},
      {"scheduler_pending_pods", T::Gauge, {"queue"}, {}, "[STABLE] "},
      {"scheduler_queue_incoming_pods_total", T::Counter, {"queue", "event"}, {}, "[STABLE] "},
      {"scheduler_queued_entities", T::Gauge, {"queue", "type"}, {}, "[ALPHA] "},
      {"scheduler_queue_incoming_entities_total", T::Counter, {"queue", "event", "type"}, {},
       "[ALPHA] "},
      {"scheduler_pod_scheduled_after_flush_total", T::Counter, {}, {}, "[ALPHA] "},
      {"scheduler_pod_scheduling_sli_duration_seconds", T::Histogram, {"attempts"},
       ExponentialBuckets(0.01, 2, 20), "[BETA] "},
      {"scheduler_pod_scheduling_attempts", T::Histogram, {}, ExponentialBuckets(1, 2, 5),
       "[STABLE] "},
      {"scheduler_framework_extension_point_duration_seconds", T::Histogram,
       {"extension_point", "status", "profile"}, ExponentialBuckets(0.0001, 2, 12), "[STABLE] "},
      {"scheduler_plugin_execution_duration_seconds", T::Histogram,
       {"plugin", "extension_point", "status"}, ExponentialBuckets(0.00001, 1.5, 20), "[BETA] "},
      {"scheduler_queueing_hint_execution_duration_seconds", T::Histogram,
       {"plugin", "event", "hint"}, ExponentialBuckets(0.00001, 1.5, 20), "[ALPHA] "},
      {"scheduler_inflight_events", T::Gauge, {"event"}, {}, "[ALPHA] "},
      {"scheduler_unschedulable_pods", T::Gauge, {"plugin", "profile"}, {}, "[BETA] "},
      {"scheduler_plugin_evaluation_total", T::Counter, {"plugin", "extension_point", "profile"},
       {}, "[BETA] "},
      {"scheduler_permit_wait_duration_seconds", T::Histogram, {"result"},
       ExponentialBuckets(0.001, 2, 15), "[BETA] "},
      {"scheduler_preemption_attempts_total", T::Counter, {}, {}, "[STABLE] "},
      {"scheduler_preemption_victims", T::Histogram, {}, ExponentialBuckets(1, 2, 7), "[STABLE] "},
      {"scheduler_preemption_goroutines_execution_total", T::Counter, {"result"}, {}, "[ALPHA] "},
      {"scheduler_goroutines", T::Gauge, {"operation"}, {}, "[BETA] "},
      {"scheduler_cache_size", T::Gauge, {"type"}, {}, "[ALPHA] "},
      {"scheduler_volume_binder_cache_requests_total", T::Counter, {"operation"}, {}, "[ALPHA] "},
      {"scheduler_volume_scheduling_stage_error_total", T::Counter, {"operation"}, {}, "[ALPHA] "},
      {"scheduler_dra_bindingconditions_allocations_total", T::Counter, {"profile", "driver", "status"}, {},
       "[ALPHA] "},
      {"scheduler_dra_bindingconditions_wait_duration_seconds", T::Histogram, {"profile", "driver", "status"},
       ExponentialBuckets(0.1, 2, 14), "[ALPHA] "},
      {"dynamic_resource_allocation_resourceclaim_creates_total", T::Counter,
       {"status", "admin_access", "owner_api_group", "owner_api_kind"}, {}, "[ALPHA] "},
      {"leader_election_master_status", T::Gauge, {"name"}, {}, "[ALPHA] "},
      {"leader_election_slowpath_total", T::Counter, {"name"}, {}, "[ALPHA] "},
  };

  SchedulerMetrics m;
  LeaderElectionMetrics le(*m.Registry());
  testing::ObserveEveryFamily(m, le);
  const auto families = m.Registry()->Collect();
  EXPECT_EQ(families.size(), specs.size());
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec.name);
    const auto* f = Find(families, spec.name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->type, spec.type);
    EXPECT_EQ(f->help.rfind(spec.help_prefix, 0), 0u) << f->help;
    ASSERT_FALSE(f->metric.empty());
    for (const auto& metric : f->metric) {
      std::set<std::string> names;
      for (const auto& l : metric.label) names.insert(l.name);
      EXPECT_EQ(names, spec.labels);
      if (spec.type == T::Histogram) {
        // prometheus-cpp appends the +Inf bucket.
        ASSERT_EQ(metric.histogram.bucket.size(), spec.buckets.size() + 1);
        for (std::size_t i = 0; i < spec.buckets.size(); ++i) {
          EXPECT_EQ(metric.histogram.bucket[i].upper_bound, spec.buckets[i]);
        }
      }
    }
  }
}

std::string HelpOf(const SchedulerMetrics& m, const std::string& name) {
  const auto families = m.Registry()->Collect();
  const prometheus::MetricFamily* f = Find(families, name);
  return f == nullptr ? "<absent>" : f->help;
}

// The families and texts follow the kube minor: promotions to BETA (1.36,
// 1.37), families added (1.36, 1.37) and hidden (1.37), texts reworded.
TEST(SchedulerMetricsTest, FamiliesAndHelpTextsFollowTheKubeMinor) {
  SchedulerMetrics m35(35), m36(36), m37(37);
  for (SchedulerMetrics* m : {&m35, &m36, &m37}) {  // vectors show once used
    LeaderElectionMetrics le(*m->Registry());
    testing::ObserveEveryFamily(*m, le);
  }
  EXPECT_EQ(HelpOf(m35, "scheduler_goroutines").rfind("[ALPHA] ", 0), 0u);
  EXPECT_EQ(HelpOf(m36, "scheduler_goroutines").rfind("[BETA] ", 0), 0u);
  EXPECT_EQ(HelpOf(m36, "scheduler_plugin_execution_duration_seconds").rfind("[ALPHA] ", 0), 0u);
  EXPECT_EQ(HelpOf(m37, "scheduler_plugin_execution_duration_seconds").rfind("[BETA] ", 0), 0u);
  EXPECT_EQ(HelpOf(m35, "scheduler_pod_scheduled_after_flush_total"), "<absent>");
  EXPECT_NE(HelpOf(m36, "scheduler_pod_scheduled_after_flush_total").find("from unschedulablePods "),
            std::string::npos);
  EXPECT_NE(HelpOf(m37, "scheduler_pod_scheduled_after_flush_total").find("from unschedulableEntities "),
            std::string::npos);
  EXPECT_EQ(HelpOf(m35, "scheduler_dra_bindingconditions_allocations_total"), "<absent>");
  EXPECT_EQ(HelpOf(m35, "scheduler_dra_bindingconditions_wait_duration_seconds"), "<absent>");
  EXPECT_EQ(HelpOf(m36, "scheduler_dra_bindingconditions_wait_duration_seconds"),
            "[ALPHA] Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.");
  EXPECT_EQ(HelpOf(m35, "scheduler_resourceclaim_creates_total"), "<absent>");
  EXPECT_EQ(HelpOf(m36, "scheduler_resourceclaim_creates_total"),
            "[ALPHA] Number of ResourceClaims creation requests within scheduler");
  EXPECT_EQ(HelpOf(m36, "dynamic_resource_allocation_resourceclaim_creates_total"), "<absent>");
  EXPECT_EQ(HelpOf(m37, "scheduler_resourceclaim_creates_total"), "<absent>");
  EXPECT_EQ(HelpOf(m36, "scheduler_queued_entities"), "<absent>");
  EXPECT_EQ(HelpOf(m36, "scheduler_queue_incoming_entities_total"), "<absent>");
  EXPECT_NE(HelpOf(m36, "scheduler_preemption_goroutines_duration_seconds"), "<absent>");
  EXPECT_EQ(HelpOf(m37, "scheduler_preemption_goroutines_duration_seconds"), "<absent>");
  EXPECT_EQ(m37.PreemptionGoroutinesDuration(GoroutineResult::kSuccess), nullptr);
  EXPECT_EQ(HelpOf(m36, "scheduler_preemption_victims"), "[STABLE] Number of selected preemption victims");
  EXPECT_EQ(HelpOf(m37, "scheduler_preemption_victims"),
            "[STABLE] Number of selected preemption victims for preemption initiated by a single pod");
  const std::string pending36 = HelpOf(m36, "scheduler_pending_pods");
  const std::string pending37 = HelpOf(m37, "scheduler_pending_pods");
  EXPECT_NE(pending36.find("pods in unschedulablePods that"), std::string::npos);
  EXPECT_EQ(pending36.back(), '.');
  EXPECT_NE(pending37.find("pods in unschedulableEntities that"), std::string::npos);
  EXPECT_NE(pending37.find("'pending' means number of pods in pendingPodGroupPods."), std::string::npos);
}

// From 1.37 each pod also counts as an entity of type "pod".
TEST(SchedulerMetricsTest, PodsAreCountedAsEntitiesFrom37) {
  SchedulerMetrics m36(36), m37(37);
  for (SchedulerMetrics* m : {&m36, &m37}) {
    m->AddPendingPods(Queue::kActive, 2);
    m->AddPendingPods(Queue::kActive, -1);
    m->CountIncomingPod(Queue::kBackoff, "PodAdd");
    EXPECT_EQ(m->PendingPods(Queue::kActive).Value(), 1);
    EXPECT_EQ(m->QueueIncomingPods(Queue::kBackoff, "PodAdd").Value(), 1);
  }
  const std::string text = CollectText({m37.Registry()});
  EXPECT_NE(text.find("scheduler_queued_entities{queue=\"active\",type=\"pod\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_queued_entities{queue=\"gated\",type=\"pod\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_queue_incoming_entities_total{event=\"PodAdd\",queue=\"backoff\","
                      "type=\"pod\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(CollectText({m36.Registry()}).find("entities"), std::string::npos);
}

TEST(SchedulerMetricsTest, ExpositionShowsKubeSeries) {
  SchedulerMetrics m;
  LeaderElectionMetrics le(*m.Registry());
  testing::ObserveEveryFamily(m, le);
  const std::string text = CollectText({m.Registry()});
  for (const char* line : {
           "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 1\n",
           "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\","
           "result=\"scheduled\",le=\"0.004\"} 1\n",
           "scheduler_pending_pods{queue=\"active\"} 3\n",
           "scheduler_pending_pods{queue=\"backoff\"} 0\n",
           "scheduler_pending_pods{queue=\"gated\"} 0\n",
           "scheduler_queue_incoming_pods_total{event=\"PodAdd\",queue=\"active\"} 1\n",
           "scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"3\"} 1\n",
           "scheduler_pod_scheduling_attempts_bucket{le=\"4\"} 2\n",
           "scheduler_framework_extension_point_duration_seconds_count{extension_point=\"Filter\","
           "profile=\"default-scheduler\",status=\"Unschedulable\"} 1\n",
           "scheduler_plugin_execution_duration_seconds_count{extension_point=\"Filter\","
           "plugin=\"NodeResourcesFit\",status=\"Success\"} 1\n",
           "scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"NodeResourcesFit\","
           "profile=\"default-scheduler\"} 1\n",
           "scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"} 2\n",
           "scheduler_queueing_hint_execution_duration_seconds_count{event=\"NodeAdd\",hint=\"Queue\","
           "plugin=\"NodeResourcesFit\"} 1\n",
           "scheduler_inflight_events{event=\"PodPopped\"} 1\n",
           "scheduler_permit_wait_duration_seconds_count{result=\"Success\"} 1\n",
           "scheduler_preemption_attempts_total 1\n",
           "scheduler_preemption_victims_bucket{le=\"2\"} 1\n",
           "scheduler_goroutines{operation=\"binding\"} 1\n",
           "scheduler_cache_size{type=\"assumed_pods\"} 0\n",
           "scheduler_cache_size{type=\"nodes\"} 12\n",
           "leader_election_master_status{name=\"ksched\"} 1\n",
           "# HELP scheduler_pending_pods [STABLE] Number of pending pods, by the queue type.",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line;
  }
}

TEST(SchedulerMetricsTest, UnusedLabelledSeriesAreNotExported) {
  SchedulerMetrics m;
  const std::string text = CollectText({m.Registry()});
  EXPECT_EQ(text.find("scheduler_schedule_attempts_total"), std::string::npos);
  EXPECT_EQ(text.find("scheduler_plugin_execution_duration_seconds"), std::string::npos);
  // Unlabelled and fixed-label families exist from the start, as in kube.
  EXPECT_NE(text.find("scheduler_preemption_attempts_total 0\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_pending_pods{queue=\"unschedulable\"} 0\n"), std::string::npos);
}

TEST(SchedulerMetricsTest, HandlesAreStableAndShared) {
  SchedulerMetrics m;
  ProfileMetrics& p1 = m.Profile("a");
  EXPECT_EQ(&p1, &m.Profile("a"));
  EXPECT_NE(&p1, &m.Profile("b"));
  EXPECT_EQ(p1.profile(), "a");
  PluginMetrics& pl = m.Plugin("TaintToleration", "a");
  EXPECT_EQ(&pl, &m.Plugin("TaintToleration", "a"));
  EXPECT_NE(&pl, &m.Plugin("TaintToleration", "b"));
  EXPECT_NE(&pl, &m.Plugin("TaintTolerationa", ""));
  // The handle and the string accessor reach the same child.
  pl.UnschedulablePods().Set(4);
  EXPECT_EQ(m.UnschedulablePods("TaintToleration", "a").Value(), 4);
  EXPECT_EQ(&m.EventHandlingDuration("NodeAdd"), &m.EventHandlingDuration("NodeAdd"));
  EXPECT_NE(&m.EventHandlingDuration("NodeAdd"), &m.EventHandlingDuration("NodeDelete"));
  EXPECT_EQ(&m.PodSchedulingSliDuration(2), &m.PodSchedulingSliDuration(2));
  EXPECT_EQ(&m.PodSchedulingSliDuration(100), &m.PodSchedulingSliDuration(100));
  EXPECT_EQ(&m.PermitWaitDuration(Code::kWait), &m.PermitWaitDuration(Code::kWait));
}

TEST(SchedulerMetricsTest, ConcurrentObservationsAreAllCounted) {
  SchedulerMetrics m;
  constexpr int kThreads = 4, kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        m.ObserveSchedulingAttempt(Result::kScheduled, t % 2 == 0 ? "even" : "odd", 0.001);
        m.Plugin("P", "even").IncEvaluation(ExtensionPoint::kFilter);
        m.QueueIncomingPods(Queue::kActive, "PodAdd").Increment();
      }
    });
  }
  for (auto& th : threads) th.join();
  const std::string text = CollectText({m.Registry()});
  EXPECT_NE(text.find("scheduler_schedule_attempts_total{profile=\"even\",result=\"scheduled\"} 4000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_queue_incoming_pods_total{event=\"PodAdd\",queue=\"active\"} 8000\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{extension_point=\"Filter\",plugin=\"P\","
                      "profile=\"even\"} 8000\n"),
            std::string::npos);
}

TEST(SchedulerMetricsTest, BatchedEvaluationsEqualSingleOnes) {
  SchedulerMetrics one_by_one;
  SchedulerMetrics batched;
  for (int i = 0; i < 5; ++i) one_by_one.Plugin("P", "prof").IncEvaluation(ExtensionPoint::kScore);
  batched.Plugin("P", "prof").AddEvaluations(ExtensionPoint::kScore, 5);
  batched.Plugin("P", "prof").AddEvaluations(ExtensionPoint::kScore, 0);
  const std::string a = CollectText({one_by_one.Registry()});
  const std::string b = CollectText({batched.Registry()});
  EXPECT_EQ(a, b);
  EXPECT_NE(b.find("scheduler_plugin_evaluation_total{extension_point=\"Score\",plugin=\"P\",profile=\"prof\"} 5\n"),
            std::string::npos)
      << b;
}

TEST(SchedulerMetricsTest, ScopedGaugeIncrementCountsRunningWork) {
  SchedulerMetrics m;
  prometheus::Gauge& g = m.Goroutines(kBindingOperation);
  {
    ScopedGaugeIncrement a(g);
    ScopedGaugeIncrement b(g);
    EXPECT_EQ(g.Value(), 2);
  }
  EXPECT_EQ(g.Value(), 0);
}

TEST(SchedulerMetricsTest, LabelValuesAreKubeSpellings) {
  EXPECT_EQ(LabelValue(Result::kUnschedulable), "unschedulable");
  EXPECT_EQ(LabelValue(Queue::kGated), "gated");
  EXPECT_EQ(LabelValue(ExtensionPoint::kPreFilterExtensionRemovePod), "PreFilterExtensionRemovePod");
  EXPECT_EQ(LabelValue(ExtensionPoint::kPermit), "Permit");
  EXPECT_EQ(LabelValue(Code::kUnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
  EXPECT_EQ(LabelValue(Code::kPending), "Pending");
  EXPECT_EQ(LabelValue(HintResult::kQueueSkip), "QueueSkip");
  EXPECT_EQ(LabelValue(CacheType::kAssumedPods), "assumed_pods");
  EXPECT_EQ(LabelValue(GoroutineResult::kError), "error");
}

TEST(SchedulerMetricsTest, SharedRegistryMergesSecondInstance) {
  auto registry = std::make_shared<prometheus::Registry>();
  SchedulerMetrics a(registry);
  SchedulerMetrics b(registry);
  a.PreemptionAttempts().Increment();
  b.PreemptionAttempts().Increment();
  EXPECT_EQ(a.PreemptionAttempts().Value(), 2);
  EXPECT_EQ(a.Registry(), registry);
}

TEST(SchedulerMetricsTest, PromtoolAcceptsTheExposition) {
  SchedulerMetrics m;
  LeaderElectionMetrics le(*m.Registry());
  testing::ObserveEveryFamily(m, le);
  auto result = testing::RunPromtool(
      CollectText({m.Registry(), std::make_shared<ProcessCollector>()}));
  if (!result.available) GTEST_SKIP() << "promtool not installed";
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, "") << "promtool reported problems";
}

TEST(SchedulerMetricsTest, PromtoolHarnessCatchesLintProblems) {
  // Guards the test above against a harness that cannot fail.
  auto result = testing::RunPromtool("# HELP foo_count x\n# TYPE foo_count counter\nfoo_count 1\n");
  if (!result.available) GTEST_SKIP() << "promtool not installed";
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output.find("_total"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace ksched::metrics
