#include "pkg/scheduler/plugins/podtopologyspread/constraint.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread_args.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/plugins/podtopologyspread/test_util.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using testing::Exists;
using testing::MakeNode;
using testing::MatchLabels;
using testing::PodBuilder;
using testing::Spread;

TEST(ConstraintTest, CompileFiltersByActionAndDefaultsFields) {
  auto pod = PodBuilder()
                 .Label("foo", "")
                 .Spread({.max_skew = 2, .key = "zone", .selector = Exists("foo")})
                 .Spread({.max_skew = 1, .key = "node", .when = "ScheduleAnyway", .selector = Exists("foo")})
                 .Spread({.max_skew = 3,
                          .key = "rack",
                          .selector = Exists("foo"),
                          .min_domains = 4,
                          .node_affinity_policy = "Ignore",
                          .node_taints_policy = "Honor"})
                 .Obj();
  auto hard = CompileConstraints(pod->spec.topology_spread_constraints, pod->metadata.labels, kDoNotSchedule);
  ASSERT_TRUE(hard.ok());
  ASSERT_EQ(hard->size(), 2u);
  EXPECT_EQ((*hard)[0].max_skew, 2);
  EXPECT_EQ((*hard)[0].topology_key, "zone");
  EXPECT_EQ((*hard)[0].min_domains, 1);
  EXPECT_TRUE((*hard)[0].honor_node_affinity);
  EXPECT_FALSE((*hard)[0].honor_node_taints);
  EXPECT_EQ((*hard)[1].min_domains, 4);
  EXPECT_FALSE((*hard)[1].honor_node_affinity);
  EXPECT_TRUE((*hard)[1].honor_node_taints);
  auto soft = CompileConstraints(pod->spec.topology_spread_constraints, pod->metadata.labels, kScheduleAnyway);
  ASSERT_TRUE(soft.ok());
  ASSERT_EQ(soft->size(), 1u);
  EXPECT_EQ((*soft)[0].topology_key, "node");
}

TEST(ConstraintTest, MatchLabelKeysMergeIntoTheSelector) {
  auto pod = PodBuilder()
                 .Label("app", "web")
                 .Label("rev", "7")
                 .Spread({.max_skew = 1, .key = "zone", .selector = MatchLabels({{"app", "web"}}),
                          .match_label_keys = {"rev", "absent"}})
                 .Spread({.max_skew = 1, .key = "zone", .match_label_keys = {"rev"}})
                 .Obj();
  auto c = CompileConstraints(pod->spec.topology_spread_constraints, pod->metadata.labels, kDoNotSchedule);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)[0].selector.ToString(), "app=web,rev=7");
  EXPECT_TRUE((*c)[0].Selects(*PodBuilder("x").Label("app", "web").Label("rev", "7").Obj()));
  EXPECT_FALSE((*c)[0].Selects(*PodBuilder("x").Label("app", "web").Label("rev", "6").Obj()));
  // An unset selector selects nothing, matchLabelKeys or not.
  EXPECT_TRUE((*c)[1].selector.IsNothing());
  EXPECT_FALSE((*c)[1].Selects(*pod));
}

TEST(ConstraintTest, MalformedSelectorIsAnError) {
  api::LabelSelector bad;
  bad.match_expressions.push_back(api::LabelSelectorRequirement{"foo", "Bogus", {}});
  auto pod = PodBuilder().Spread({.max_skew = 1, .key = "zone", .selector = bad}).Obj();
  EXPECT_FALSE(CompileConstraints(pod->spec.topology_spread_constraints, {}, kDoNotSchedule).ok());
}

TEST(ConstraintTest, PodConstraintsUseDefaultsOnlyWithoutOwnConstraints) {
  const std::vector<api::TopologySpreadConstraint> defaults = SystemDefaultTopologySpreadConstraints();
  framework::InMemorySharedListers listers;
  testing::AddControllers(listers);
  auto owned = PodBuilder().Controller("apps/v1", "ReplicaSet", "rs1").Obj();
  auto soft = PodConstraints(*owned, kScheduleAnyway, defaults, listers);
  ASSERT_TRUE(soft.ok());
  ASSERT_EQ(soft->size(), 2u);
  EXPECT_EQ((*soft)[0].topology_key, "kubernetes.io/hostname");
  EXPECT_EQ((*soft)[0].max_skew, 3);
  EXPECT_EQ((*soft)[1].topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ((*soft)[1].selector.ToString(), "controller=rs1");
  EXPECT_TRUE((*soft)[1].Selects(*PodBuilder("sibling").Controller("apps/v1", "ReplicaSet", "rs1").Obj()));
  EXPECT_FALSE((*soft)[1].Selects(*PodBuilder("other").Controller("apps/v1", "ReplicaSet", "rs2").Obj()));
  // The selector counts pods by label, whoever owns them.
  EXPECT_TRUE((*soft)[1].Selects(*PodBuilder("adoptable").Label("controller", "rs1").Obj()));
  EXPECT_FALSE((*soft)[1].CountsNoPods());
  auto hard = PodConstraints(*owned, kDoNotSchedule, defaults, listers);
  ASSERT_TRUE(hard.ok());
  EXPECT_TRUE(hard->empty());
  auto orphan = PodConstraints(*PodBuilder().Obj(), kScheduleAnyway, defaults, listers);
  ASSERT_TRUE(orphan.ok());
  EXPECT_TRUE(orphan->empty());
  // A Service alone selects the pod's spread group.
  auto service = std::make_shared<api::Service>();
  service->metadata.name = "web";
  service->spec.selector = api::StringMap{{"app", "web"}};
  listers.services.Set(service);
  auto served = PodConstraints(*PodBuilder().Label("app", "web").Obj(), kScheduleAnyway, defaults, listers);
  ASSERT_TRUE(served.ok());
  ASSERT_EQ(served->size(), 2u);
  EXPECT_EQ((*served)[0].selector.ToString(), "app=web");
  auto own = PodBuilder()
                 .Controller("apps/v1", "ReplicaSet", "rs1")
                 .Spread({.max_skew = 1, .key = "zone", .when = "ScheduleAnyway", .selector = Exists("x")})
                 .Obj();
  auto mine = PodConstraints(*own, kScheduleAnyway, defaults, listers);
  ASSERT_TRUE(mine.ok());
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ((*mine)[0].selector.ToString(), "x");
}

TEST(ConstraintTest, NodeInclusion) {
  Constraint honor_both;
  honor_both.honor_node_affinity = true;
  honor_both.honor_node_taints = true;
  Constraint ignore_both;
  ignore_both.honor_node_affinity = false;
  auto node = MakeNode("n", {{"zone", "z1"}}, {api::Taint{"t", "", "NoSchedule", {}}});
  auto soft_taint = MakeNode("n", {{"zone", "z1"}}, {api::Taint{"t", "", "PreferNoSchedule", {}}});
  NodeInclusion plain(*PodBuilder().Obj());
  EXPECT_FALSE(plain.Includes(honor_both, *node));
  EXPECT_TRUE(plain.Includes(honor_both, *soft_taint));
  EXPECT_TRUE(plain.Includes(ignore_both, *node));
  NodeInclusion tolerant(*PodBuilder().Toleration("t", "NoSchedule").Obj());
  EXPECT_TRUE(tolerant.Includes(honor_both, *node));
  NodeInclusion elsewhere(*PodBuilder().Toleration("t", "").NodeSelector("zone", "z2").Obj());
  EXPECT_FALSE(elsewhere.Includes(honor_both, *node));
  EXPECT_TRUE(elsewhere.Includes(ignore_both, *node));
}

TEST(ConstraintTest, CountMatchingPods) {
  framework::NodeInfo ni(MakeNode("n", {}));
  ni.AddPod(PodBuilder("a").Node("n").Label("foo", "").Obj());
  ni.AddPod(PodBuilder("b").Node("n").Label("foo", "").Namespace("other").Obj());
  ni.AddPod(PodBuilder("c").Node("n").Label("foo", "").Terminating().Obj());
  ni.AddPod(PodBuilder("d").Node("n").Label("bar", "").Obj());
  Constraint c;
  c.selector = *api::Selector::FromLabelSelector(Exists("foo"));
  EXPECT_EQ(CountMatchingPods(ni.pods(), c, ""), 1);
  EXPECT_EQ(CountMatchingPods(ni.pods(), c, "other"), 1);
  Constraint everything;
  EXPECT_TRUE(everything.CountsNoPods());
  EXPECT_EQ(CountMatchingPods(ni.pods(), everything, ""), 0);
}

TEST(ConstraintTest, CountingSignature) {
  auto constraints = [](const api::Pod& p) {
    return *CompileConstraints(p.spec.topology_spread_constraints, p.metadata.labels, kDoNotSchedule);
  };
  const Spread zone{.max_skew = 1, .key = "zone", .selector = Exists("foo")};
  auto a = PodBuilder("a").Label("foo", "").Spread(zone).Obj();
  auto b = PodBuilder("b").Label("foo", "1").Spread(zone).Obj();
  EXPECT_EQ(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*b, constraints(*b), "t"));
  EXPECT_NE(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*a, constraints(*a), "u"));
  auto other_ns = PodBuilder("c").Namespace("x").Spread(zone).Obj();
  EXPECT_NE(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*other_ns, constraints(*other_ns), "t"));
  auto skew = PodBuilder("d").Spread({.max_skew = 4, .key = "zone", .selector = Exists("foo")}).Obj();
  EXPECT_EQ(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*skew, constraints(*skew), "t"))
      << "maxSkew does not change counts";
  auto selected = PodBuilder("e").NodeSelector("disk", "ssd").Spread(zone).Obj();
  EXPECT_NE(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*selected, constraints(*selected), "t"));
  auto tolerant = PodBuilder("f").Toleration("t", "NoSchedule").Spread(zone).Obj();
  EXPECT_EQ(CountingSignature(*a, constraints(*a), "t"), CountingSignature(*tolerant, constraints(*tolerant), "t"))
      << "tolerations only matter with NodeTaintsPolicy Honor";
  Spread honor = zone;
  honor.node_taints_policy = "Honor";
  auto h1 = PodBuilder("g").Spread(honor).Obj();
  auto h2 = PodBuilder("h").Toleration("t", "NoSchedule").Spread(honor).Obj();
  EXPECT_NE(CountingSignature(*h1, constraints(*h1), "t"), CountingSignature(*h2, constraints(*h2), "t"));
  auto nothing = PodBuilder("i").Spread({.max_skew = 1, .key = "zone"}).Obj();
  auto everything = PodBuilder("j").Spread({.max_skew = 1, .key = "zone", .selector = api::LabelSelector{}}).Obj();
  EXPECT_NE(CountingSignature(*nothing, constraints(*nothing), "t"),
            CountingSignature(*everything, constraints(*everything), "t"));
  api::Pod empty_affinity = *PodBuilder("k").Spread(zone).Obj();
  empty_affinity.spec.affinity.emplace().node_affinity.emplace().required_during_scheduling_ignored_during_execution.emplace();
  EXPECT_NE(CountingSignature(*a, constraints(*a), "t"), CountingSignature(empty_affinity, constraints(*a), "t"));
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
