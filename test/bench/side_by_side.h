// The side-by-side report of k8s-mode runs (scheduler_perf --mode k8s
// --scheduler both): ksched and kube-scheduler on the same real control
// plane, alternated, a fresh control plane per run.
//
// SideBySideRecords turns the harness's result objects (mode "k8s") into one
// flat record per run: workload, scheduler, repeat, pods_per_s
// (SchedulingThroughput's Average, as upstream reports it), cpu_s_per_1k
// (the scheduler process), peak_rss_mib (the scheduler process),
// apiserver_cpu_s_per_1k and etcd_cpu_s_per_1k, attempt_p50_ms and
// attempt_p99_ms (each scheduler's own
// scheduler_scheduling_attempt_duration_seconds), in open-loop runs
// (--arrival-rate) arrival_rate, latency_p50/p90/p99_ms (each pod's create
// to bound) and sli_p50/p90/p99_ms (each scheduler's
// scheduler_pod_scheduling_sli_duration_seconds), and error ("" when the
// run verified). Per 1,000 pods means per 1,000 pods scheduled in the measured
// phase. SideBySideSummary gives, per workload in order of appearance, each
// scheduler's medians over its successful runs and the ratios
// ksched / kube-scheduler the targets are stated in.
#pragma once

#include <nlohmann/json.hpp>

namespace ksched::bench {

nlohmann::json SideBySideRecords(const nlohmann::json& results);
nlohmann::json SideBySideSummary(const nlohmann::json& records);

}  // namespace ksched::bench
