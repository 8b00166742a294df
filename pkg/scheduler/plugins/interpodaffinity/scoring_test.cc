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

struct ScoreCase {
  std::string name;
  PodPtr pod;
  std::vector<PodPtr> pods;
  std::vector<NodePtr> nodes;
  // Normalized scores in node order; empty when PreScore must Skip.
  std::vector<int64_t> want;
  InterPodAffinityArgs args = {};
};

// Runs PreScore, Score on every node and NormalizeScore; nullopt on Skip.
std::optional<std::vector<int64_t>> RunScore(const ScoreCase& c) {
  testing::FakeHandle handle;
  handle.SetSnapshot(cache::Snapshot::FromObjects(c.pods, c.nodes));
  handle.listers().namespaces.Set(MakeNamespace("subteam1.team1", {{"team", "team1"}}));
  handle.listers().namespaces.Set(MakeNamespace("subteam2.team1", {{"team", "team1"}}));
  handle.listers().namespaces.Set(MakeNamespace("subteam1.team2", {{"team", "team2"}}));
  auto p = New(c.args, handle);
  EXPECT_TRUE(p.ok());
  framework::CycleState state;
  const framework::NodeInfoList& nodes = handle.snapshot().NodeInfos().List();
  Status s = (*p)->PreScore(state, *c.pod, nodes);
  if (s.IsSkip()) return std::nullopt;
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
  framework::NodeScoreList scores;
  for (const framework::NodeInfo* ni : nodes) {
    auto [score, st] = (*p)->Score(state, *c.pod, *ni);
    EXPECT_TRUE(st.IsSuccess()) << st.ToString();
    scores.push_back(framework::NodeScore{ni->node_name(), score});
  }
  EXPECT_TRUE((*p)->NormalizeScore(state, *c.pod, scores).IsSuccess());
  std::vector<int64_t> out;
  for (const auto& ns : scores) out.push_back(ns.score);
  return out;
}

TEST(InterPodAffinityScoreTest, PreferredAndSymmetricTerms) {
  const api::StringMap china = {{"region", "China"}};
  const api::StringMap china_az1 = {{"region", "China"}, {"az", "az1"}};
  const api::StringMap india = {{"region", "India"}};
  const api::StringMap az1 = {{"az", "az1"}};
  const api::StringMap az2 = {{"az", "az2"}};
  auto three_nodes = [&] {
    return std::vector<NodePtr>{MakeNode("node1", china), MakeNode("node2", india), MakeNode("node3", china_az1)};
  };
  InterPodAffinityArgs hard0;
  hard0.hard_pod_affinity_weight = 0;
  InterPodAffinityArgs ignore_existing;
  ignore_existing.ignore_preferred_terms_of_existing_pods = true;

  const std::vector<ScoreCase> cases = {
      {"no affinity anywhere: Skip", PodBuilder().Label("security", "S1").Obj(), {}, three_nodes(), {}},
      {"preferred affinity: nodes in the matching pod's region win",
       PodBuilder().Label("security", "S1").PreferredAffinity(5, Term(Sel().In("security", {"S1"}), "region")).Obj(),
       {PodBuilder("p1").Node("node1").Label("security", "S1").Obj()},
       three_nodes(),
       {100, 0, 100}},
      {"preferred affinity: no pod matches, every score 0",
       PodBuilder().PreferredAffinity(5, Term(Sel().In("security", {"S1"}), "region")).Obj(),
       {PodBuilder("p1").Node("node1").Label("security", "S2").Obj()},
       three_nodes(),
       {}},
      {"preferred affinity: several terms with different weights",
       PodBuilder()
           .PreferredAffinity(8, Term(Sel().In("security", {"S1"}), "region"))
           .PreferredAffinity(2, Term(Sel().Exists("disk"), "az"))
           .Obj(),
       {PodBuilder("p1").Node("node3").Label("security", "S1").Obj(),
        PodBuilder("p2").Node("node4").Label("disk", "ssd").Obj(),
        PodBuilder("p3").Node("node5").Label("disk", "hdd").Obj()},
       {MakeNode("node1", china), MakeNode("node2", india), MakeNode("node3", china_az1), MakeNode("node4", az1),
        MakeNode("node5", az2)},
       // node1: 8, node2: 0, node3: 8+2*... az1 has p2 (disk) => 8+2=10,
       // node4: az1 => 2, node5: az2 => 2.
       {80, 0, 100, 20, 20}},
      {"preferred anti-affinity: the hated region scores lowest",
       PodBuilder().PreferredAntiAffinity(5, Term(Sel().In("security", {"S1"}), "region")).Obj(),
       {PodBuilder("p1").Node("node1").Label("security", "S1").Obj()},
       three_nodes(),
       {0, 100, 0}},
      {"affinity and anti-affinity together",
       PodBuilder()
           .PreferredAffinity(5, Term(Sel().In("security", {"S1"}), "region"))
           .PreferredAntiAffinity(5, Term(Sel().In("security", {"S2"}), "az"))
           .Obj(),
       {PodBuilder("p1").Node("node1").Label("security", "S1").Obj(),
        PodBuilder("p2").Node("node3").Label("security", "S2").Obj()},
       three_nodes(),
       // node1: China +5 = 5; node2: 0; node3: China +5, az1 -5 = 0.
       {100, 0, 0}},
      {"symmetry: an existing pod's required affinity attracts with hardPodAffinityWeight",
       PodBuilder().Label("security", "S1").Obj(),
       {PodBuilder("p1").Node("node2").RequiredAffinity(Term(Sel().In("security", {"S1"}), "region")).Obj()},
       three_nodes(),
       {0, 100, 0}},
      {"symmetry: hardPodAffinityWeight 0 ignores existing required affinity",
       PodBuilder().Label("security", "S1").Obj(),
       {PodBuilder("p1").Node("node2").RequiredAffinity(Term(Sel().In("security", {"S1"}), "region")).Obj()},
       three_nodes(),
       {},
       hard0},
      {"symmetry: existing pods' preferred affinity and anti-affinity",
       PodBuilder().Label("security", "S1").Obj(),
       {PodBuilder("p1").Node("node2").PreferredAffinity(7, Term(Sel().In("security", {"S1"}), "region")).Obj(),
        PodBuilder("p2").Node("node3").PreferredAntiAffinity(3, Term(Sel().In("security", {"S1"}), "az")).Obj()},
       three_nodes(),
       // node1: 0, node2: India +7, node3: az1 -3  => min -3, max 7.
       {30, 100, 0}},
      {"ignorePreferredTermsOfExistingPods: Skip when the pod has no preferences",
       PodBuilder().Label("security", "S1").Obj(),
       {PodBuilder("p1").Node("node2").PreferredAffinity(7, Term(Sel().In("security", {"S1"}), "region")).Obj()},
       three_nodes(),
       {},
       ignore_existing},
      {"ignorePreferredTermsOfExistingPods does not apply when the pod has preferences",
       PodBuilder().Label("security", "S1").PreferredAffinity(5, Term(Sel().In("security", {"S1"}), "region")).Obj(),
       {PodBuilder("p1").Node("node2").Label("security", "S1").Obj(),
        PodBuilder("p2").Node("node1").PreferredAffinity(100, Term(Sel().In("security", {"S1"}), "region")).Obj()},
       three_nodes(),
       // China: +100 from p2's preference; India: +5 from the pod's own.
       {100, 0, 100},
       ignore_existing},
      {"preferred affinity with a namespaceSelector",
       PodBuilder()
           .Namespace("subteam1.team1")
           .PreferredAffinity(5, Term(Sel().In("security", {"S1"}), "region", {}, Sel().Label("team", "team1").get()))
           .Obj(),
       {PodBuilder("p1").Node("node1").Namespace("subteam2.team1").Label("security", "S1").Obj(),
        PodBuilder("p2").Node("node2").Namespace("subteam1.team2").Label("security", "S1").Obj()},
       three_nodes(),
       {100, 0, 100}},
      {"existing pod's preferred term with a namespaceSelector matches the incoming pod's namespace",
       PodBuilder().Namespace("subteam1.team1").Label("security", "S1").Obj(),
       {PodBuilder("p1")
            .Node("node2")
            .Namespace("elsewhere")
            .PreferredAffinity(4, Term(Sel().In("security", {"S1"}), "region", {}, Sel().Label("team", "team1").get()))
            .Obj()},
       three_nodes(),
       {0, 100, 0}},
      {"nodes without labels contribute nothing",
       PodBuilder().PreferredAffinity(5, Term(Sel().Exists("security"), "region")).Obj(),
       {PodBuilder("p1").Node("bare").Label("security", "S1").Obj(),
        PodBuilder("p2").Node("node2").Label("security", "S1").Obj()},
       {MakeNode("bare", {}), MakeNode("node2", india)},
       {0, 100}},
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

TEST(InterPodAffinityScoreTest, PreScoreStateAndRawScores) {
  testing::FakeHandle handle;
  handle.SetSnapshot(cache::Snapshot::FromObjects(
      {PodBuilder("p1").Node("a").Label("app", "x").Obj(), PodBuilder("p2").Node("b").Label("app", "x").Obj()},
      {MakeNode("a", {{"zone", "z1"}}), MakeNode("b", {{"zone", "z1"}}), MakeNode("c", {{"zone", "z2"}})}));
  auto p = New(std::monostate{}, handle);
  ASSERT_TRUE(p.ok());
  framework::CycleState state;
  PodPtr pod = PodBuilder().PreferredAntiAffinity(10, Term(Sel().Label("app", "x"), "zone")).Obj();
  ASSERT_TRUE((*p)->PreScore(state, *pod, handle.snapshot().NodeInfos().List()).IsSuccess());
  auto s = state.Get<PreScoreState>(kPreScoreStateKey);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->topology_score.Entries(), (std::map<std::pair<std::string, std::string>, int64_t>{{{"zone", "z1"}, -20}}));
  EXPECT_EQ((*p)->Score(state, *pod, **handle.snapshot().NodeInfos().Get("a")).first, -20);
  EXPECT_EQ((*p)->Score(state, *pod, **handle.snapshot().NodeInfos().Get("c")).first, 0);
  // Clones share the read-only state.
  auto clone = state.Clone();
  EXPECT_EQ(clone->Get<PreScoreState>(kPreScoreStateKey), s);
}

TEST(InterPodAffinityScoreTest, NormalizeScore) {
  testing::FakeHandle handle;
  auto p = New(std::monostate{}, handle);
  ASSERT_TRUE(p.ok());
  framework::CycleState state;
  PodPtr pod = PodBuilder().Obj();
  framework::NodeScoreList scores = {{"a", -5}, {"b", 0}, {"c", 15}};
  // Without PreScore state: an error.
  EXPECT_EQ((*p)->NormalizeScore(state, *pod, scores).code(), Code::kError);
  EXPECT_EQ((*p)->Score(state, *pod, framework::NodeInfo(MakeNode("a", {}))).second.code(), Code::kError);

  auto st = std::make_shared<PreScoreState>();
  st->topology_score.Add("zone", "z1", 1);
  state.Write(kPreScoreStateKey, st);
  ASSERT_TRUE((*p)->NormalizeScore(state, *pod, scores).IsSuccess());
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 25);
  EXPECT_EQ(scores[2].score, 100);

  // Equal scores normalize to 0.
  framework::NodeScoreList flat = {{"a", 3}, {"b", 3}};
  ASSERT_TRUE((*p)->NormalizeScore(state, *pod, flat).IsSuccess());
  EXPECT_EQ(flat[0].score, 0);
  EXPECT_EQ(flat[1].score, 0);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
