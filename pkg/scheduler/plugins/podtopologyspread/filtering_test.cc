#include <gtest/gtest.h>

#include <map>
#include <memory>
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
using testing::FourNodes;
using testing::MakeNode;
using testing::MatchLabels;
using testing::PodBuilder;
using testing::Spread;
using PodPtr = std::shared_ptr<const api::Pod>;
using NodePtr = std::shared_ptr<const api::Node>;

const Status kOk;
const Status kSkewFail(Code::kUnschedulable, std::string(kErrReasonConstraintsNotMatch));
const Status kLabelFail(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonNodeLabelNotMatch));

struct Env {
  Env(const std::vector<PodPtr>& pods, const std::vector<NodePtr>& nodes) {
    handle.SetSnapshot(cache::Snapshot::FromObjects(pods, nodes));
    auto p = New(std::monostate{}, handle);
    EXPECT_TRUE(p.ok());
    plugin = *p;
  }
  Status PreFilter(const api::Pod& pod) {
    return plugin->PreFilter(state, pod, handle.snapshot().NodeInfos().List()).second;
  }
  const framework::NodeInfo& Node(const std::string& name) { return **handle.snapshot().NodeInfos().Get(name); }
  // Filters the snapshot's NodeInfo (whose topology values PreFilter
  // recorded) and, expecting the same verdict, a copy of it (read from its
  // labels, like the clones made for nominated pods).
  Status Filter(const api::Pod& pod, const std::string& node) {
    Status got = plugin->Filter(state, pod, Node(node));
    const framework::NodeInfo clone = Node(node).Clone();
    EXPECT_EQ(plugin->Filter(state, pod, clone), got) << node << ": a copy of the NodeInfo";
    return got;
  }
  std::shared_ptr<PreFilterState> State() { return state.Get<PreFilterState>(kPreFilterStateKey); }

  testing::FakeHandle handle;
  std::shared_ptr<PodTopologySpread> plugin;
  framework::CycleState state;
};

// `count` pods labelled foo="" on `node`, named <node>-<i>.
std::vector<PodPtr> FooPods(const std::string& node, int count, const std::string& ns = "") {
  std::vector<PodPtr> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(PodBuilder(node + "-" + std::to_string(i)).Namespace(ns).Node(node).Label("foo", "").Obj());
  }
  return out;
}

std::vector<PodPtr> Concat(std::vector<std::vector<PodPtr>> parts) {
  std::vector<PodPtr> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

struct FilterCase {
  std::string name;
  PodPtr pod;
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> pods;
  std::map<std::string, Status> want;  // per node
};

TEST(PodTopologySpreadFilterTest, SingleConstraint) {
  const Spread zone1{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  const Spread node1{.max_skew = 1, .key = "node", .selector = Exists("foo")};
  Spread node2 = node1;
  node2.max_skew = 2;
  // Spreads 2/1/0/3 over the four nodes.
  const std::vector<PodPtr> spread_2103 = Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-y", 3)});
  Spread node_policy_ignore = node1;
  node_policy_ignore.node_affinity_policy = "Ignore";
  Spread zone_min3 = zone1;
  zone_min3.max_skew = 2;
  zone_min3.min_domains = 3;
  Spread zone_skew2 = zone1;
  zone_skew2.max_skew = 2;
  Spread honor_taints = node1;
  honor_taints.node_taints_policy = "Honor";
  const std::vector<NodePtr> x_tainted = {
      MakeNode("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
      MakeNode("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
      MakeNode("node-x", {{"zone", "zone2"}, {"node", "node-x"}}, {api::Taint{"dedicated", "", "NoSchedule", {}}}),
      MakeNode("node-y", {{"zone", "zone2"}, {"node", "node-y"}})};
  const std::vector<PodPtr> spread_1101 = Concat({FooPods("node-a", 1), FooPods("node-b", 1), FooPods("node-y", 1)});
  Spread with_keys = zone1;
  with_keys.match_label_keys = {"rev"};

  const std::vector<FilterCase> cases = {
      {"no existing pods",
       PodBuilder().Label("foo", "").Spread(zone1).Obj(),
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"no existing pods, incoming pod doesn't match itself",
       PodBuilder().Label("foo", "").Spread({.max_skew = 1, .key = "zone", .selector = Exists("bar")}).Obj(),
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"existing pods in a different namespace do not count",
       PodBuilder().Label("foo", "").Spread(zone1).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 1, "ns1"), FooPods("node-b", 1), FooPods("node-x", 2, "ns2"), FooPods("node-y", 2)}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkewFail}, {"node-y", kSkewFail}}},
      {"pods spread across zones as 2/2, all nodes fit",
       PodBuilder().Label("foo", "").Spread(zone1).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 1), FooPods("node-b", 1), FooPods("node-x", 1), FooPods("node-y", 1)}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"spread 1/2 because node-b has no zone label",
       PodBuilder().Label("foo", "").Spread(zone1).Obj(),
       {MakeNode("node-a", {{"zone", "zone1"}}), MakeNode("node-b", {{"node", "node-b"}}),
        MakeNode("node-x", {{"zone", "zone2"}}), MakeNode("node-y", {{"zone", "zone2"}})},
       Concat({FooPods("node-a", 1), FooPods("node-b", 2), FooPods("node-y", 2)}),
       {{"node-a", kOk}, {"node-b", kLabelFail}, {"node-x", kSkewFail}, {"node-y", kSkewFail}}},
      {"no node has the topology key",
       PodBuilder().Label("foo", "").Spread({.max_skew = 1, .key = "rack", .selector = Exists("foo")}).Obj(),
       FourNodes(),
       FooPods("node-a", 1),
       {{"node-a", kLabelFail}, {"node-b", kLabelFail}, {"node-x", kLabelFail}, {"node-y", kLabelFail}}},
      {"spread 2/1/0/3 across nodes, only node-x fits",
       PodBuilder().Label("foo", "").Spread(node1).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"spread 2/1/0/3 with maxSkew 2: node-b and node-x fit",
       PodBuilder().Label("foo", "").Spread(node2).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kSkewFail}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"spread 2/1/0/3, the pod doesn't match itself",
       PodBuilder().Label("bar", "").Spread(node1).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kSkewFail}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"node affinity (Honor) excludes node-b and node-x from the minimum",
       PodBuilder().Label("foo", "").NodeAffinityIn("node", {"node-a", "node-y"}).Spread(node1).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"nodeSelector (Honor) excludes node-b and node-x from the minimum",
       PodBuilder().Label("foo", "").NodeSelector("zone", "zone1").Spread(node1).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 2), FooPods("node-b", 1)}),
       {{"node-a", kSkewFail}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"nodeAffinityPolicy Ignore counts every node",
       PodBuilder().Label("foo", "").NodeAffinityIn("node", {"node-a", "node-y"}).Spread(node_policy_ignore).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"nodeTaintsPolicy Honor excludes the tainted node from the minimum",
       PodBuilder().Label("foo", "").Spread(honor_taints).Obj(),
       x_tainted,
       spread_1101,
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"nodeTaintsPolicy Honor counts the tainted node when tolerated",
       PodBuilder().Label("foo", "").Toleration("dedicated", "NoSchedule").Spread(honor_taints).Obj(),
       x_tainted,
       spread_1101,
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"nodeTaintsPolicy Ignore (default) counts the tainted node",
       PodBuilder().Label("foo", "").Spread(node1).Obj(),
       x_tainted,
       spread_1101,
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"terminating pods do not count",
       PodBuilder().Label("foo", "").Spread(zone1).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 1), FooPods("node-b", 1), FooPods("node-y", 1),
               {PodBuilder("gone").Node("node-x").Label("foo", "").Terminating().Obj(),
                PodBuilder("gone2").Node("node-y").Label("foo", "").Terminating().Obj()}}),
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kOk}}},
      {"spread 2/1 with maxSkew 2: both zones fit",
       PodBuilder().Label("foo", "").Spread(zone_skew2).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 2), FooPods("node-x", 1)}),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"minDomains 3 with 2 domains: the minimum counts as 0",
       PodBuilder().Label("foo", "").Spread(zone_min3).Obj(),
       FourNodes(),
       Concat({FooPods("node-a", 2), FooPods("node-x", 1)}),
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kOk}}},
      {"matchLabelKeys: only pods of the same revision count",
       PodBuilder().Label("foo", "").Label("rev", "1").Spread(with_keys).Obj(),
       FourNodes(),
       {PodBuilder("a1").Node("node-a").Label("foo", "").Label("rev", "1").Obj(),
        PodBuilder("b1").Node("node-b").Label("foo", "").Label("rev", "2").Obj(),
        PodBuilder("b2").Node("node-b").Label("foo", "").Label("rev", "2").Obj(),
        PodBuilder("y1").Node("node-y").Label("foo", "").Label("rev", "1").Obj(),
        PodBuilder("y2").Node("node-y").Label("foo", "").Label("rev", "1").Obj()},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkewFail}, {"node-y", kSkewFail}}},
      {"without matchLabelKeys every revision counts",
       PodBuilder().Label("foo", "").Label("rev", "1").Spread(zone1).Obj(),
       FourNodes(),
       {PodBuilder("a1").Node("node-a").Label("foo", "").Label("rev", "1").Obj(),
        PodBuilder("b1").Node("node-b").Label("foo", "").Label("rev", "2").Obj(),
        PodBuilder("b2").Node("node-b").Label("foo", "").Label("rev", "2").Obj(),
        PodBuilder("y1").Node("node-y").Label("foo", "").Label("rev", "1").Obj(),
        PodBuilder("y2").Node("node-y").Label("foo", "").Label("rev", "1").Obj()},
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kOk}}},
      {"an unset labelSelector selects nothing",
       PodBuilder().Label("foo", "").Spread({.max_skew = 1, .key = "node"}).Obj(),
       FourNodes(),
       spread_2103,
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(c.pods, c.nodes);
    ASSERT_TRUE(env.PreFilter(*c.pod).IsSuccess());
    for (const auto& [node, want] : c.want) {
      Status got = env.Filter(*c.pod, node);
      EXPECT_EQ(got, want) << node << ": " << got.ToString();
    }
  }
}

TEST(PodTopologySpreadFilterTest, MultipleConstraints) {
  const Spread zone{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  const Spread node{.max_skew = 1, .key = "node", .selector = Exists("foo")};
  const Spread node_bar{.max_skew = 1, .key = "node", .selector = Exists("bar")};
  struct Case {
    std::string name;
    PodPtr pod;
    std::vector<PodPtr> pods;
    std::map<std::string, Status> want;
  };
  const std::vector<Case> cases = {
      {"zone 3/3 and nodes 2/1/0/3: only node-x",
       PodBuilder().Label("foo", "").Spread(zone).Spread(node).Obj(),
       Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-y", 3)}),
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
      {"zone 1/4 and nodes 1/0/2/2: zone rules out zone2, node rules out node-a",
       PodBuilder().Label("foo", "").Spread(zone).Spread(node).Obj(),
       Concat({FooPods("node-a", 1), FooPods("node-x", 2), FooPods("node-y", 2)}),
       {{"node-a", kSkewFail}, {"node-b", kOk}, {"node-x", kSkewFail}, {"node-y", kSkewFail}}},
      {"different selectors per constraint",
       PodBuilder().Label("foo", "").Label("bar", "").Spread(zone).Spread(node_bar).Obj(),
       {PodBuilder("a1").Node("node-a").Label("foo", "").Obj(), PodBuilder("b1").Node("node-b").Label("bar", "").Obj()},
       // zone: zone1 1, zone2 0 -> zone2 only; node(bar): b 1 -> not b.
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kOk}}},
      {"soft constraints are ignored by Filter",
       PodBuilder()
           .Label("foo", "")
           .Spread({.max_skew = 1, .key = "zone", .when = "ScheduleAnyway", .selector = Exists("foo")})
           .Spread(node)
           .Obj(),
       Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-y", 3)}),
       {{"node-a", kSkewFail}, {"node-b", kSkewFail}, {"node-x", kOk}, {"node-y", kSkewFail}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(c.pods, FourNodes());
    ASSERT_TRUE(env.PreFilter(*c.pod).IsSuccess());
    for (const auto& [name, want] : c.want) {
      Status got = env.Filter(*c.pod, name);
      EXPECT_EQ(got, want) << name << ": " << got.ToString();
    }
  }
}

TEST(PodTopologySpreadFilterTest, PreFilterState) {
  const Spread zone{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  const Spread node{.max_skew = 1, .key = "node", .selector = Exists("foo")};
  Env env(Concat({FooPods("node-a", 2), FooPods("node-b", 1), FooPods("node-y", 4), FooPods("node-x", 1, "other")}),
          FourNodes());
  PodPtr pod = PodBuilder().Label("foo", "").Spread(zone).Spread(node).Obj();
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  auto s = env.State();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->constraints->size(), 2u);
  EXPECT_EQ(s->domains(0).Entries(), (std::map<std::string, int64_t>{{"zone1", 3}, {"zone2", 4}}));
  EXPECT_EQ(s->domains(0).min_match(), 3);
  EXPECT_EQ(s->domains(1).Entries(),
            (std::map<std::string, int64_t>{{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}}));
  EXPECT_EQ(s->domains(1).min_match(), 0);
  EXPECT_EQ(s->domains(1).num_domains(), 4);
  EXPECT_EQ((*s->self_match), (std::vector<uint8_t>{1, 1}));

  // An empty selector ({}) selects the pod itself but counts no pods (kube).
  Env empty(FooPods("node-a", 2), FourNodes());
  PodPtr p2 = PodBuilder().Label("foo", "").Spread({.max_skew = 1, .key = "zone", .selector = api::LabelSelector{}}).Obj();
  ASSERT_TRUE(empty.PreFilter(*p2).IsSuccess());
  EXPECT_EQ(empty.State()->domains(0).Entries(), (std::map<std::string, int64_t>{{"zone1", 0}, {"zone2", 0}}));
  EXPECT_EQ((*empty.State()->self_match)[0], 1);

  // No eligible domain: no minimum, nothing is skewed.
  Env none(FooPods("node-a", 2), {MakeNode("node-a", {{"zone", "zone1"}})});
  PodPtr p3 = PodBuilder().Label("foo", "").NodeSelector("zone", "zone9").Spread(zone).Obj();
  ASSERT_TRUE(none.PreFilter(*p3).IsSuccess());
  EXPECT_EQ(none.State()->domains(0).num_domains(), 0);
  EXPECT_EQ(none.State()->domains(0).min_match(), DomainMatches::kNoMinimum);
  EXPECT_EQ(none.Filter(*p3, "node-a"), kOk);
}

TEST(PodTopologySpreadFilterTest, PreFilterSkipsAndErrors) {
  Env env({}, FourNodes());
  EXPECT_EQ(env.PreFilter(*PodBuilder().Obj()).code(), Code::kSkip);
  EXPECT_EQ(
      env.PreFilter(*PodBuilder().Spread({.max_skew = 1, .key = "zone", .when = "ScheduleAnyway"}).Obj()).code(),
      Code::kSkip);
  api::LabelSelector bad;
  bad.match_expressions.push_back(api::LabelSelectorRequirement{"foo", "In", {"{{bad}}"}});
  Status s = env.PreFilter(*PodBuilder().Spread({.max_skew = 1, .key = "zone", .selector = bad}).Obj());
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message().rfind("get constraints from pod: ", 0), 0u) << s.Message();
  // Filter without PreFilter state.
  framework::CycleState empty;
  EXPECT_EQ(env.plugin->Filter(empty, *PodBuilder().Obj(), env.Node("node-a")).code(), Code::kError);
}

TEST(PodTopologySpreadFilterTest, AddPodAndRemovePod) {
  const Spread node{.max_skew = 1, .key = "node", .selector = Exists("foo")};
  const Spread zone{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  Env env(Concat({FooPods("node-a", 1), FooPods("node-x", 1)}), FourNodes());
  PodPtr pod = PodBuilder().Label("foo", "").Spread(zone).Spread(node).Obj();
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  // zone 1/1, nodes 1/0/1/0: node-b and node-y fit.
  EXPECT_EQ(env.Filter(*pod, "node-b"), kOk);
  EXPECT_EQ(env.Filter(*pod, "node-y"), kOk);

  auto on = [](const std::string& n, const std::string& name) {
    return std::make_shared<const framework::PodInfo>(PodBuilder(name).Node(n).Label("foo", "").Obj());
  };
  // Adding to node-b: zone 2/1 and nodes 1/1/1/0; only node-y fits.
  std::unique_ptr<framework::CycleState> added = env.state.Clone();
  ASSERT_TRUE(env.plugin->AddPod(*added, *pod, on("node-b", "nb"), env.Node("node-b")).IsSuccess());
  auto s = added->Get<PreFilterState>(kPreFilterStateKey);
  EXPECT_EQ(s->domains(0).Entries(), (std::map<std::string, int64_t>{{"zone1", 2}, {"zone2", 1}}));
  EXPECT_EQ(s->domains(1).min_match(), 0);
  EXPECT_EQ(env.plugin->Filter(*added, *pod, env.Node("node-b")), kSkewFail);
  EXPECT_EQ(env.plugin->Filter(*added, *pod, env.Node("node-y")), kOk);
  // The original state is unchanged.
  EXPECT_EQ(env.State()->domains(0).Entries(), (std::map<std::string, int64_t>{{"zone1", 1}, {"zone2", 1}}));
  EXPECT_EQ(env.Filter(*pod, "node-b"), kOk);

  // The last domain at the minimum moves up: the minimum follows.
  ASSERT_TRUE(env.plugin->AddPod(*added, *pod, on("node-y", "ny"), env.Node("node-y")).IsSuccess());
  EXPECT_EQ(s->domains(1).min_match(), 1);
  EXPECT_EQ(s->domains(0).min_match(), 2);
  // And down again on removal.
  ASSERT_TRUE(env.plugin->RemovePod(*added, *pod, on("node-y", "ny"), env.Node("node-y")).IsSuccess());
  EXPECT_EQ(s->domains(1).min_match(), 0);
  EXPECT_EQ(s->domains(0).min_match(), 1);

  // Pods of another namespace, not selected, or on a node outside the pod's
  // node affinity change nothing.
  std::unique_ptr<framework::CycleState> other = env.state.Clone();
  auto other_ns = std::make_shared<const framework::PodInfo>(
      PodBuilder("o").Namespace("ns1").Node("node-b").Label("foo", "").Obj());
  auto unselected = std::make_shared<const framework::PodInfo>(PodBuilder("u").Node("node-b").Label("bar", "").Obj());
  ASSERT_TRUE(env.plugin->AddPod(*other, *pod, other_ns, env.Node("node-b")).IsSuccess());
  ASSERT_TRUE(env.plugin->AddPod(*other, *pod, unselected, env.Node("node-b")).IsSuccess());
  EXPECT_EQ(other->Get<PreFilterState>(kPreFilterStateKey)->domains(1).Entries(),
            env.State()->domains(1).Entries());
  PodPtr picky = PodBuilder().Label("foo", "").NodeSelector("zone", "zone2").Spread(node).Obj();
  framework::CycleState picky_state;
  ASSERT_TRUE(env.plugin->PreFilter(picky_state, *picky, env.handle.snapshot().NodeInfos().List()).second.IsSuccess());
  ASSERT_TRUE(env.plugin->AddPod(picky_state, *picky, on("node-a", "na"), env.Node("node-a")).IsSuccess());
  EXPECT_EQ(picky_state.Get<PreFilterState>(kPreFilterStateKey)->domains(0).Entries(),
            (std::map<std::string, int64_t>{{"node-x", 1}, {"node-y", 0}}));

  // No state: an error.
  framework::CycleState empty;
  EXPECT_EQ(env.plugin->AddPod(empty, *pod, on("node-b", "x"), env.Node("node-b")).code(), Code::kError);
  EXPECT_EQ(env.plugin->RemovePod(empty, *pod, on("node-b", "x"), env.Node("node-b")).code(), Code::kError);
}

TEST(PodTopologySpreadFilterTest, CountsFollowTheSnapshotAcrossCycles) {
  // One plugin, several cycles: pods land, nodes churn (enough for the
  // counter to start afresh), counts always match the current snapshot.
  testing::FakeHandle handle;
  auto plugin = *New(std::monostate{}, handle);
  const Spread host{.max_skew = 1, .key = "node", .selector = Exists("foo")};
  PodPtr pod = PodBuilder().Label("foo", "").Spread(host).Obj();
  auto run = [&](const std::vector<PodPtr>& pods, const std::vector<NodePtr>& nodes) {
    handle.SetSnapshot(cache::Snapshot::FromObjects(pods, nodes));
    framework::CycleState state;
    EXPECT_TRUE(plugin->PreFilter(state, *pod, handle.snapshot().NodeInfos().List()).second.IsSuccess());
    return state.Get<PreFilterState>(kPreFilterStateKey)->domains(0).Entries();
  };
  std::vector<NodePtr> nodes;
  for (int i = 0; i < 1200; ++i) nodes.push_back(MakeNode("n" + std::to_string(i), {{"node", "n" + std::to_string(i)}}));
  EXPECT_EQ(run({}, nodes).size(), 1200u);
  auto with_pod = run(FooPods("n7", 2), nodes);
  EXPECT_EQ(with_pod["n7"], 2);
  std::vector<NodePtr> fresh;
  for (int i = 0; i < 10; ++i) fresh.push_back(MakeNode("m" + std::to_string(i), {{"node", "m" + std::to_string(i)}}));
  auto after_churn = run(FooPods("m3", 1), fresh);
  EXPECT_EQ(after_churn.size(), 10u);
  EXPECT_EQ(after_churn["m3"], 1);
  EXPECT_EQ(after_churn.count("n7"), 0u);
}

TEST(PodTopologySpreadFilterTest, DomainMatchesMinimumStaysExact) {
  // Random +-1 updates against a brute-force minimum.
  DomainMatches d;
  std::map<std::string, int64_t> truth;
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  for (int step = 0; step < 2000; ++step) {
    std::string value = "v" + std::to_string(next() % 7);
    int64_t delta = (truth.count(value) == 0 || truth[value] == 0 || next() % 2 == 0) ? 1 : -1;
    d.Add(value, delta);
    truth[value] += delta;
    int64_t min = DomainMatches::kNoMinimum;
    for (const auto& [v, c] : truth) min = std::min(min, c);
    ASSERT_EQ(d.min_match(), min) << step;
    ASSERT_EQ(d.num_domains(), static_cast<int32_t>(truth.size()));
    ASSERT_EQ(d.Count(value), truth[value]);
  }
  EXPECT_EQ(d.Entries(), truth);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
