// RunWorkload: executes one scheduler_perf workload against a fresh
// Cluster (in process or end to end) and measures its collectMetrics
// createPods ops the way scheduler_perf does.
//
// Ops run in order. createNodes / createNamespaces create their objects
// (names are generateName plus a counter, so runs are reproducible; nodes
// get kubernetes.io/hostname = name as scheduler_perf's node preparer gives
// them);
// createPods creates its namespace if needed, then its pods, and unless
// skipWaitToCompletion waits until every one is bound; churn (mode create)
// starts a thread creating one object of each template every interval until
// the workload ends; barrier waits for every pod created so far outside
// churn; sleep sleeps. After the last op every non-churn namespace's pods are
// read back (CountBoundPods) and must all carry a node, except the pods
// preemption evicted: the pods missing must not outnumber the victims the
// scheduler counted (scheduler_preemption_victims). They may be fewer: a
// preemptor retried before its nomination reaches the informer may choose a
// victim already terminating, which the metric counts again, as
// kube-scheduler's does. The result's `verified` says so, and `error` gives
// every namespace's count when it does not hold. A workload whose pods get
// ResourceClaims is verified only when every such pod's claims are
// allocated on its node, no device twice (Cluster::CheckResourceClaims).
// createAny and allocResourceClaims (DRA objects, dra_ops.h) run in process
// only.
// Workloads whose pod templates have different priorities may preempt: in
// process they run with the scheduler's API writes on.
//
// Measured for the collectMetrics ops, from just before their first pod is
// created until their last pod is bound: throughput samples, attempt latency
// (scheduler_scheduling_attempt_duration_seconds{result="scheduled"} delta),
// process CPU, time per extension point and per plugin (the framework's
// histograms; plugin durations are sampled by the framework as kube does),
// and the peak RSS of the whole workload.
//
// Thread-safety: one RunWorkload at a time per process (peak RSS is
// process-wide).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test/bench/cluster.h"
#include "test/bench/measure.h"
#include "test/bench/workload.h"

namespace ksched::bench {

// In process, end to end through kube-apiserver-lite, or against a real
// control plane with ksched or kube-scheduler as a separate process.
enum class Mode { kInProcess, kE2e, kK8s };
const char* ModeName(Mode mode);

struct RunOptions {
  Mode mode = Mode::kInProcess;
  ClusterOptions cluster;
  util::Duration sample_interval = std::chrono::seconds(1);
  // Longest wait for one createPods op's pods to be bound.
  util::Duration pod_timeout = std::chrono::minutes(10);
  // 0: a churn op starts a thread creating a round of its objects every
  // interval until the workload ends, as kube's scheduler_perf. N > 0: the
  // op creates N rounds at once and returns when the scheduler has attempted
  // every pod of them, so the work they cause does not depend on time (the
  // instruction count, insn_count).
  int64_t churn_rounds = 0;
  // The measured pods are created one at a time, each once the previous one
  // is bound and its binding cycle has ended: the threads then hand work to
  // each other in the same order every run (the instruction count), at the
  // price of the pipelining a burst of pods gets.
  bool one_pod_at_a_time = false;
  // > 0: open loop. The measured pods arrive at this rate (pods/s), each
  // created when its time comes whether or not earlier ones are bound, and
  // each pod's latency is measured (WorkloadResult::pod_latency_ms).
  double arrival_rate = 0;
  // Progress lines on stderr.
  bool verbose = true;
};

struct WorkloadResult {
  std::string workload;  // "SchedulingBasic/5000Nodes_10000Pods"
  std::string mode;
  std::string scheduler;  // "ksched" or "kube-scheduler"
  double threshold = 0;
  bool verified = false;
  std::string error;
  std::vector<std::string> ignored_feature_gates;

  int64_t nodes = 0;
  int64_t pods_created = 0;   // outside churn
  int64_t churn_created = 0;  // churn pods created
  int64_t churn_bound = 0;    // churn pods that got a node
  int64_t measured_pods = 0;
  int64_t measured_scheduled = 0;

  Summary throughput;              // per-sample pods/s
  std::vector<double> samples;     // pods/s
  double measure_seconds = 0;      // first create -> last bind
  double overall_pods_per_s = 0;   // measured_scheduled / measure_seconds
  double create_seconds = 0;       // how long creating the measured pods took

  // Attempt latency of the measured phase, seconds.
  HistogramSnapshot attempt_scheduled;
  // Open loop: each measured pod's time from its create request being sent
  // to the harness seeing it bound (the pod informer in k8s mode), ms, and
  // their percentiles; and the scheduler's own
  // scheduler_pod_scheduling_sli_duration_seconds of the measured phase.
  double arrival_rate = 0;
  std::vector<double> pod_latency_ms;
  Summary pod_latency;
  HistogramSnapshot sli;
  uint64_t attempts_unschedulable = 0;
  uint64_t attempts_error = 0;

  double cpu_seconds = 0;  // Cluster::SchedulerCpuSeconds during the measured phase
  double cpu_seconds_per_1000_pods = 0;
  // Cluster::ControlPlaneCpuSeconds during the measured phase (k8s mode).
  std::map<std::string, double> control_plane_cpu_seconds;
  int64_t peak_rss_kb = 0;  // Cluster::SchedulerPeakRssKb
  bool peak_rss_reset = false;  // whether VmHWM was reset at the start

  // Preemption in the measured phase: PostFilter runs, preemptions that
  // evicted pods (scheduler_preemption_victims samples), pods evicted, and
  // preemptions / measure_seconds.
  int64_t preemption_attempts = 0;
  int64_t preemptions = 0;
  int64_t preemption_victims = 0;
  double preemptions_per_s = 0;
  int64_t victims_total = 0;  // whole workload (the verification's count)
  int64_t pods_evicted = 0;   // pods missing at the end: evicted by preemption
  // Workloads with ResourceClaims, at the end (claim_check.h): pods with
  // claims, their claims (each allocated on the pod's node), devices
  // allocated in all.
  int64_t pods_with_claims = 0;
  int64_t claims_allocated = 0;
  int64_t devices_allocated = 0;

  LabeledTotals extension_points;  // extension_point -> time in the measured phase
  LabeledTotals plugins;           // plugin/extension_point -> sampled time
  double total_seconds = 0;        // whole workload
};

WorkloadResult RunWorkload(const Workload& workload, const RunOptions& options);

}  // namespace ksched::bench
