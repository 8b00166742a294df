// One plugin kept across many cycles (its counters and NodeSlots updated
// incrementally, NodeInfos changed in place as the scheduler's snapshot
// does) must agree, every cycle, with a fresh plugin (everything counted
// from scratch) and with the label path (NodeInfo copies).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using testing::MakeNode;
using testing::MatchLabels;
using testing::MutableSnapshot;
using testing::PodBuilder;
using testing::Spread;

api::StringMap Labels(const std::string& name, int zone) {
  api::StringMap labels = {{"kubernetes.io/hostname", name}};
  if (zone >= 0) labels["topology.kubernetes.io/zone"] = "z" + std::to_string(zone);
  return labels;
}

TEST(PodTopologySpreadIncrementalTest, KeptPluginAgreesWithFreshOneAcrossCycles) {
  MutableSnapshot snapshot;
  int created = 0;
  auto add_node = [&](int zone) {
    const std::string name = "n" + std::to_string(created++);
    snapshot.Add(MakeNode(name, Labels(name, zone)));
  };
  for (int i = 0; i < 30; ++i) add_node(i % 10 == 9 ? -1 : i % 3);

  testing::FakeHandle handle;
  handle.SetLister(&snapshot);
  testing::AddControllers(handle.listers());
  auto kept = *New(std::monostate{}, handle);
  const auto blue = MatchLabels({{"color", "blue"}});
  // Hard zone spreading plus soft hostname spreading; and a pod under the
  // System defaults (soft hostname and zone, no key required).
  auto own = PodBuilder("own")
                 .Label("color", "blue")
                 .Spread({.max_skew = 1, .key = "topology.kubernetes.io/zone", .selector = blue})
                 .Spread({.max_skew = 2, .key = "kubernetes.io/hostname", .when = "ScheduleAnyway", .selector = blue})
                 .Spread({.max_skew = 1, .key = "topology.kubernetes.io/zone", .when = "ScheduleAnyway", .selector = blue})
                 .Obj();
  auto defaulted = PodBuilder("defaulted").Controller("apps/v1", "ReplicaSet", "rs").Obj();

  for (int cycle = 0; cycle < 40; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    auto fresh = *New(std::monostate{}, handle);
    const framework::NodeInfoList& nodes = snapshot.List();

    framework::CycleState kept_state;
    framework::CycleState fresh_state;
    ASSERT_TRUE(kept->PreFilter(kept_state, *own, nodes).second.IsSuccess());
    ASSERT_TRUE(fresh->PreFilter(fresh_state, *own, nodes).second.IsSuccess());
    for (const framework::NodeInfo* ni : nodes) {
      const framework::Status want = fresh->Filter(fresh_state, *own, *ni);
      EXPECT_EQ(kept->Filter(kept_state, *own, *ni), want) << ni->node_name();
      const framework::NodeInfo copy = ni->Clone();
      EXPECT_EQ(kept->Filter(kept_state, *own, copy), want) << ni->node_name() << " (copy)";
    }

    // Every other node, from a moving start, passed Filter.
    framework::NodeInfoList feasible;
    for (size_t i = cycle % 2; i < nodes.size(); i += 2) feasible.push_back(nodes[i]);
    for (const auto& pod : {own, defaulted}) {
      framework::CycleState k;
      framework::CycleState f;
      ASSERT_TRUE(kept->PreScore(k, *pod, feasible).IsSuccess());
      ASSERT_TRUE(fresh->PreScore(f, *pod, feasible).IsSuccess());
      framework::NodeScoreList kept_scores;
      framework::NodeScoreList fresh_scores;
      for (const framework::NodeInfo* ni : feasible) {
        const int64_t want = fresh->Score(f, *pod, *ni).first;
        EXPECT_EQ(kept->Score(k, *pod, *ni).first, want) << pod->metadata.name << " on " << ni->node_name();
        const framework::NodeInfo copy = ni->Clone();
        EXPECT_EQ(kept->Score(k, *pod, copy).first, want) << pod->metadata.name << " on a copy of " << ni->node_name();
        kept_scores.push_back({ni->node_name(), want});
        fresh_scores.push_back({ni->node_name(), want});
      }
      ASSERT_TRUE(kept->NormalizeScore(k, *pod, kept_scores).IsSuccess());
      ASSERT_TRUE(fresh->NormalizeScore(f, *pod, fresh_scores).IsSuccess());
      for (size_t i = 0; i < kept_scores.size(); ++i) {
        EXPECT_EQ(kept_scores[i].score, fresh_scores[i].score) << kept_scores[i].name;
      }
    }

    // The cluster moves on: a matching pod lands every cycle (and the
    // defaulted pod's siblings every other one), a node changes or loses
    // its zone, nodes leave and join.
    framework::NodeInfo& target = snapshot.at((cycle * 7) % snapshot.size());
    target.AddPod(PodBuilder("p" + std::to_string(cycle)).Node(target.node_name()).Label("color", "blue").Obj());
    if (cycle % 2 == 0) {
      framework::NodeInfo& other = snapshot.at((cycle * 5 + 3) % snapshot.size());
      other.AddPod(PodBuilder("rs" + std::to_string(cycle))
                       .Node(other.node_name())
                       .Controller("apps/v1", "ReplicaSet", "rs")
                       .Obj());
    }
    if (cycle % 5 == 4) {
      framework::NodeInfo& relabelled = snapshot.at((cycle * 3) % snapshot.size());
      const std::string name = relabelled.node_name();
      relabelled.SetNode(MakeNode(name, Labels(name, cycle % 10 == 9 ? -1 : 3 + cycle % 2)));
    }
    if (cycle % 7 == 6) snapshot.Remove((cycle * 11) % snapshot.size());
    if (cycle % 6 == 5) add_node(cycle % 4 == 0 ? -1 : cycle % 3);
  }
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
