// Repeated runs (scheduler_perf --repeat N): one line per workload and mode
// over its N runs, because a single full-size run measures for a few
// seconds and this project's machines drift by up to 2x within minutes.
//
// SummarizeRepeats takes the harness's result objects (each with
// "workload", "mode", "scheduler" (k8s mode), "bar", "error", "SchedulingThroughput".Average and
// "cpuSecondsPer1000Pods") and returns, in order of first appearance, one
// object per (workload, mode, scheduler): "runs", the runs' average pods/s sorted
// ascending ("pods"), their "median", "min" and "max", the median CPU
// seconds per 1000 pods ("cpuMedian"), the "bar" and how many runs reached it
// ("atOrAboveBar"; failed runs count as misses). The median of an even
// count is the mean of the middle two.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace ksched::bench {

nlohmann::json SummarizeRepeats(const nlohmann::json& results);

// The median of `v` (0 when empty; the mean of the middle two when even).
double Median(std::vector<double> v);

}  // namespace ksched::bench
