#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/state.h"
#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using framework::Code;
using framework::Status;
using testing::Exists;
using testing::MakeNode;
using testing::PodBuilder;
using testing::Spread;
using PodPtr = std::shared_ptr<const api::Pod>;
using NodePtr = std::shared_ptr<const api::Node>;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHost[] = "kubernetes.io/hostname";

struct ScoreCase {
  std::string name;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> pods;
  // Names of the nodes that passed Filter; every node when empty.
  std::vector<std::string> filtered;
  // Normalized scores of the filtered nodes; empty when PreScore must Skip.
  std::vector<int64_t> want;
  config::PluginArgs args = std::monostate{};
};

std::optional<std::vector<int64_t>> RunScore(const ScoreCase& c) {
  testing::FakeHandle handle;
  testing::AddControllers(handle.listers());
  handle.SetSnapshot(cache::Snapshot::FromObjects(c.pods, c.nodes));
  auto p = New(c.args, handle);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  framework::NodeInfoList filtered;
  if (c.filtered.empty()) {
    filtered = handle.snapshot().NodeInfos().List();
  } else {
    for (const std::string& n : c.filtered) filtered.push_back(*handle.snapshot().NodeInfos().Get(n));
  }
  framework::CycleState state;
  Status s = (*p)->PreScore(state, *c.pod, filtered);
  if (s.IsSkip()) return std::nullopt;
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
  framework::NodeScoreList scores;
  for (const framework::NodeInfo* ni : filtered) {
    auto [score, st] = (*p)->Score(state, *c.pod, *ni);
    EXPECT_TRUE(st.IsSuccess()) << st.ToString();
    // A copy of the NodeInfo is read from its labels: same score.
    const framework::NodeInfo clone = ni->Clone();
    EXPECT_EQ((*p)->Score(state, *c.pod, clone).first, score) << ni->node_name() << ": a copy of the NodeInfo";
    scores.push_back(framework::NodeScore{ni->node_name(), score});
  }
  EXPECT_TRUE((*p)->NormalizeScore(state, *c.pod, scores).IsSuccess());
  std::vector<int64_t> out;
  for (const auto& ns : scores) out.push_back(ns.score);
  return out;
}

std::vector<PodPtr> FooPods(const std::string& node, int count) {
  std::vector<PodPtr> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(PodBuilder(node + "-" + std::to_string(i)).Node(node).Label("foo", "").Obj());
  }
  return out;
}

std::vector<PodPtr> Concat(std::vector<std::vector<PodPtr>> parts) {
  std::vector<PodPtr> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<PodPtr> OwnedPods(const std::string& node, int count, const std::string& owner) {
  std::vector<PodPtr> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(PodBuilder(node + "-" + owner + std::to_string(i)).Node(node).Controller("apps/v1", "ReplicaSet", owner).Obj());
  }
  return out;
}

TEST(PodTopologySpreadScoreTest, Scores) {
  const Spread soft_node{.max_skew = 1, .key = "node", .when = "ScheduleAnyway", .selector = Exists("foo")};
  const Spread soft_zone{.max_skew = 1, .key = "zone", .when = "ScheduleAnyway", .selector = Exists("foo")};
  Spread honor_taints = soft_zone;
  honor_taints.node_taints_policy = "Honor";
  auto four = [] {
    return std::vector<NodePtr>{MakeNode("node-a", {{"node", "node-a"}}), MakeNode("node-b", {{"node", "node-b"}}),
                                MakeNode("node-c", {{"node", "node-c"}}), MakeNode("node-d", {{"node", "node-d"}})};
  };
  const std::vector<NodePtr> zoned = {
      MakeNode("node-a", {{kZone, "z1"}, {kHost, "node-a"}}), MakeNode("node-b", {{kZone, "z1"}, {kHost, "node-b"}}),
      MakeNode("node-c", {{kZone, "z2"}, {kHost, "node-c"}})};
  const std::vector<NodePtr> tainted_b = {
      MakeNode("node-a", {{"zone", "z1"}}), MakeNode("node-b", {{"zone", "z1"}}, {api::Taint{"t", "", "NoSchedule", {}}}),
      MakeNode("node-c", {{"zone", "z2"}})};
  PodTopologySpreadArgs list_args;
  list_args.defaulting_type = kListDefaulting;
  list_args.default_constraints.push_back(
      Spread{.max_skew = 1, .key = "zone", .when = "ScheduleAnyway"}.Obj());

  const std::vector<ScoreCase> cases = {
      {"no constraints: Skip", PodBuilder().Label("foo", "").Obj(), four(), {}, {}, {}},
      {"hard constraints only: Skip",
       PodBuilder().Label("foo", "").Spread({.max_skew = 1, .key = "node", .selector = Exists("foo")}).Obj(),
       four(), {}, {}, {}},
      {"one constraint on node, no existing pods",
       PodBuilder().Label("foo", "").Spread(soft_node).Obj(), four(), {}, {}, {100, 100, 100, 100}},
      {"one constraint on node, same number of matching pods everywhere",
       PodBuilder().Label("foo", "").Spread(soft_node).Obj(), four(),
       Concat({FooPods("node-a", 1), FooPods("node-b", 1), FooPods("node-c", 1), FooPods("node-d", 1)}), {},
       {100, 100, 100, 100}},
      {"one constraint on node, spread 2/1/0/3",
       PodBuilder().Label("foo", "").Spread(soft_node).Obj(), four(),
       Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-d", 3)}), {},
       // weight log(4+2); raw 4, 2, 0, 5.
       {20, 60, 100, 0}},
      {"only the filtered nodes are scored and weigh the topology",
       PodBuilder().Label("foo", "").Spread(soft_node).Obj(), four(),
       Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-d", 3)}), {"node-a", "node-b"},
       // weight log(2+2); raw round(2.77)=3 and round(1.39)=1.
       {33, 100}},
      {"pod's own constraint: nodes without the key score 0",
       PodBuilder().Label("foo", "").Spread(soft_zone).Obj(),
       {MakeNode("node-a", {{"zone", "z1"}}), MakeNode("node-b", {{"node", "node-b"}})},
       FooPods("node-a", 1), {}, {100, 0}},
      {"nodeTaintsPolicy Honor leaves the tainted node's pods out of its zone",
       PodBuilder().Label("foo", "").Spread(honor_taints).Obj(), tainted_b,
       Concat({FooPods("node-b", 2), FooPods("node-c", 1)}), {"node-a", "node-c"}, {100, 0}},
      {"nodeTaintsPolicy Ignore counts them",
       PodBuilder().Label("foo", "").Spread(soft_zone).Obj(), tainted_b,
       Concat({FooPods("node-b", 2), FooPods("node-c", 1)}), {"node-a", "node-c"}, {33, 100}},
      {"system defaults spread pods of the same ReplicaSet by hostname and zone",
       PodBuilder().Controller("apps/v1", "ReplicaSet", "rs1").Obj(), zoned,
       Concat({OwnedPods("node-a", 2, "rs1"), OwnedPods("node-b", 1, "rs2")}), {},
       // a: 2*log5+2 + 2*log4+4 = 12; b: 2 + 2*log4+4 = 9; c: 2 + 4 = 6.
       {50, 75, 100}},
      {"system defaults without a zone label still spread by hostname",
       PodBuilder().Controller("apps/v1", "ReplicaSet", "rs1").Obj(),
       {MakeNode("node-a", {{kZone, "z1"}, {kHost, "node-a"}}), MakeNode("node-b", {{kHost, "node-b"}})},
       OwnedPods("node-a", 1, "rs1"), {},
       // a: log4+2 + log4+4 = 9; b: 2.
       {22, 100}},
      {"system defaults need a Service or a ReplicationController, ReplicaSet or StatefulSet owner",
       PodBuilder().Controller("batch/v1", "Job", "job1").Obj(), zoned, OwnedPods("node-a", 2, "job1"), {}, {}},
      {"List defaults apply to every node key and skip nodes without it",
       PodBuilder().Controller("v1", "ReplicationController", "rc1").Obj(),
       {MakeNode("node-a", {{"zone", "z1"}}), MakeNode("node-b", {{"zone", "z2"}}), MakeNode("node-c", {})},
       {PodBuilder("x").Node("node-a").Controller("v1", "ReplicationController", "rc1").Obj()}, {},
       // weight log(2+2); a: round(1.39) = 1, b: 0, c ignored.
       {0, 100, 0}, list_args},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::optional<std::vector<int64_t>> got = RunScore(c);
    if (c.want.empty()) {
      EXPECT_FALSE(got.has_value());
      continue;
    }
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, c.want);
  }
}

// The system defaults read the handle's listers: a pod that only a Service
// selects spreads against the Service's pods, and a Service added between
// cycles changes what the next cycle counts.
TEST(PodTopologySpreadScoreTest, SystemDefaultsFollowServices) {
  testing::FakeHandle handle;
  auto web = [](const std::string& name, const std::string& node) {
    return PodBuilder(name).Node(node).Label("app", "web").Obj();
  };
  handle.SetSnapshot(cache::Snapshot::FromObjects(
      {web("w1", "a"), web("w2", "a"), PodBuilder("o1").Node("b").Label("app", "other").Obj()},
      {MakeNode("a", {{kZone, "z1"}, {kHost, "a"}}), MakeNode("b", {{kZone, "z2"}, {kHost, "b"}})}));
  auto p = *New(std::monostate{}, handle);
  PodPtr pod = PodBuilder("new").Label("app", "web").Obj();
  const framework::NodeInfoList& all = handle.snapshot().NodeInfos().List();
  framework::CycleState before;
  EXPECT_TRUE(p->PreScore(before, *pod, all).IsSkip()) << "nothing selects the pod yet";

  auto service = std::make_shared<api::Service>();
  service->metadata.name = "web";
  service->spec.selector = api::StringMap{{"app", "web"}};
  handle.listers().services.Set(service);
  framework::CycleState state;
  ASSERT_TRUE(p->PreScore(state, *pod, all).IsSuccess());
  framework::NodeScoreList scores;
  for (const framework::NodeInfo* ni : all) {
    auto [score, st] = p->Score(state, *pod, *ni);
    ASSERT_TRUE(st.IsSuccess()) << st.ToString();
    scores.push_back(framework::NodeScore{ni->node_name(), score});
  }
  ASSERT_TRUE(p->NormalizeScore(state, *pod, scores).IsSuccess());
  std::map<std::string, int64_t> by_node;
  for (const framework::NodeScore& s : scores) by_node[std::string(s.name)] = s.score;
  EXPECT_EQ(by_node["b"], 100) << "b runs no web pod";
  EXPECT_LT(by_node["a"], 100);
}

TEST(PodTopologySpreadScoreTest, PreScoreStateAndRawScores) {
  testing::FakeHandle handle;
  handle.SetSnapshot(cache::Snapshot::FromObjects(
      Concat({FooPods("a", 2), FooPods("c", 1)}),
      {MakeNode("a", {{"zone", "z1"}, {kHost, "a"}}), MakeNode("b", {{"zone", "z1"}, {kHost, "b"}}),
       MakeNode("c", {{"zone", "z2"}, {kHost, "c"}})}));
  auto p = *New(std::monostate{}, handle);
  PodPtr pod = PodBuilder()
                   .Label("foo", "")
                   .Spread({.max_skew = 2, .key = "zone", .when = "ScheduleAnyway", .selector = Exists("foo")})
                   .Spread({.max_skew = 1, .key = kHost, .when = "ScheduleAnyway", .selector = Exists("foo")})
                   .Obj();
  framework::CycleState state;
  ASSERT_TRUE(p->PreScore(state, *pod, handle.snapshot().NodeInfos().List()).IsSuccess());
  auto s = state.Get<PreScoreState>(kPreScoreStateKey);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->value_counts.size(), 2u);
  EXPECT_EQ(s->scored_domains, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(s->Count(0, "z1"), 2);
  EXPECT_EQ(s->Count(0, "z2"), 1);
  EXPECT_EQ(s->Count(0, "z9"), 0);
  EXPECT_TRUE(s->value_counts[1].empty()) << "hostname counts are taken per node in Score";
  EXPECT_EQ(s->indexes[1], nullptr);
  EXPECT_TRUE(s->ignored_nodes.empty());
  EXPECT_TRUE(s->ignored_slots.empty());
  EXPECT_DOUBLE_EQ(s->normalizing_weights[0], std::log(4.0));
  EXPECT_DOUBLE_EQ(s->normalizing_weights[1], std::log(5.0));
  // a: 2*log4 + 1 + 2*log5 + 0 = 6.99 -> 7.
  EXPECT_EQ(p->Score(state, *pod, **handle.snapshot().NodeInfos().Get("a")).first, 7);
  // b: 2*log4 + 1 = 3.77 -> 4.
  EXPECT_EQ(p->Score(state, *pod, **handle.snapshot().NodeInfos().Get("b")).first, 4);
  EXPECT_EQ(state.Clone()->Get<PreScoreState>(kPreScoreStateKey), s);

  framework::CycleState empty;
  EXPECT_EQ(p->Score(empty, *pod, **handle.snapshot().NodeInfos().Get("a")).second.code(), Code::kError);
  framework::NodeScoreList scores;
  EXPECT_EQ(p->NormalizeScore(empty, *pod, scores).code(), Code::kError);
}

TEST(PodTopologySpreadScoreTest, DomainsOfScoredNodesWithMissingKeys) {
  // System defaults (no key required): nodes without a zone label form the
  // zone domain "" -- together with a node labelled zone="" -- for the
  // weight, but score nothing for the zone.
  testing::FakeHandle handle;
  testing::AddControllers(handle.listers());
  auto rs = [](const std::string& name, const std::string& node) {
    return PodBuilder(name).Node(node).Controller("apps/v1", "ReplicaSet", "rs1").Obj();
  };
  handle.SetSnapshot(cache::Snapshot::FromObjects(
      {rs("p1", "a"), rs("p2", "b"), rs("p3", "c"), rs("p4", "c")},
      {MakeNode("a", {{kZone, "z1"}, {kHost, "a"}}), MakeNode("b", {{kHost, "b"}}), MakeNode("c", {{kHost, "c"}}),
       MakeNode("d", {{kZone, ""}, {kHost, "d"}})}));
  auto p = *New(std::monostate{}, handle);
  PodPtr pod = PodBuilder("new").Controller("apps/v1", "ReplicaSet", "rs1").Obj();
  const framework::NodeInfoList& all = handle.snapshot().NodeInfos().List();
  const framework::NodeInfo* node_b = *handle.snapshot().NodeInfos().Get("b");
  const framework::NodeInfo* node_c = *handle.snapshot().NodeInfos().Get("c");
  framework::CycleState state;
  ASSERT_TRUE(p->PreScore(state, *pod, all).IsSuccess());
  auto s = state.Get<PreScoreState>(kPreScoreStateKey);
  ASSERT_EQ(s->constraints.size(), 2u);
  const size_t zone = s->constraints[0].topology_key == kZone ? 0 : 1;
  EXPECT_EQ(s->scored_domains[zone], 2u) << "z1 and \"\"";
  EXPECT_EQ(s->scored_domains[1 - zone], 4u);
  EXPECT_EQ(s->Count(zone, ""), 3) << "b, c and d";
  EXPECT_TRUE(s->ignored_nodes.empty());
  // Only b and c scored: just "" (never interned as a label of theirs).
  framework::CycleState only_unlabelled;
  ASSERT_TRUE(p->PreScore(only_unlabelled, *pod, {node_b, node_c}).IsSuccess());
  auto s2 = only_unlabelled.Get<PreScoreState>(kPreScoreStateKey);
  EXPECT_EQ(s2->scored_domains[zone], 1u);
  // The same nodes as copies (not in the counted list): the same domains.
  const framework::NodeInfo b = node_b->Clone();
  const framework::NodeInfo c = node_c->Clone();
  framework::CycleState copies;
  ASSERT_TRUE(p->PreScore(copies, *pod, {&b, &c}).IsSuccess());
  EXPECT_EQ(copies.Get<PreScoreState>(kPreScoreStateKey)->scored_domains, s2->scored_domains);
  // A node's own constraints require every key: b and c are ignored.
  PodPtr own = PodBuilder("own")
                   .Controller("apps/v1", "ReplicaSet", "rs1")
                   .Spread({.max_skew = 1, .key = kZone, .when = "ScheduleAnyway", .selector = Exists("x")})
                   .Obj();
  framework::CycleState own_state;
  ASSERT_TRUE(p->PreScore(own_state, *own, all).IsSuccess());
  auto s3 = own_state.Get<PreScoreState>(kPreScoreStateKey);
  EXPECT_EQ(s3->ignored_nodes.size(), 2u);
  EXPECT_EQ(s3->scored_domains[0], 2u) << "z1 and the labelled \"\"";
  EXPECT_EQ(p->Score(own_state, *own, *node_b).first, 0);
  EXPECT_EQ(p->Score(own_state, *own, b).first, 0) << "ignored by name when not found by slot";
}

TEST(PodTopologySpreadScoreTest, PreScoreSkipsWithoutNodes) {
  testing::FakeHandle handle;
  auto p = *New(std::monostate{}, handle);
  framework::CycleState state;
  PodPtr pod = PodBuilder().Spread({.max_skew = 1, .key = "zone", .when = "ScheduleAnyway"}).Obj();
  EXPECT_EQ(p->PreScore(state, *pod, {}).code(), Code::kSkip);
}

TEST(PodTopologySpreadScoreTest, NormalizeScoreWithIgnoredNodes) {
  testing::FakeHandle handle;
  auto p = *New(std::monostate{}, handle);
  framework::CycleState state;
  auto s = std::make_shared<PreScoreState>();
  s->ignored_nodes.insert("ignored");
  state.Write(kPreScoreStateKey, s);
  PodPtr pod = PodBuilder().Obj();
  framework::NodeScoreList scores = {{"a", 10}, {"ignored", 0}, {"b", 4}, {"c", 6}};
  ASSERT_TRUE(p->NormalizeScore(state, *pod, scores).IsSuccess());
  // 100 * (max + min - s) / max with max 10, min 4.
  EXPECT_EQ(scores[0].score, 40);
  EXPECT_EQ(scores[1].score, 0);
  EXPECT_EQ(scores[2].score, 100);
  EXPECT_EQ(scores[3].score, 80);
  framework::NodeScoreList zeros = {{"a", 0}, {"ignored", 0}};
  ASSERT_TRUE(p->NormalizeScore(state, *pod, zeros).IsSuccess());
  EXPECT_EQ(zeros[0].score, 100);
  EXPECT_EQ(zeros[1].score, 0);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
