#include "pkg/scheduler/framework/affinity_term.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::framework {
namespace {

using testing::MakePod;

api::PodAffinityTerm Term(std::map<std::string, std::string> labels) {
  api::PodAffinityTerm t;
  t.topology_key = "kubernetes.io/hostname";
  t.label_selector = api::LabelSelector{api::StringMap(labels.begin(), labels.end()), {}};
  return t;
}

TEST(AffinityTermTest, DefaultsToTheDeclaringPodsNamespace) {
  auto owner = MakePod("owner", "ns1").Obj();
  util::StatusOr<AffinityTerm> t = NewAffinityTerm(*owner, Term({{"app", "web"}}));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->namespaces, (std::set<std::string, std::less<>>{"ns1"}));
  EXPECT_EQ(t->topology_key, "kubernetes.io/hostname");
  EXPECT_TRUE(t->Matches(*MakePod("a", "ns1").Label("app", "web").Obj(), {}));
  EXPECT_FALSE(t->Matches(*MakePod("b", "ns2").Label("app", "web").Obj(), {}));
  EXPECT_FALSE(t->Matches(*MakePod("c", "ns1").Label("app", "db").Obj(), {}));
}

TEST(AffinityTermTest, NamespaceSelectorAndListedNamespaces) {
  auto owner = MakePod("owner", "ns1").Obj();
  api::PodAffinityTerm term = Term({{"app", "web"}});
  term.namespaces = {"ns2"};
  term.namespace_selector = api::LabelSelector{{{"team", "a"}}, {}};
  util::StatusOr<AffinityTerm> t = NewAffinityTerm(*owner, term);
  ASSERT_TRUE(t.ok());
  auto web_in = [](const char* ns) { return MakePod("p", ns).Label("app", "web").Obj(); };
  EXPECT_TRUE(t->Matches(*web_in("ns2"), {}));
  EXPECT_FALSE(t->Matches(*web_in("ns1"), {}));  // listed namespaces replace the default
  EXPECT_TRUE(t->Matches(*web_in("ns3"), {{"team", "a"}}));
  EXPECT_FALSE(t->Matches(*web_in("ns3"), {{"team", "b"}}));

  // An empty namespace selector selects every namespace.
  api::PodAffinityTerm all = Term({{"app", "web"}});
  all.namespace_selector = api::LabelSelector{};
  util::StatusOr<AffinityTerm> t2 = NewAffinityTerm(*owner, all);
  ASSERT_TRUE(t2.ok());
  EXPECT_TRUE(t2->namespaces.empty());
  EXPECT_TRUE(t2->Matches(*web_in("anything"), {}));
}

TEST(AffinityTermTest, UnsetLabelSelectorMatchesNothing) {
  auto owner = MakePod("owner").Obj();
  api::PodAffinityTerm term;
  term.topology_key = "zone";
  util::StatusOr<AffinityTerm> t = NewAffinityTerm(*owner, term);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Matches(*MakePod("x").Label("a", "b").Obj(), {}));
}

TEST(PodInfoTest, ParsesTermsAndCachesRequests) {
  auto pod = MakePod("p")
                 .Req({{"cpu", "200m"}})
                 .Req({})
                 .RequiredPodAffinity("zone", {{"app", "db"}})
                 .RequiredPodAffinity("kubernetes.io/hostname", {{"app", "web"}}, /*anti=*/true)
                 .PreferredPodAffinity(5, "zone", {{"tier", "cache"}})
                 .PreferredPodAffinity(7, "zone", {{"tier", "x"}}, /*anti=*/true)
                 .Obj();
  PodInfo pi(pod);
  EXPECT_TRUE(pi.parse_status().ok());
  ASSERT_EQ(pi.required_affinity_terms().size(), 1u);
  EXPECT_EQ(pi.required_affinity_terms()[0].topology_key, "zone");
  ASSERT_EQ(pi.required_anti_affinity_terms().size(), 1u);
  ASSERT_EQ(pi.preferred_affinity_terms().size(), 1u);
  EXPECT_EQ(pi.preferred_affinity_terms()[0].weight, 5);
  ASSERT_EQ(pi.preferred_anti_affinity_terms().size(), 1u);
  EXPECT_EQ(pi.preferred_anti_affinity_terms()[0].weight, 7);
  EXPECT_EQ(pi.requests().milli_cpu, 200);
  EXPECT_EQ(pi.requests().memory, 0);
  // The container without requests counts kube's defaults for scoring.
  EXPECT_EQ(pi.non0_milli_cpu(), 200 + 100);
  EXPECT_EQ(pi.non0_memory(), 2 * 200 * 1024 * 1024);

  // Copies share the derived data; Update re-derives it.
  PodInfo copy = pi;
  EXPECT_EQ(&copy.required_affinity_terms(), &pi.required_affinity_terms());
  copy.Update(MakePod("p").Req({{"cpu", "1"}}).Obj());
  EXPECT_TRUE(copy.required_affinity_terms().empty());
  EXPECT_EQ(copy.requests().milli_cpu, 1000);
  EXPECT_EQ(pi.requests().milli_cpu, 200);
}

TEST(PodInfoTest, PodsSharingTheirAffinityAndNamespaceShareItsCompiledTerms) {
  auto a = MakePod("a", "ns1").RequiredPodAffinity("kubernetes.io/hostname", {{"app", "web"}}, /*anti=*/true).Obj();
  auto b = std::make_shared<api::Pod>(*a);  // the same Affinity object, as an interned template gives
  b->metadata.name = "b";
  auto other_ns = std::make_shared<api::Pod>(*a);
  other_ns->metadata.namespace_ = "ns2";
  auto equal = MakePod("e", "ns1").RequiredPodAffinity("kubernetes.io/hostname", {{"app", "web"}}, true).Obj();

  PodInfo pa(a), pb(b), pother(other_ns), pequal(equal);
  EXPECT_EQ(&pa.required_anti_affinity_terms(), &pb.required_anti_affinity_terms());
  ASSERT_EQ(pother.required_anti_affinity_terms().size(), 1u);
  EXPECT_NE(&pother.required_anti_affinity_terms(), &pa.required_anti_affinity_terms());
  EXPECT_EQ(pother.required_anti_affinity_terms()[0].namespaces, (std::set<std::string, std::less<>>{"ns2"}));
  EXPECT_EQ(pa.required_anti_affinity_terms()[0].namespaces, (std::set<std::string, std::less<>>{"ns1"}));
  // Equal but separate objects compile separately, to the same terms.
  ASSERT_EQ(pequal.required_anti_affinity_terms().size(), 1u);
  EXPECT_NE(&pequal.required_anti_affinity_terms(), &pa.required_anti_affinity_terms());
  EXPECT_TRUE(pequal.required_anti_affinity_terms()[0].Matches(*MakePod("w", "ns1").Label("app", "web").Obj(), {}));

  // A pod whose affinity changes gets its own terms; the others keep theirs.
  auto changed = std::make_shared<api::Pod>(*a);
  changed->spec.affinity.Mutable().pod_anti_affinity->required_during_scheduling_ignored_during_execution[0]
      .topology_key = "zone";
  PodInfo pchanged(changed);
  ASSERT_EQ(pchanged.required_anti_affinity_terms().size(), 1u);
  EXPECT_EQ(pchanged.required_anti_affinity_terms()[0].topology_key, "zone");
  EXPECT_EQ(PodInfo(a).required_anti_affinity_terms()[0].topology_key, "kubernetes.io/hostname");
}

TEST(PodInfoTest, BadSelectorIsRecordedNotFatal) {
  auto w = MakePod("p").RequiredPodAffinity("zone", {{"app", "db"}});
  w.pod().spec.affinity.Mutable().pod_affinity->required_during_scheduling_ignored_during_execution[0]
      .label_selector->match_expressions.push_back(api::LabelSelectorRequirement{"k", "Bogus", {"v"}});
  w.PreferredPodAffinity(3, "zone", {{"ok", "yes"}});
  PodInfo pi(w.Obj());
  EXPECT_FALSE(pi.parse_status().ok());
  EXPECT_TRUE(pi.required_affinity_terms().empty());
  // The other lists still parse.
  EXPECT_EQ(pi.preferred_affinity_terms().size(), 1u);
}

TEST(PodInfoTest, EmptyPodInfoHasNoDerivedData) {
  PodInfo pi;
  EXPECT_TRUE(pi.required_affinity_terms().empty());
  EXPECT_TRUE(pi.requests().IsZero());
  EXPECT_TRUE(pi.parse_status().ok());
}

}  // namespace
}  // namespace ksched::scheduler::framework
