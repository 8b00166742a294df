// Test support for pkg/metrics: fills every family with a few series, and
// runs `promtool check metrics` on an exposition.
//
// Used by metrics_test and metrics_exposition_dump only; not part of the
// library.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/metrics/scheduler_metrics.h"

namespace ksched::metrics::testing {

// One or more observations in every family, with the label values
// kube-scheduler uses.
inline void ObserveEveryFamily(SchedulerMetrics& m, LeaderElectionMetrics& le) {
  ProfileMetrics& profile = m.Profile("default-scheduler");
  profile.ObserveSchedulingAttempt(Result::kScheduled, 0.003);
  profile.ObserveSchedulingAttempt(Result::kUnschedulable, 0.02);
  profile.ObserveExtensionPoint(ExtensionPoint::kFilter, Code::kSuccess, 0.0002);
  profile.ObserveExtensionPoint(ExtensionPoint::kFilter, Code::kUnschedulable, 0.0004);
  PluginMetrics& fit = m.Plugin("NodeResourcesFit", "default-scheduler");
  fit.ObserveExecution(ExtensionPoint::kFilter, Code::kSuccess, 0.00003);
  fit.IncEvaluation(ExtensionPoint::kFilter);
  fit.UnschedulablePods().Set(2);
  m.SchedulingAlgorithmDuration().Observe(0.002);
  m.EventHandlingDuration("NodeAdd").Observe(0.0005);
  m.AddPendingPods(Queue::kActive, 3);
  m.AddPendingPods(Queue::kUnschedulable, 2);
  m.CountIncomingPod(Queue::kActive, "PodAdd");
  m.CountIncomingPod(Queue::kUnschedulable, "ScheduleAttemptFailure");
  if (prometheus::Counter* c = m.PodScheduledAfterFlush()) c->Increment();
  m.ObservePodScheduled(1, 0.05);
  m.ObservePodScheduled(3, 12.5);
  m.QueueingHintExecutionDuration("NodeResourcesFit", "NodeAdd", HintResult::kQueue)
      .Observe(0.00002);
  m.InflightEvents(kPodPoppedInflightEvent).Set(1);
  m.PermitWaitDuration(Code::kSuccess).Observe(0.01);
  m.PreemptionAttempts().Increment();
  m.PreemptionVictims().Observe(2);
  if (prometheus::Histogram* h = m.PreemptionGoroutinesDuration(GoroutineResult::kSuccess)) {
    h->Observe(0.2);
  }
  m.PreemptionGoroutinesExecution(GoroutineResult::kSuccess).Increment();
  m.Goroutines(kBindingOperation).Set(1);
  m.CacheSize(CacheType::kNodes).Set(12);
  m.CacheSize(CacheType::kPods).Set(40);
  m.VolumeBinderCacheRequests("add").Increment();
  m.VolumeSchedulingStageErrors("bind").Increment();
  m.CountDraBindingConditionsAllocation("default-scheduler", "gpu.example.com", "success");
  m.ObserveDraBindingConditionsWait("default-scheduler", "gpu.example.com", "success", 3.5);
  m.CountResourceClaimCreate(true);
  le.SetLeading("ksched", true);
  le.IncSlowpath("ksched");
}

struct PromtoolResult {
  bool available = false;
  int exit_code = -1;
  std::string output;  // stdout and stderr of promtool
};

// Pipes `exposition` into `promtool check metrics`. Lint findings (such as
// a counter without _total) make promtool exit non-zero.
inline PromtoolResult RunPromtool(const std::string& exposition) {
  PromtoolResult r;
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) return r;
  r.available = true;
  char dir_template[] = "/tmp/ksched-promtool-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return r;
  const std::string in = std::string(dir) + "/metrics.txt";
  const std::string out = std::string(dir) + "/out.txt";
  {
    std::ofstream f(in, std::ios::binary);
    f << exposition;
  }
  int rc = std::system(("promtool check metrics < " + in + " > " + out + " 2>&1").c_str());
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream f(out);
  r.output.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(dir);
  return r;
}

}  // namespace ksched::metrics::testing
