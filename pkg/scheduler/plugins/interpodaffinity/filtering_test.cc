#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/interpodaffinity/state.h"
#include "pkg/scheduler/plugins/interpodaffinity/test_util.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::Status;
using testing::MakeNamespace;
using testing::MakeNode;
using testing::PodBuilder;
using testing::Sel;
using testing::Term;
using PodPtr = std::shared_ptr<const api::Pod>;
using NodePtr = std::shared_ptr<const api::Node>;

const Status kOk;
const Status kAffinityFail(Code::kUnschedulableAndUnresolvable, std::string(kErrReasonAffinityRulesNotMatch));
const Status kAntiFail(Code::kUnschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch));
const Status kExistingFail(Code::kUnschedulable, std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
const Status kSkip(Code::kSkip);

// A plugin over a snapshot of `pods` on `nodes`, with kube's test namespaces.
struct Env {
  explicit Env(const std::vector<PodPtr>& pods, const std::vector<NodePtr>& nodes,
               InterPodAffinityArgs args = {}) {
    handle.SetSnapshot(cache::Snapshot::FromObjects(pods, nodes));
    handle.listers().namespaces.Set(MakeNamespace("subteam1.team1", {{"team", "team1"}}));
    handle.listers().namespaces.Set(MakeNamespace("subteam2.team1", {{"team", "team1"}}));
    handle.listers().namespaces.Set(MakeNamespace("subteam1.team2", {{"team", "team2"}}));
    handle.listers().namespaces.Set(MakeNamespace("subteam2.team2", {{"team", "team2"}}));
    auto p = New(args, handle);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    plugin = *p;
  }
  Status PreFilter(const api::Pod& pod) {
    return plugin->PreFilter(state, pod, handle.snapshot().NodeInfos().List()).second;
  }
  Status Filter(const api::Pod& pod, const std::string& node) {
    return plugin->Filter(state, pod, **handle.snapshot().NodeInfos().Get(node));
  }

  testing::FakeHandle handle;
  std::shared_ptr<InterPodAffinity> plugin;
  framework::CycleState state;
};

struct SingleNodeCase {
  std::string name;
  PodPtr pod;
  std::vector<PodPtr> pods;
  Status want_pre_filter;
  Status want_filter;
};

TEST(InterPodAffinityFilterTest, RequiredAffinitySingleNode) {
  const api::StringMap pod_label = {{"service", "securityscan"}};
  const api::StringMap pod_label2 = {{"security", "S1"}};
  PodPtr existing = PodBuilder("existing").Labels(pod_label).Node("node1").Obj();
  NodePtr node1 = MakeNode("node1", {{"region", "r1"}, {"zone", "z11"}});
  const std::vector<SingleNodeCase> cases = {
      {"no required rules: Skip", PodBuilder().Obj(), {}, kSkip, kOk},
      {"In operator matches the existing pod",
       PodBuilder().Labels(pod_label2).RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region"))
           .Obj(),
       {existing}, kOk, kOk},
      {"NotIn operator matches the existing pod",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().NotIn("service", {"securityscan3", "value3"}), "region"))
           .Obj(),
       {existing}, kOk, kOk},
      {"different namespace does not satisfy affinity",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "", {"DiffNameSpace"}))
           .Obj(),
       {PodBuilder("e").Namespace("ns").Label("service", "securityscan").Node("node1").Obj()}, kOk, kAffinityFail},
      {"unmatching selector",
       PodBuilder().Labels(pod_label).RequiredAffinity(Term(Sel().In("service", {"antivirusscan", "value2"}), ""))
           .Obj(),
       {existing}, kOk, kAffinityFail},
      {"multiple terms with different operators, all match",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().Exists("service").DoesNotExist("wrongkey"), "region"))
           .RequiredAffinity(Term(Sel().In("service", {"securityscan"}).NotIn("service", {"WrongValue"}), "region"))
           .Obj(),
       {existing}, kOk, kOk},
      {"requirements are ANDed: one expression fails",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().Exists("service").DoesNotExist("wrongkey"), "region"))
           .RequiredAffinity(Term(Sel().In("service", {"securityscan2"}).NotIn("service", {"WrongValue"}), "region"))
           .Obj(),
       {existing}, kOk, kAffinityFail},
      {"affinity and anti-affinity satisfied",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("service", {"antivirusscan", "value2"}), "node"))
           .Obj(),
       {existing}, kOk, kOk},
      {"affinity, anti-affinity and symmetry satisfied",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("service", {"antivirusscan", "value2"}), "node"))
           .Obj(),
       {PodBuilder("e")
            .Node("node1")
            .Labels(pod_label)
            .RequiredAntiAffinity(Term(Sel().In("service", {"antivirusscan", "value2"}), "node"))
            .Obj()},
       kOk, kOk},
      {"affinity satisfied, anti-affinity not",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone"))
           .Obj(),
       {existing}, kOk, kAntiFail},
      {"symmetry not satisfied",
       PodBuilder()
           .Labels(pod_label)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("service", {"antivirusscan", "value2"}), "node"))
           .Obj(),
       {PodBuilder("e")
            .Labels(pod_label)
            .Node("node1")
            .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone"))
            .Obj()},
       kOk, kExistingFail},
      {"pod matches its own affinity but a matching pod runs elsewhere",
       PodBuilder().Labels(pod_label).RequiredAffinity(Term(Sel().NotIn("service", {"securityscan", "value2"}), "region"))
           .Obj(),
       {PodBuilder("e").Label("service", "securityscan").Node("node2").Obj()}, kOk, kAffinityFail},
      {"existing pod's anti-affinity respected when the pod has none",
       PodBuilder().Labels(pod_label).Obj(),
       {PodBuilder("e")
            .Node("node1")
            .Labels(pod_label)
            .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone"))
            .Obj()},
       kOk, kExistingFail},
      {"existing pod's anti-affinity does not match: Skip",
       PodBuilder().Labels(pod_label).Obj(),
       {PodBuilder("e")
            .Node("node1")
            .Labels(pod_label)
            .RequiredAntiAffinity(Term(Sel().NotIn("service", {"securityscan", "value2"}), "zone"))
            .Obj()},
       kSkip, kOk},
      {"anti-affinity satisfied by existing pod but symmetry from incoming terms fails",
       PodBuilder()
           .Labels(pod_label)
           .RequiredAntiAffinity(Term(Sel().Exists("service"), "region"))
           .RequiredAntiAffinity(Term(Sel().Exists("security"), "region"))
           .Obj(),
       {PodBuilder("e").Node("node1").Labels(pod_label2).RequiredAntiAffinity(Term(Sel().Exists("security"), "zone"))
            .Obj()},
       kOk, kAntiFail},
      {"symmetry a2: partial match of existing terms",
       PodBuilder().Labels(pod_label2).RequiredAntiAffinity(Term(Sel().Exists("security"), "zone")).Obj(),
       {PodBuilder("e")
            .Node("node1")
            .Labels(pod_label)
            .RequiredAntiAffinity(Term(Sel().Exists("service"), "zone"))
            .RequiredAntiAffinity(Term(Sel().Exists("security"), "zone"))
            .Obj()},
       kOk, kExistingFail},
      {"affinity with a matching namespaceSelector",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region", {},
                                  Sel().In("team", {"team1"}).get()))
           .Obj(),
       {PodBuilder("e").Namespace("subteam1.team1").Labels(pod_label).Node("node1").Obj()}, kOk, kOk},
      {"affinity with a non-matching namespaceSelector",
       PodBuilder()
           .Labels(pod_label2)
           .RequiredAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "region", {},
                                  Sel().In("team", {"team1"}).get()))
           .Obj(),
       {PodBuilder("e").Namespace("subteam1.team2").Labels(pod_label).Node("node1").Obj()}, kOk, kAffinityFail},
      {"anti-affinity with a matching namespaceSelector",
       PodBuilder()
           .Namespace("subteam1.team1")
           .Labels(pod_label2)
           .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone", {},
                                      Sel().In("team", {"team1"}).get()))
           .Obj(),
       {PodBuilder("e").Namespace("subteam2.team1").Labels(pod_label).Node("node1").Obj()}, kOk, kAntiFail},
      {"anti-affinity with an empty (match-all) namespaceSelector",
       PodBuilder()
           .Namespace("subteam1.team1")
           .Labels(pod_label2)
           .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone", {}, api::LabelSelector{}))
           .Obj(),
       {PodBuilder("e").Namespace("subteam2.team1").Labels(pod_label).Node("node1").Obj()}, kOk, kAntiFail},
      {"anti-affinity with a non-matching namespaceSelector",
       PodBuilder()
           .Namespace("subteam1.team1")
           .Labels(pod_label2)
           .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan", "value2"}), "zone", {},
                                      Sel().In("team", {"team1"}).get()))
           .Obj(),
       {PodBuilder("e").Namespace("subteam1.team2").Labels(pod_label).Node("node1").Obj()}, kOk, kOk},
      {"existing pod's anti-affinity namespaceSelector matches the incoming pod's namespace labels",
       PodBuilder().Namespace("subteam1.team1").Labels(pod_label).Obj(),
       {PodBuilder("e")
            .Namespace("other")
            .Node("node1")
            .RequiredAntiAffinity(Term(Sel().Exists("service"), "zone", {}, Sel().Label("team", "team1").get()))
            .Obj()},
       kOk, kExistingFail},
      {"existing pod's anti-affinity namespaceSelector does not match",
       PodBuilder().Namespace("subteam1.team2").Labels(pod_label).Obj(),
       {PodBuilder("e")
            .Namespace("other")
            .Node("node1")
            .RequiredAntiAffinity(Term(Sel().Exists("service"), "zone", {}, Sel().Label("team", "team1").get()))
            .Obj()},
       kSkip, kOk},
  };
  for (const SingleNodeCase& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(c.pods, {node1});
    Status pre = env.PreFilter(*c.pod);
    EXPECT_EQ(pre, c.want_pre_filter) << pre.ToString();
    if (!pre.IsSuccess()) continue;
    Status got = env.Filter(*c.pod, "node1");
    EXPECT_EQ(got, c.want_filter) << got.ToString();
  }
}

TEST(InterPodAffinityFilterTest, MalformedSelectorFailsPreFilter) {
  Env env({}, {MakeNode("node1", {{"region", "r1"}})});
  PodPtr pod = PodBuilder()
                   .Label("service", "securityscan")
                   .RequiredAffinity(Term(Sel().In("service", {"{{.bad-value.}}"}), "region"))
                   .Obj();
  Status s = env.PreFilter(*pod);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message().rfind("parsing pod: requiredAffinityTerms: ", 0), 0u) << s.Message();

  PodPtr anti = PodBuilder().RequiredAntiAffinity(Term(Sel().In("service", {"{{.bad-value.}}"}), "region")).Obj();
  s = env.PreFilter(*anti);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message().rfind("parsing pod: requiredAntiAffinityTerms: ", 0), 0u) << s.Message();
}

TEST(InterPodAffinityFilterTest, PreFilterSkipsEarlyOnlyWithoutAnyPodAffinity) {
  Env env({}, {MakeNode("node1", {{"region", "r1"}})});
  framework::CycleState state;
  auto pre = [&](const api::Pod& pod) {
    return env.plugin->PreFilter(state, pod, env.handle.snapshot().NodeInfos().List()).second;
  };
  // No pod affinity at all (node affinity does not count): Skip.
  PodPtr plain = PodBuilder().Namespace("no-such-namespace").Obj();
  api::Pod with_node_affinity = *plain;
  with_node_affinity.spec.affinity.emplace().node_affinity.emplace();
  EXPECT_EQ(pre(*plain), kSkip);
  EXPECT_EQ(pre(with_node_affinity), kSkip);
  // Preferred terms only: still parsed (a malformed one fails PreFilter, as
  // in kube), then a Skip.
  api::Pod preferred = *plain;
  preferred.spec.affinity.emplace().pod_affinity.emplace().preferred_during_scheduling_ignored_during_execution.push_back(
      api::WeightedPodAffinityTerm{1, Term(Sel().Exists("service"), "region")});
  EXPECT_EQ(pre(preferred), kSkip);
  preferred.spec.affinity.Mutable().pod_affinity->preferred_during_scheduling_ignored_during_execution[0]
      .pod_affinity_term = Term(Sel().In("service", {"{{.bad-value.}}"}), "region");
  Status bad = pre(preferred);
  EXPECT_EQ(bad.code(), Code::kUnschedulableAndUnresolvable) << bad.ToString();
  EXPECT_EQ(bad.Message().rfind("parsing pod: preferredAffinityTerms: ", 0), 0u) << bad.Message();
  EXPECT_EQ(state.Get<framework::StateData>(kPreFilterStateKey), nullptr) << "no state is written on Skip";
}

TEST(InterPodAffinityFilterTest, FilterWithoutPreFilterIsAnError) {
  Env env({}, {MakeNode("node1", {})});
  Status s = env.Filter(*PodBuilder().Obj(), "node1");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_NE(s.Message().find("PreFilterInterPodAffinity"), std::string::npos);
}

struct MultiNodeCase {
  std::string name;
  PodPtr pod;
  std::vector<PodPtr> pods;
  std::vector<NodePtr> nodes;
  std::vector<Status> want;
  Status want_pre_filter = Status();
};

TEST(InterPodAffinityFilterTest, RequiredAffinityMultipleNodes) {
  const api::StringMap rg_china = {{"region", "China"}};
  const api::StringMap rg_china_az1 = {{"region", "China"}, {"az", "az1"}};
  const api::StringMap rg_india = {{"region", "India"}};
  const std::vector<MultiNodeCase> cases = {
      {"all nodes in the domain of a matching pod pass",
       PodBuilder().RequiredAffinity(Term(Sel().In("foo", {"bar"}), "region")).Obj(),
       {PodBuilder("p1").Node("node1").Label("foo", "bar").Obj()},
       {MakeNode("node1", rg_china), MakeNode("node2", rg_china_az1), MakeNode("node3", rg_india)},
       {kOk, kOk, kAffinityFail}},
      {"first pod of a collection: nothing matches both terms, pod matches itself",
       PodBuilder()
           .Labels({{"foo", "bar"}, {"service", "securityscan"}})
           .RequiredAffinity(Term(Sel().In("foo", {"bar"}), "zone"))
           .RequiredAffinity(Term(Sel().In("service", {"securityscan"}), "zone"))
           .Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "bar").Obj()},
       {MakeNode("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}), MakeNode("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {kOk, kOk}},
      {"first pod of a collection still needs the topology keys",
       PodBuilder()
           .Labels({{"foo", "bar"}, {"service", "securityscan"}})
           .RequiredAffinity(Term(Sel().In("foo", {"bar"}), "zone"))
           .RequiredAffinity(Term(Sel().In("service", {"securityscan"}), "zone"))
           .Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "bar").Obj()},
       {MakeNode("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        MakeNode("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinityFail, kAffinityFail}},
      {"anti-affinity covers the whole domain",
       PodBuilder().RequiredAntiAffinity(Term(Sel().In("foo", {"abc"}), "region")).Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "abc").Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {kAntiFail, kAntiFail}},
      {"anti-affinity: any term matching repels",
       PodBuilder()
           .RequiredAntiAffinity(Term(Sel().In("foo", {"abc"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("service", {"securityscan"}), "zone"))
           .Obj(),
       {PodBuilder("p1").Node("nodeA").Labels({{"foo", "abc"}, {"service", "securityscan"}}).Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}})},
       {kAntiFail, kAntiFail}},
      {"anti-affinity: other domain passes",
       PodBuilder().RequiredAntiAffinity(Term(Sel().In("foo", {"abc"}), "region")).Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "abc").Obj()},
       {MakeNode("nodeA", rg_china), MakeNode("nodeB", rg_china_az1), MakeNode("nodeC", rg_india)},
       {kAntiFail, kAntiFail, kOk}},
      {"anti-affinity of a pod in another namespace does not apply",
       PodBuilder()
           .Namespace("NS1")
           .Label("foo", "123")
           .RequiredAntiAffinity(Term(Sel().In("foo", {"bar"}), "region"))
           .Obj(),
       {PodBuilder("p1").Node("nodeA").Namespace("NS1").Label("foo", "bar").Obj(),
        PodBuilder("p2").Node("nodeC").Namespace("NS2").RequiredAntiAffinity(Term(Sel().In("foo", {"123"}), "region"))
            .Obj()},
       {MakeNode("nodeA", rg_china), MakeNode("nodeB", rg_china_az1), MakeNode("nodeC", rg_india)},
       {kAntiFail, kAntiFail, kOk}},
      {"existing pod's term with a topology key no node has",
       PodBuilder().Label("foo", "").Obj(),
       {PodBuilder("p1").Node("nodeA").RequiredAntiAffinity(Term(Sel().Exists("foo"), "invalid-node-label")).Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}})},
       {kOk, kOk},
       kSkip},
      {"incoming pod's term with a topology key no node has",
       PodBuilder().Node("nodeA").RequiredAntiAffinity(Term(Sel().Exists("foo"), "invalid-node-label")).Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "").Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}})},
       {kOk, kOk}},
      {"two existing pods' anti-affinity on different keys",
       PodBuilder().Labels({{"foo", ""}, {"bar", ""}}).Obj(),
       {PodBuilder("p1").Node("nodeA").RequiredAntiAffinity(Term(Sel().Exists("foo"), "zone")).Obj(),
        PodBuilder("p2").Node("nodeA").RequiredAntiAffinity(Term(Sel().Exists("bar"), "region")).Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}})},
       {kExistingFail, kExistingFail}},
      {"affinity and anti-affinity with hostname keys",
       PodBuilder()
           .Label("foo", "bar")
           .RequiredAffinity(Term(Sel().In("foo", {"bar"}), "region"))
           .RequiredAntiAffinity(Term(Sel().In("foo", {"bar"}), "hostname"))
           .Obj(),
       {PodBuilder("p1").Node("nodeA").Label("foo", "bar").Obj()},
       {MakeNode("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        MakeNode("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}}),
        MakeNode("nodeC", {{"region", "r2"}, {"hostname", "nodeC"}})},
       {kAntiFail, kOk, kAffinityFail}},
  };
  for (const MultiNodeCase& c : cases) {
    SCOPED_TRACE(c.name);
    Env env(c.pods, c.nodes);
    Status pre = env.PreFilter(*c.pod);
    EXPECT_EQ(pre, c.want_pre_filter) << pre.ToString();
    if (!pre.IsSuccess()) continue;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      Status got = env.Filter(*c.pod, c.nodes[i]->metadata.name);
      EXPECT_EQ(got, c.want[i]) << c.nodes[i]->metadata.name << ": " << got.ToString();
    }
  }
}

TEST(InterPodAffinityFilterTest, PreFilterStateCounts) {
  // The incoming pod wants zone-affinity with foo=bar and hostname
  // anti-affinity with foo=bar; an existing pod hates app=web in its region.
  PodPtr pod = PodBuilder()
                   .Label("app", "web")
                   .RequiredAffinity(Term(Sel().Label("foo", "bar"), "zone"))
                   .RequiredAntiAffinity(Term(Sel().Label("foo", "bar"), "hostname"))
                   .Obj();
  Env env({PodBuilder("a1").Node("a").Label("foo", "bar").Obj(), PodBuilder("a2").Node("a").Label("foo", "bar").Obj(),
           PodBuilder("b1").Node("b").Label("foo", "bar").Obj(),
           PodBuilder("c1").Node("c").RequiredAntiAffinity(Term(Sel().Label("app", "web"), "region")).Obj()},
          {MakeNode("a", {{"zone", "z1"}, {"hostname", "a"}, {"region", "r1"}}),
           MakeNode("b", {{"zone", "z2"}, {"hostname", "b"}, {"region", "r1"}}),
           MakeNode("c", {{"zone", "z2"}, {"hostname", "c"}, {"region", "r2"}})});
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  auto s = env.state.Get<PreFilterState>(kPreFilterStateKey);
  ASSERT_NE(s, nullptr);
  using Entries = std::map<std::pair<std::string, std::string>, int64_t>;
  EXPECT_EQ(s->affinity_counts().Entries(), (Entries{{{"zone", "z1"}, 2}, {{"zone", "z2"}, 1}}));
  EXPECT_EQ(s->anti_affinity_counts().Entries(), (Entries{{{"hostname", "a"}, 2}, {{"hostname", "b"}, 1}}));
  EXPECT_EQ(s->existing_anti_affinity_counts().Entries(), (Entries{{{"region", "r2"}, 1}}));
  EXPECT_FALSE(s->matches_own_affinity);
}

TEST(InterPodAffinityFilterTest, AddPodAndRemovePod) {
  // Incoming pod: anti-affinity to app=db on hostname; affinity to
  // tier=cache in its zone.
  PodPtr pod = PodBuilder()
                   .Label("app", "web")
                   .RequiredAffinity(Term(Sel().Label("tier", "cache"), "zone"))
                   .RequiredAntiAffinity(Term(Sel().Label("app", "db"), "hostname"))
                   .Obj();
  std::vector<NodePtr> nodes = {MakeNode("a", {{"zone", "z1"}, {"hostname", "a"}}),
                                MakeNode("b", {{"zone", "z1"}, {"hostname", "b"}}),
                                MakeNode("c", {{"zone", "z2"}, {"hostname", "c"}})};
  PodPtr cache_a = PodBuilder("cache-a").Node("a").Label("tier", "cache").Obj();
  Env env({cache_a}, nodes);
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  EXPECT_EQ(env.Filter(*pod, "b"), kOk);
  EXPECT_EQ(env.Filter(*pod, "c"), kAffinityFail);

  const framework::NodeInfo& node_b = **env.handle.snapshot().NodeInfos().Get("b");
  const framework::NodeInfo& node_c = **env.handle.snapshot().NodeInfos().Get("c");
  // A db pod nominated to b: the clone rejects b, the original is untouched.
  auto db = std::make_shared<const framework::PodInfo>(PodBuilder("db").Node("b").Label("app", "db").Obj());
  std::unique_ptr<framework::CycleState> with_db = env.state.Clone();
  ASSERT_TRUE(env.plugin->AddPod(*with_db, *pod, db, node_b).IsSuccess());
  EXPECT_EQ(env.plugin->Filter(*with_db, *pod, node_b), kAntiFail);
  EXPECT_EQ(env.Filter(*pod, "b"), kOk);
  ASSERT_TRUE(env.plugin->RemovePod(*with_db, *pod, db, node_b).IsSuccess());
  EXPECT_EQ(env.plugin->Filter(*with_db, *pod, node_b), kOk);
  EXPECT_TRUE(with_db->Get<PreFilterState>(kPreFilterStateKey)->anti_affinity_counts().empty());

  // A cache pod added in z2 makes c feasible.
  auto cache_c = std::make_shared<const framework::PodInfo>(PodBuilder("cache-c").Node("c").Label("tier", "cache").Obj());
  std::unique_ptr<framework::CycleState> with_cache = env.state.Clone();
  ASSERT_TRUE(env.plugin->AddPod(*with_cache, *pod, cache_c, node_c).IsSuccess());
  EXPECT_EQ(env.plugin->Filter(*with_cache, *pod, node_c), kOk);
  EXPECT_EQ(env.Filter(*pod, "c"), kAffinityFail);

  // Removing the only cache pod (preemption's view): nothing matches any
  // more, but the pod does not match its own terms, so every node fails.
  std::unique_ptr<framework::CycleState> without = env.state.Clone();
  const framework::NodeInfo& node_a = **env.handle.snapshot().NodeInfos().Get("a");
  ASSERT_TRUE(env.plugin->RemovePod(*without, *pod, node_a.pods()[0], node_a).IsSuccess());
  EXPECT_EQ(env.plugin->Filter(*without, *pod, node_a), kAffinityFail);

  // An existing pod whose anti-affinity hates app=web, added to c.
  auto hater = std::make_shared<const framework::PodInfo>(
      PodBuilder("hater").Node("c").RequiredAntiAffinity(Term(Sel().Label("app", "web"), "zone")).Obj());
  std::unique_ptr<framework::CycleState> with_hater = with_cache->Clone();
  ASSERT_TRUE(env.plugin->AddPod(*with_hater, *pod, hater, node_c).IsSuccess());
  EXPECT_EQ(env.plugin->Filter(*with_hater, *pod, node_c), kExistingFail);
  EXPECT_EQ(env.plugin->Filter(*with_cache, *pod, node_c), kOk);
}

TEST(InterPodAffinityFilterTest, AddPodWithANewTopologyKey) {
  // The state only knew the hostname key; a nominated pod whose
  // anti-affinity uses "zone" must make Filter read the zone label too.
  PodPtr pod = PodBuilder().Label("app", "web").RequiredAntiAffinity(Term(Sel().Label("app", "db"), "hostname")).Obj();
  Env env({}, {MakeNode("a", {{"zone", "z1"}, {"hostname", "a"}}), MakeNode("b", {{"zone", "z1"}, {"hostname", "b"}}),
               MakeNode("c", {{"zone", "z2"}, {"hostname", "c"}})});
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  EXPECT_EQ(env.state.Get<PreFilterState>(kPreFilterStateKey)->keys, (std::vector<std::string>{"hostname"}));
  const framework::NodeInfo& node_a = **env.handle.snapshot().NodeInfos().Get("a");
  auto hater = std::make_shared<const framework::PodInfo>(
      PodBuilder("hater").Node("a").RequiredAntiAffinity(Term(Sel().Label("app", "web"), "zone")).Obj());
  std::unique_ptr<framework::CycleState> with = env.state.Clone();
  ASSERT_TRUE(env.plugin->AddPod(*with, *pod, hater, node_a).IsSuccess());
  EXPECT_EQ(with->Get<PreFilterState>(kPreFilterStateKey)->keys, (std::vector<std::string>{"hostname", "zone"}));
  EXPECT_EQ(env.plugin->Filter(*with, *pod, **env.handle.snapshot().NodeInfos().Get("b")), kExistingFail);
  EXPECT_EQ(env.plugin->Filter(*with, *pod, **env.handle.snapshot().NodeInfos().Get("c")), kOk);
  EXPECT_EQ(env.Filter(*pod, "b"), kOk) << "the original state is unchanged";
  EXPECT_EQ(env.state.Get<PreFilterState>(kPreFilterStateKey)->keys.size(), 1u);
}

TEST(InterPodAffinityFilterTest, AddPodWithoutStateIsAnError) {
  Env env({}, {MakeNode("a", {})});
  auto pi = std::make_shared<const framework::PodInfo>(PodBuilder("x").Node("a").Obj());
  Status s = env.plugin->AddPod(env.state, *PodBuilder().Obj(), pi, **env.handle.snapshot().NodeInfos().Get("a"));
  EXPECT_EQ(s.code(), Code::kError);
  s = env.plugin->RemovePod(env.state, *PodBuilder().Obj(), pi, **env.handle.snapshot().NodeInfos().Get("a"));
  EXPECT_EQ(s.code(), Code::kError);
}

TEST(InterPodAffinityFilterTest, ManyNodesInParallel) {
  // Enough nodes to use the parallel path: one pod per node labelled with
  // the node's index parity; anti-affinity to "odd" on hostname.
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> pods;
  for (int i = 0; i < 1000; ++i) {
    std::string name = "n" + std::to_string(i);
    nodes.push_back(MakeNode(name, {{"hostname", name}, {"zone", "z" + std::to_string(i % 3)}}));
    pods.push_back(PodBuilder("p" + std::to_string(i)).Node(name).Label("parity", i % 2 ? "odd" : "even").Obj());
  }
  Env env(pods, nodes);
  PodPtr pod = PodBuilder().RequiredAntiAffinity(Term(Sel().Label("parity", "odd"), "hostname")).Obj();
  ASSERT_TRUE(env.PreFilter(*pod).IsSuccess());
  EXPECT_EQ(env.state.Get<PreFilterState>(kPreFilterStateKey)->anti_affinity_counts().size(), 500u);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(env.Filter(*pod, "n" + std::to_string(i)), i % 2 ? kAntiFail : kOk) << i;
  }
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
