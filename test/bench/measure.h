// What scheduler_perf measures, and how:
//   - ThroughputCollector: samples a scheduled-pod count every `interval`
//     (scheduler_perf: 1 s) on its own thread; each sample is the pods
//     scheduled during the interval divided by its length. Sampling starts
//     with the first scheduled pod; the last, partial interval is kept when
//     it is at least a tenth of `interval` long or is the only sample (a
//     run shorter than one interval still yields one). Summary() gives the average of the
//     samples and scheduler_perf's percentiles (sorted[ceil(n*p/100)-1]).
//   - HistogramSnapshot: one histogram family of a prometheus registry,
//     buckets summed over the children whose labels match; the difference
//     of two snapshots isolates a phase, and Quantile interpolates linearly
//     inside a bucket as histogram_quantile does.
//   - Process CPU (getrusage) and peak RSS (/proc/self/status VmHWM, reset
//     through /proc/self/clear_refs so each workload gets its own peak).
//
// Thread-safety: ThroughputCollector's Start/Stop from one thread; the rest
// are free functions or value types.
#pragma once

#include <prometheus/metric_family.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/util/clock.h"

namespace ksched::bench {

struct Summary {
  double average = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  size_t samples = 0;
};

// scheduler_perf's percentile of sorted samples (0 when empty).
Summary Summarize(std::vector<double> samples);

class ThroughputCollector {
 public:
  ThroughputCollector(std::function<int64_t()> count, util::Duration interval);
  ~ThroughputCollector();
  void Start();
  // Stops sampling (taking the final partial sample) and returns the
  // samples in pods/s.
  std::vector<double> Stop();

 private:
  void Loop(int64_t base, std::chrono::steady_clock::time_point start);

  const std::function<int64_t()> count_;
  const util::Duration interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::vector<double> samples_;
  std::thread thread_;
};

struct HistogramSnapshot {
  std::vector<double> upper_bounds;       // finite bounds, ascending
  std::vector<uint64_t> cumulative;       // per bound, plus +Inf last
  uint64_t count = 0;
  double sum = 0;

  HistogramSnapshot operator-(const HistogramSnapshot& earlier) const;
  // q in [0,1]; 0 when empty. Values in the +Inf bucket report the largest
  // finite bound.
  double Quantile(double q) const;
  double Mean() const { return count == 0 ? 0 : sum / static_cast<double>(count); }
};

// Metric families as a registry's Collect() or a scrape gives them.
using Families = std::vector<prometheus::MetricFamily>;

// The family `name`, children whose labels include every entry of `match`.
HistogramSnapshot TakeHistogram(const Families& families, const std::string& name,
                                const std::map<std::string, std::string>& match = {});
// The sum of a counter family's children (0 when absent).
double CounterTotal(const Families& families, const std::string& name);

// Sum and count of a histogram family grouped by the values of `labels`
// (joined with '/', e.g. "NodeResourcesFit/Filter").
struct LabeledTotal {
  double sum = 0;
  uint64_t count = 0;
};
using LabeledTotals = std::map<std::string, LabeledTotal>;
LabeledTotals HistogramTotalsBy(const Families& families, const std::string& name,
                                const std::vector<std::string>& labels);
// after - before, per key.
LabeledTotals Subtract(const LabeledTotals& after, const LabeledTotals& before);

// User + system CPU seconds of this process so far.
double ProcessCpuSeconds();
// The same for another process, from /proc/PID/stat (0 if unreadable).
double ProcessCpuSeconds(int pid);
// VmHWM in KiB (0 if unreadable), of this process or of `pid`.
int64_t PeakRssKb();
int64_t PeakRssKb(int pid);
// VmRSS in KiB (0 if unreadable).
int64_t CurrentRssKb();
// Resets VmHWM to the current RSS; false when the kernel refuses.
bool ResetPeakRss();

}  // namespace ksched::bench
