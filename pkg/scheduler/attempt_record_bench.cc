// The AttemptRecord's cost per scheduling cycle (what --explain-record-size
// adds): one cycle's observer calls, as SchedulingBasic at 5000 nodes makes
// them (Filter stops at 500 feasible nodes, 4 Score plugins), and as an
// unschedulable pod makes them (every node rejected, two reasons).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/attempt_record.h"
#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler {
namespace {

using framework::Code;
using framework::NodeInfo;
using framework::NodeInfoList;
using framework::NodeScoreList;
using framework::NodeToStatus;
using framework::Status;

struct Nodes {
  std::vector<std::unique_ptr<NodeInfo>> infos;
  NodeInfoList list;
  explicit Nodes(int n) {
    for (int i = 0; i < n; ++i) {
      infos.push_back(std::make_unique<NodeInfo>(framework::testing::MakeNode("node-" + std::to_string(i)).Obj()));
      list.push_back(infos.back().get());
    }
  }
};

void BM_RecordScheduledCycle(benchmark::State& state) {
  const int feasible = static_cast<int>(state.range(0));
  Nodes nodes(feasible);
  std::vector<std::string_view> plugins = {"TaintToleration", "NodeResourcesFit", "NodeResourcesBalancedAllocation",
                                           "ImageLocality"};
  std::vector<int64_t> weights = {3, 1, 1, 1};
  std::vector<NodeScoreList> scores(plugins.size());
  for (size_t j = 0; j < plugins.size(); ++j) {
    for (int i = 0; i < feasible; ++i) {
      scores[j].push_back({nodes.list[i]->node_name(), static_cast<int64_t>((i * 7 + j) % 101)});
    }
  }
  std::vector<int64_t> totals(static_cast<size_t>(feasible), 0);
  for (size_t j = 0; j < plugins.size(); ++j) {
    for (int i = 0; i < feasible; ++i) totals[static_cast<size_t>(i)] += scores[j][static_cast<size_t>(i)].score * weights[j];
  }
  util::RealClock& clock = util::RealClock::Get();
  AttemptRecord record(1000, AttemptRecord::kDefaultTopNodes, clock);
  std::vector<std::shared_ptr<const api::Pod>> pods;
  for (int i = 0; i < 2000; ++i) pods.push_back(framework::testing::MakePod("p" + std::to_string(i)).Obj());
  NodeToStatus none;
  std::vector<std::vector<int64_t>> raw(plugins.size());
  raw[0].resize(static_cast<size_t>(feasible));
  size_t k = 0;
  for (auto _ : state) {
    const api::Pod& pod = *pods[k++ % pods.size()];
    record.ObserveFilter(pod, nodes.list, none);
    // The framework keeps the raw scores of the plugins that normalize
    // (TaintToleration here) for an observer.
    for (size_t i = 0; i < raw[0].size(); ++i) raw[0][i] = scores[0][i].score;
    record.ObserveScores(pod, framework::CycleObserver::ScoreView{nodes.list, plugins, weights, scores, raw, totals});
    framework::CycleObserver::Outcome o;
    o.scheduled = true;
    o.node = nodes.list[0]->node_name();
    o.num_all_nodes = 5000;
    o.feasible_nodes = feasible;
    o.evaluated_nodes = feasible;
    record.ObserveOutcome(pod, o);
  }
}
BENCHMARK(BM_RecordScheduledCycle)->Arg(100)->Arg(500);

void BM_RecordUnschedulableCycle(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  NodeToStatus rejected;
  for (int i = 0; i < n; ++i) {
    Status s = i % 3 == 0 ? Status(Code::kUnschedulable, std::vector<std::string>{"Insufficient cpu", "Insufficient memory"})
                          : Status(Code::kUnschedulable, "node(s) had untolerated taint(s)");
    s.WithPlugin(i % 3 == 0 ? "NodeResourcesFit" : "TaintToleration");
    rejected.Set("node-" + std::to_string(i), std::move(s));
  }
  util::RealClock& clock = util::RealClock::Get();
  AttemptRecord record(1000, AttemptRecord::kDefaultTopNodes, clock);
  auto pod = framework::testing::MakePod("p").Obj();
  for (auto _ : state) {
    record.ObserveFilter(*pod, {}, rejected);
    framework::CycleObserver::Outcome o;
    o.unschedulable = true;
    o.num_all_nodes = n;
    o.message = "0/5000 nodes are available: ...";
    record.ObserveOutcome(*pod, o);
  }
}
BENCHMARK(BM_RecordUnschedulableCycle)->Arg(5000);

}  // namespace
}  // namespace ksched::scheduler

BENCHMARK_MAIN();
