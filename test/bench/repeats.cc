#include "test/bench/repeats.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace ksched::bench {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

nlohmann::json SummarizeRepeats(const nlohmann::json& results) {
  struct Group {
    std::string workload, mode, scheduler;
    double bar = 0;
    std::vector<double> pods, cpu;
    int reached = 0;
  };
  std::vector<Group> groups;
  for (const nlohmann::json& r : results) {
    const std::string workload = r.value("workload", "");
    const std::string mode = r.value("mode", "");
    const std::string scheduler = r.value("scheduler", "");
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.workload == workload && g.mode == mode && g.scheduler == scheduler;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{workload, mode, scheduler});
    const bool failed = !r.value("error", "").empty();
    const double pods = failed ? 0 : r["SchedulingThroughput"].value("Average", 0.0);
    it->bar = r.value("bar", 0.0);
    it->pods.push_back(pods);
    it->cpu.push_back(r.value("cpuSecondsPer1000Pods", 0.0));
    if (!failed && it->bar > 0 && pods >= it->bar) ++it->reached;
  }
  nlohmann::json out = nlohmann::json::array();
  for (Group& g : groups) {
    std::sort(g.pods.begin(), g.pods.end());
    out.push_back({{"workload", g.workload},
                   {"mode", g.mode},
                   {"scheduler", g.scheduler},
                   {"runs", g.pods.size()},
                   {"pods", g.pods},
                   {"median", Median(g.pods)},
                   {"min", g.pods.front()},
                   {"max", g.pods.back()},
                   {"cpuMedian", Median(g.cpu)},
                   {"bar", g.bar},
                   {"atOrAboveBar", g.reached}});
  }
  return out;
}

}  // namespace ksched::bench
