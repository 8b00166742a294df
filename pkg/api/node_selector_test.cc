#include "pkg/api/node_selector.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

Node MakeNode(std::string name, StringMap labels) {
  Node n;
  n.metadata.name = std::move(name);
  n.metadata.labels = std::move(labels);
  return n;
}

NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::move(key), std::move(op), std::move(values)};
}

NodeSelectorTerm Exprs(std::vector<NodeSelectorRequirement> exprs) {
  NodeSelectorTerm t;
  t.match_expressions = std::move(exprs);
  return t;
}

NodeSelectorTerm Fields(std::vector<NodeSelectorRequirement> fields) {
  NodeSelectorTerm t;
  t.match_fields = std::move(fields);
  return t;
}

NodeSelector Terms(std::vector<NodeSelectorTerm> terms) { return NodeSelector{std::move(terms)}; }

struct ExprCase {
  NodeSelectorRequirement req;
  StringMap labels;
  bool match;
};

TEST(NodeSelectorTest, ExpressionOperators) {
  const ExprCase cases[] = {
      {Req("zone", "In", {"a", "b"}), {{"zone", "a"}}, true},
      {Req("zone", "In", {"a", "b"}), {{"zone", "c"}}, false},
      {Req("zone", "In", {"a"}), {}, false},
      {Req("zone", "NotIn", {"a"}), {{"zone", "c"}}, true},
      {Req("zone", "NotIn", {"a"}), {{"zone", "a"}}, false},
      {Req("zone", "NotIn", {"a"}), {}, true},
      {Req("gpu", "Exists"), {{"gpu", ""}}, true},
      {Req("gpu", "Exists"), {}, false},
      {Req("gpu", "DoesNotExist"), {}, true},
      {Req("gpu", "DoesNotExist"), {{"gpu", "x"}}, false},
      {Req("cores", "Gt", {"4"}), {{"cores", "8"}}, true},
      {Req("cores", "Gt", {"4"}), {{"cores", "4"}}, false},
      {Req("cores", "Gt", {"4"}), {{"cores", "many"}}, false},
      {Req("cores", "Gt", {"4"}), {}, false},
      {Req("cores", "Lt", {"4"}), {{"cores", "3"}}, true},
      {Req("cores", "Lt", {"4"}), {{"cores", "-10"}}, true},
      {Req("cores", "Lt", {"4"}), {{"cores", "4"}}, false},
      {Req("cores", "Lt", {"4"}), {{"cores", "3.5"}}, false},
      // Malformed requirements never match.
      {Req("cores", "Gt", {"four"}), {{"cores", "8"}}, false},
      {Req("cores", "Gt", {"1", "2"}), {{"cores", "8"}}, false},
      {Req("zone", "In", {}), {{"zone", "a"}}, false},
      {Req("zone", "Exists", {"a"}), {{"zone", "a"}}, false},
      {Req("zone", "Equals", {"a"}), {{"zone", "a"}}, false},
      {Req("zone", "in", {"a"}), {{"zone", "a"}}, false},
      {Req("bad key", "Exists"), {{"bad key", "a"}}, false},
  };
  for (const auto& c : cases) {
    const Node node = MakeNode("n1", c.labels);
    EXPECT_EQ(MatchNodeSelectorTerms(node, Terms({Exprs({c.req})})), c.match)
        << c.req.key << " " << c.req.operator_;
  }
}

TEST(NodeSelectorTest, TermsOrRequirementsAnd) {
  const NodeSelector sel = Terms({
      Exprs({Req("zone", "In", {"a"}), Req("disk", "In", {"ssd"})}),
      Exprs({Req("zone", "In", {"b"})}),
  });
  EXPECT_TRUE(MatchNodeSelectorTerms(MakeNode("n", {{"zone", "a"}, {"disk", "ssd"}}), sel));
  EXPECT_FALSE(MatchNodeSelectorTerms(MakeNode("n", {{"zone", "a"}, {"disk", "hdd"}}), sel));
  EXPECT_TRUE(MatchNodeSelectorTerms(MakeNode("n", {{"zone", "b"}}), sel));
  EXPECT_FALSE(MatchNodeSelectorTerms(MakeNode("n", {{"zone", "c"}, {"disk", "ssd"}}), sel));
}

TEST(NodeSelectorTest, EmptyTermsMatchNothing) {
  const Node node = MakeNode("n1", {{"zone", "a"}});
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({})));
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({NodeSelectorTerm{}})));
  EXPECT_TRUE(MatchNodeSelectorTerms(node, Terms({NodeSelectorTerm{}, Exprs({Req("zone", "In", {"a"})})})));
}

TEST(NodeSelectorTest, MatchFields) {
  const Node node = MakeNode("node-1", {{"zone", "a"}});
  EXPECT_TRUE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "In", {"node-1"})})})));
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "In", {"node-2"})})})));
  EXPECT_TRUE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "NotIn", {"node-2"})})})));
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "NotIn", {"node-1"})})})));
  // Exactly one value, and only In / NotIn.
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "In", {"node-1", "node-2"})})})));
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "In", {})})})));
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("metadata.name", "Exists")})})));
  // Other fields read as empty.
  EXPECT_FALSE(MatchNodeSelectorTerms(node, Terms({Fields({Req("spec.unschedulable", "In", {"true"})})})));
  EXPECT_TRUE(MatchNodeSelectorTerms(node, Terms({Fields({Req("spec.unschedulable", "NotIn", {"true"})})})));
  // Labels and fields in one term are ANDed.
  NodeSelectorTerm both = Exprs({Req("zone", "In", {"a"})});
  both.match_fields = {Req("metadata.name", "In", {"node-1"})};
  EXPECT_TRUE(MatchNodeSelectorTerms(node, Terms({both})));
  EXPECT_FALSE(MatchNodeSelectorTerms(MakeNode("node-1", {{"zone", "b"}}), Terms({both})));
  EXPECT_FALSE(MatchNodeSelectorTerms(MakeNode("node-2", {{"zone", "a"}}), Terms({both})));
  // A node without a name skips field requirements, as kube does.
  EXPECT_TRUE(MatchNodeSelectorTerms(MakeNode("", {}), Terms({Fields({Req("metadata.name", "In", {"x"})})})));
}

TEST(NodeSelectorTest, MalformedTermsFailAlone) {
  const NodeSelector sel = Terms({
      Exprs({Req("zone", "Near", {"a"})}),
      Exprs({Req("zone", "In", {"a"})}),
  });
  const CompiledNodeSelector compiled(sel);
  ASSERT_EQ(compiled.errors().size(), 1u);
  EXPECT_NE(compiled.errors()[0].find("nodeSelectorTerms[0].matchExpressions[0].operator"), std::string::npos)
      << compiled.errors()[0];
  EXPECT_TRUE(compiled.Match(MakeNode("n", {{"zone", "a"}})));
  EXPECT_FALSE(compiled.Match(MakeNode("n", {{"zone", "b"}})));
  auto strict = CompiledNodeSelector::Create(sel);
  EXPECT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), util::StatusCode::kInvalidArgument);
  EXPECT_TRUE(CompiledNodeSelector::Create(Terms({Exprs({Req("zone", "In", {"a"})})})).ok());
  // A malformed requirement spoils its whole term, even if the rest matches.
  const NodeSelector partial = Terms({Exprs({Req("zone", "In", {"a"}), Req("x", "Gt", {"y"})})});
  EXPECT_FALSE(MatchNodeSelectorTerms(MakeNode("n", {{"zone", "a"}, {"x", "5"}}), partial));
}

Pod PodWith(StringMap node_selector, std::optional<NodeSelector> required) {
  Pod pod;
  pod.spec.node_selector = std::move(node_selector);
  if (required) {
    pod.spec.affinity.emplace();
    pod.spec.affinity.Mutable().node_affinity.emplace();
    pod.spec.affinity.Mutable().node_affinity->required_during_scheduling_ignored_during_execution = std::move(required);
  }
  return pod;
}

TEST(NodeSelectorPodTest, NodeSelectorMap) {
  const Node node = MakeNode("n", {{"zone", "a"}, {"disk", "ssd"}});
  EXPECT_TRUE(PodMatchesNodeSelector(PodWith({}, std::nullopt), node));
  EXPECT_TRUE(PodMatchesNodeSelector(PodWith({{"zone", "a"}}, std::nullopt), node));
  EXPECT_TRUE(PodMatchesNodeSelector(PodWith({{"zone", "a"}, {"disk", "ssd"}}, std::nullopt), node));
  EXPECT_FALSE(PodMatchesNodeSelector(PodWith({{"zone", "b"}}, std::nullopt), node));
  EXPECT_FALSE(PodMatchesNodeSelector(PodWith({{"gpu", "true"}}, std::nullopt), node));
  EXPECT_FALSE(PodMatchesNodeSelector(PodWith({{"zone", ""}}, std::nullopt), node));
}

TEST(NodeSelectorPodTest, SelectorAndRequiredAffinity) {
  const Node zone_a = MakeNode("n1", {{"zone", "a"}, {"disk", "ssd"}});
  const Node zone_b = MakeNode("n2", {{"zone", "b"}, {"disk", "ssd"}});
  const Node bare = MakeNode("n3", {});

  const Pod unconstrained = PodWith({}, std::nullopt);
  EXPECT_TRUE(PodMatchesNodeSelectorAndAffinityTerms(unconstrained, bare));

  const Pod selector_only = PodWith({{"disk", "ssd"}}, std::nullopt);
  EXPECT_TRUE(PodMatchesNodeSelectorAndAffinityTerms(selector_only, zone_a));
  EXPECT_FALSE(PodMatchesNodeSelectorAndAffinityTerms(selector_only, bare));

  const Pod affinity_only = PodWith({}, Terms({Exprs({Req("zone", "In", {"a"})})}));
  EXPECT_TRUE(PodMatchesNodeSelectorAndAffinityTerms(affinity_only, zone_a));
  EXPECT_FALSE(PodMatchesNodeSelectorAndAffinityTerms(affinity_only, zone_b));

  const Pod both = PodWith({{"disk", "ssd"}}, Terms({Exprs({Req("zone", "NotIn", {"a"})})}));
  EXPECT_FALSE(PodMatchesNodeSelectorAndAffinityTerms(both, zone_a));
  EXPECT_TRUE(PodMatchesNodeSelectorAndAffinityTerms(both, zone_b));
  EXPECT_FALSE(PodMatchesNodeSelectorAndAffinityTerms(both, bare));

  // A required affinity with no terms admits no node.
  const Pod no_terms = PodWith({}, Terms({}));
  EXPECT_FALSE(PodMatchesNodeSelectorAndAffinityTerms(no_terms, zone_a));

  // An affinity object without a required part imposes nothing.
  Pod preferred_only;
  preferred_only.spec.affinity.emplace();
  preferred_only.spec.affinity.Mutable().node_affinity.emplace();
  EXPECT_TRUE(PodMatchesNodeSelectorAndAffinityTerms(preferred_only, bare));

  // Compiled once, matched many times.
  const RequiredNodeAffinity compiled(both);
  EXPECT_TRUE(compiled.Match(zone_b));
  EXPECT_FALSE(compiled.Match(zone_a));
}

TEST(NodeSelectorPreferredTest, ScoreSumsMatchingWeights) {
  std::vector<PreferredSchedulingTerm> terms = {
      {10, Exprs({Req("zone", "In", {"a"})})},
      {5, Exprs({Req("disk", "In", {"ssd"})})},
      {0, Exprs({Req("zone", "Exists")})},  // weight 0: ignored
      {7, NodeSelectorTerm{}},              // empty: ignored
      {3, Fields({Req("metadata.name", "In", {"n1"})})},
  };
  auto prefs = PreferredSchedulingTerms::Create(terms);
  ASSERT_TRUE(prefs.ok()) << prefs.status().ToString();
  EXPECT_EQ(prefs->Score(MakeNode("n1", {{"zone", "a"}, {"disk", "ssd"}})), 18);
  EXPECT_EQ(prefs->Score(MakeNode("n2", {{"zone", "a"}})), 10);
  EXPECT_EQ(prefs->Score(MakeNode("n2", {{"disk", "ssd"}})), 5);
  EXPECT_EQ(prefs->Score(MakeNode("n2", {})), 0);

  terms.push_back({1, Exprs({Req("zone", "Sideways")})});
  EXPECT_FALSE(PreferredSchedulingTerms::Create(terms).ok());
  auto none = PreferredSchedulingTerms::Create({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->Score(MakeNode("n", {{"zone", "a"}})), 0);
}

TEST(NodeSelectorTopologyTest, AllowedTopologies) {
  const StringMap labels = {{"topology.kubernetes.io/zone", "us-east-1a"}, {"rack", "r1"}};
  EXPECT_TRUE(MatchTopologySelectorTerms({}, labels));
  EXPECT_FALSE(MatchTopologySelectorTerms({TopologySelectorTerm{}}, labels));

  TopologySelectorTerm zone;
  zone.match_label_expressions = {{"topology.kubernetes.io/zone", {"us-east-1a", "us-east-1b"}}};
  EXPECT_TRUE(MatchTopologySelectorTerms({zone}, labels));
  EXPECT_FALSE(MatchTopologySelectorTerms({zone}, {{"topology.kubernetes.io/zone", "us-west-1a"}}));
  EXPECT_FALSE(MatchTopologySelectorTerms({zone}, {}));

  TopologySelectorTerm zone_and_rack = zone;
  zone_and_rack.match_label_expressions.push_back({"rack", {"r2"}});
  EXPECT_FALSE(MatchTopologySelectorTerms({zone_and_rack}, labels));
  EXPECT_TRUE(MatchTopologySelectorTerms({zone_and_rack, zone}, labels));  // ORed

  TopologySelectorTerm malformed;
  malformed.match_label_expressions = {{"rack", {}}};  // "in" with no values
  EXPECT_FALSE(MatchTopologySelectorTerms({malformed}, labels));
}

}  // namespace
}  // namespace ksched::api
