#include "test/bench/side_by_side.h"

#include <map>
#include <string>
#include <vector>

#include "test/bench/repeats.h"

namespace ksched::bench {

using nlohmann::json;

json SideBySideRecords(const json& results) {
  json out = json::array();
  for (const json& r : results) {
    if (r.value("mode", "") != "k8s") continue;
    const double pods = static_cast<double>(r.value("measuredScheduled", int64_t{0}));
    auto per_1k = [&](double seconds) { return pods > 0 ? seconds * 1000.0 / pods : 0.0; };
    const json cp = r.value("controlPlaneCpuSeconds", json::object());
    const json lat = r.value("PodLatency", json::object());
    const json sli = r.value("SchedulingSLI", json::object());
    std::string error = r.value("error", "");
    if (error.empty() && !r.value("verified", false)) error = "not verified";
    out.push_back({{"workload", r.value("workload", "")},
                   {"scheduler", r.value("scheduler", "")},
                   {"repeat", r.value("repeat", 1)},
                   {"pods_per_s", r["SchedulingThroughput"].value("Average", 0.0)},
                   {"cpu_s_per_1k", r.value("cpuSecondsPer1000Pods", 0.0)},
                   {"peak_rss_mib", r.value("peakRssMiB", 0.0)},
                   {"apiserver_cpu_s_per_1k", per_1k(cp.value("kube-apiserver", 0.0))},
                   {"etcd_cpu_s_per_1k", per_1k(cp.value("etcd", 0.0))},
                   {"attempt_p50_ms", r["SchedulingAttemptDuration"].value("Perc50", 0.0)},
                   {"attempt_p99_ms", r["SchedulingAttemptDuration"].value("Perc99", 0.0)},
                   {"arrival_rate", lat.value("arrivalRate", 0.0)},
                   {"latency_p50_ms", lat.value("Perc50", 0.0)},
                   {"latency_p90_ms", lat.value("Perc90", 0.0)},
                   {"latency_p99_ms", lat.value("Perc99", 0.0)},
                   {"sli_p50_ms", sli.value("Perc50", 0.0)},
                   {"sli_p90_ms", sli.value("Perc90", 0.0)},
                   {"sli_p99_ms", sli.value("Perc99", 0.0)},
                   {"error", error}});
  }
  return out;
}

json SideBySideSummary(const json& records) {
  static const std::vector<std::string> kFields = {"pods_per_s",    "cpu_s_per_1k",      "peak_rss_mib",
                                                   "apiserver_cpu_s_per_1k", "etcd_cpu_s_per_1k",
                                                   "attempt_p50_ms", "attempt_p99_ms", "latency_p50_ms",
                                                   "latency_p90_ms", "latency_p99_ms", "sli_p50_ms",
                                                   "sli_p90_ms", "sli_p99_ms"};
  std::vector<std::string> workloads;
  // workload -> scheduler -> field -> values of successful runs; and runs.
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<double>>>> values;
  std::map<std::string, std::map<std::string, std::pair<int, int>>> runs;  // (runs, failed)
  for (const json& r : records) {
    const std::string w = r.value("workload", "");
    const std::string s = r.value("scheduler", "");
    if (values.count(w) == 0) workloads.push_back(w);
    auto& counts = runs[w][s];
    ++counts.first;
    auto& fields = values[w][s];
    if (!r.value("error", "").empty()) {
      ++counts.second;
      continue;
    }
    for (const std::string& f : kFields) fields[f].push_back(r.value(f, 0.0));
  }
  json out = json::array();
  for (const std::string& w : workloads) {
    json entry = {{"workload", w}};
    for (const auto& [s, fields] : values[w]) {
      json medians = {{"runs", runs[w][s].first}, {"failed", runs[w][s].second}};
      for (const std::string& f : kFields) {
        auto it = fields.find(f);
        medians[f] = it == fields.end() ? 0.0 : Median(it->second);
      }
      entry[s] = medians;
    }
    if (entry.contains("ksched") && entry.contains("kube-scheduler")) {
      const json& k = entry["ksched"];
      const json& u = entry["kube-scheduler"];
      auto ratio = [&](const std::string& f) {
        const double d = u[f].get<double>();
        return d > 0 ? k[f].get<double>() / d : 0.0;
      };
      entry["ratio"] = {{"pods_per_s", ratio("pods_per_s")},
                        {"cpu_s_per_1k", ratio("cpu_s_per_1k")},
                        {"peak_rss_mib", ratio("peak_rss_mib")},
                        {"apiserver_cpu_s_per_1k", ratio("apiserver_cpu_s_per_1k")},
                        {"latency_p50_ms", ratio("latency_p50_ms")},
                        {"latency_p99_ms", ratio("latency_p99_ms")}};
    }
    out.push_back(entry);
  }
  return out;
}

}  // namespace ksched::bench
