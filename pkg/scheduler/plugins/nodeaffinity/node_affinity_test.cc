#include "pkg/scheduler/plugins/nodeaffinity/node_affinity.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/helper/other_args.h"

namespace ksched::scheduler::plugins::nodeaffinity {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;

api::NodeSelectorRequirement Req(std::string key, std::string op, std::vector<std::string> values) {
  return {std::move(key), std::move(op), std::move(values)};
}

api::NodeSelectorTerm Exprs(std::vector<api::NodeSelectorRequirement> exprs) {
  api::NodeSelectorTerm t;
  t.match_expressions = std::move(exprs);
  return t;
}

api::NodeSelectorTerm Fields(std::vector<api::NodeSelectorRequirement> fields,
                             std::vector<api::NodeSelectorRequirement> exprs = {}) {
  api::NodeSelectorTerm t;
  t.match_fields = std::move(fields);
  t.match_expressions = std::move(exprs);
  return t;
}

std::shared_ptr<const api::Node> MakeNode(const std::string& name, api::StringMap labels) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->metadata.labels = std::move(labels);
  return n;
}

struct PodSpec {
  api::StringMap node_selector;
  std::optional<std::vector<api::NodeSelectorTerm>> required;
  std::vector<api::PreferredSchedulingTerm> preferred;
};

std::shared_ptr<api::Pod> MakePod(const PodSpec& spec) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod";
  p->metadata.uid = "uid";
  p->spec.node_selector = spec.node_selector;
  if (spec.required || !spec.preferred.empty()) {
    api::NodeAffinity na;
    if (spec.required) na.required_during_scheduling_ignored_during_execution = api::NodeSelector{*spec.required};
    na.preferred_during_scheduling_ignored_during_execution = spec.preferred;
    p->spec.affinity.emplace();
    p->spec.affinity.Mutable().node_affinity = na;
  }
  return p;
}

std::unique_ptr<NodeAffinity> NewOrDie(std::optional<api::NodeAffinity> added = std::nullopt,
                                       bool queueing_hints = true) {
  config::PluginArgs args = std::monostate();
  if (added) args = NodeAffinityArgs{added};
  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = queueing_hints;
  auto pl = New(args, gates);
  EXPECT_TRUE(pl.ok()) << pl.status().ToString();
  return std::move(pl).value();
}

api::NodeAffinity AddedRequired(std::vector<api::NodeSelectorTerm> terms) {
  api::NodeAffinity a;
  a.required_during_scheduling_ignored_during_execution = api::NodeSelector{std::move(terms)};
  return a;
}

TEST(NodeAffinityTest, Filter) {
  using Names = std::set<std::string, std::less<>>;
  struct Case {
    const char* name;
    PodSpec pod;
    api::StringMap labels;
    std::string node_name = "node1";
    std::optional<api::NodeAffinity> added;
    Code want = Code::kSuccess;
    std::string want_reason;
    bool want_pre_filter_skip = false;
    std::optional<Names> want_pre_filter_nodes;
    Code want_pre_filter = Code::kSuccess;
  };
  const std::string pod_reason(kErrReasonPod);
  const std::string enforced_reason(kErrReasonEnforced);
  const Case cases[] = {
      {.name = "no selector or affinity", .pod = {}, .labels = {}, .want_pre_filter_skip = true},
      {.name = "missing labels",
       .pod = {.node_selector = {{"foo", "bar"}}},
       .labels = {},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "same labels", .pod = {.node_selector = {{"foo", "bar"}}}, .labels = {{"foo", "bar"}}},
      {.name = "node labels are superset",
       .pod = {.node_selector = {{"foo", "bar"}}},
       .labels = {{"foo", "bar"}, {"baz", "blah"}}},
      {.name = "node labels are subset",
       .pod = {.node_selector = {{"foo", "bar"}, {"baz", "blah"}}},
       .labels = {{"foo", "bar"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "In operator that matches",
       .pod = {.required = std::vector{Exprs({Req("foo", "In", {"bar", "value2"})})}},
       .labels = {{"foo", "bar"}}},
      {.name = "Gt operator that matches",
       .pod = {.required = std::vector{Exprs({Req("kernel-version", "Gt", {"0204"})})}},
       .labels = {{"kernel-version", "0206"}}},
      {.name = "NotIn operator that matches",
       .pod = {.required = std::vector{Exprs({Req("mem-type", "NotIn", {"DDR", "DDR2"})})}},
       .labels = {{"mem-type", "DDR3"}}},
      {.name = "Exists operator that matches",
       .pod = {.required = std::vector{Exprs({Req("GPU", "Exists", {})})}},
       .labels = {{"GPU", "NVIDIA-GRID-K1"}}},
      {.name = "In operator that does not match",
       .pod = {.required = std::vector{Exprs({Req("foo", "In", {"value1", "value2"})})}},
       .labels = {{"foo", "bar"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "empty nodeSelectorTerms match nothing",
       .pod = {.required = std::vector<api::NodeSelectorTerm>{}},
       .labels = {{"foo", "bar"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "an empty term matches nothing",
       .pod = {.required = std::vector{Exprs({})}},
       .labels = {{"foo", "bar"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "expressions of a term are ANDed",
       .pod = {.required = std::vector{Exprs({Req("kernel-version", "Gt", {"0204"}),
                                              Req("mem-type", "NotIn", {"DDR", "DDR2"}), Req("GPU", "Exists", {})})}},
       .labels = {{"GPU", "NVIDIA-GRID-K1"}, {"kernel-version", "0206"}, {"mem-type", "DDR3"}}},
      {.name = "one failing expression fails the term",
       .pod = {.required = std::vector{Exprs({Req("kernel-version", "Gt", {"0204"}),
                                              Req("mem-type", "NotIn", {"DDR", "DDR2"}), Req("GPU", "Exists", {})})}},
       .labels = {{"GPU", "NVIDIA-GRID-K1"}, {"kernel-version", "0206"}, {"mem-type", "DDR"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "terms are ORed",
       .pod = {.required = std::vector{Exprs({Req("foo", "In", {"bar", "value2"})}),
                                       Exprs({Req("diffkey", "In", {"wrong", "value2"})})}},
       .labels = {{"diffkey", "value2"}}},
      {.name = "nodeSelector and affinity both match",
       .pod = {.node_selector = {{"foo", "bar"}}, .required = std::vector{Exprs({Req("foo", "Exists", {})})}},
       .labels = {{"foo", "bar"}}},
      {.name = "affinity matches but nodeSelector does not",
       .pod = {.node_selector = {{"foo", "bar"}}, .required = std::vector{Exprs({Req("foo", "Exists", {})})}},
       .labels = {{"foo", "baz"}},
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
      {.name = "matchFields pins the node",
       .pod = {.required = std::vector{Fields({Req("metadata.name", "In", {"node1"})})}},
       .labels = {},
       .want_pre_filter_nodes = Names{"node1"}},
      {.name = "matchFields pins another node",
       .pod = {.required = std::vector{Fields({Req("metadata.name", "In", {"node1"})})}},
       .labels = {},
       .node_name = "node2",
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason,
       .want_pre_filter_nodes = Names{"node1"}},
      {.name = "matchFields of two terms are united",
       .pod = {.required = std::vector{Fields({Req("metadata.name", "In", {"node1"})}),
                                       Fields({Req("metadata.name", "In", {"node2"})})}},
       .labels = {},
       .node_name = "node2",
       .want_pre_filter_nodes = Names{"node1", "node2"}},
      // PreFilter intersects the names; Filter then rejects the node because
      // a matchFields requirement must have exactly one value (a malformed
      // term matches nothing), as kube does.
      {.name = "matchFields within a term are intersected",
       .pod = {.required = std::vector{Fields(
                   {Req("metadata.name", "In", {"node1", "node2"}), Req("metadata.name", "In", {"node2", "node3"})})}},
       .labels = {},
       .node_name = "node2",
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason,
       .want_pre_filter_nodes = Names{"node2"}},
      {.name = "matchFields and matchExpressions in one term",
       .pod = {.required = std::vector{Fields({Req("metadata.name", "In", {"node1"})}, {Req("foo", "In", {"bar"})})}},
       .labels = {{"foo", "bar"}},
       .want_pre_filter_nodes = Names{"node1"}},
      {.name = "a term without matchFields allows every node",
       .pod = {.required =
                   std::vector{Fields({Req("metadata.name", "In", {"node1"})}), Exprs({Req("foo", "In", {"bar"})})}},
       .labels = {{"foo", "bar"}},
       .node_name = "node2"},
      {.name = "NotIn matchFields does not narrow the nodes",
       .pod = {.required = std::vector{Fields({Req("metadata.name", "NotIn", {"node1"})})}},
       .labels = {},
       .node_name = "node2"},
      {.name = "conflicting matchFields",
       .pod = {.required =
                   std::vector{Fields({Req("metadata.name", "In", {"node1"}), Req("metadata.name", "In", {"node2"})})}},
       .labels = {},
       .want_pre_filter = Code::kUnschedulableAndUnresolvable},
      {.name = "added affinity rejects the node",
       .pod = {},
       .labels = {{"foo", "bar"}},
       .added = AddedRequired({Exprs({Req("zone", "In", {"foo"})})}),
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = enforced_reason},
      {.name = "added affinity and the pod's selector both match",
       .pod = {.node_selector = {{"foo", "bar"}}},
       .labels = {{"foo", "bar"}, {"zone", "foo"}},
       .added = AddedRequired({Exprs({Req("zone", "In", {"foo"})})})},
      {.name = "added affinity matches, the pod's selector does not",
       .pod = {.node_selector = {{"foo", "bar"}}},
       .labels = {{"zone", "foo"}},
       .added = AddedRequired({Exprs({Req("zone", "In", {"foo"})})}),
       .want = Code::kUnschedulableAndUnresolvable,
       .want_reason = pod_reason},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto pl = NewOrDie(c.added);
    auto pod = MakePod(c.pod);
    framework::NodeInfo node_info(MakeNode(c.node_name, c.labels));
    framework::CycleState state;
    auto [result, pre_status] = pl->PreFilter(state, *pod, {&node_info});
    EXPECT_EQ(pre_status.IsSkip(), c.want_pre_filter_skip);
    if (c.want_pre_filter != Code::kSuccess) {
      EXPECT_EQ(pre_status.code(), c.want_pre_filter);
      EXPECT_EQ(pre_status.reasons(), std::vector<std::string>{"pod affinity terms conflict"});
      continue;
    }
    if (!c.want_pre_filter_skip) {
      EXPECT_TRUE(pre_status.IsSuccess()) << pre_status.ToString();
    }
    EXPECT_EQ(result.node_names, c.want_pre_filter_nodes);
    framework::Status s = pl->Filter(state, *pod, node_info);
    EXPECT_EQ(s.code(), c.want);
    if (c.want != Code::kSuccess) {
      EXPECT_EQ(s.reasons(), std::vector<std::string>{c.want_reason});
    }
    // Again from the node's memo: the same answer.
    framework::Status again = pl->Filter(state, *pod, node_info);
    EXPECT_EQ(again.code(), c.want);
    EXPECT_EQ(again.reasons(), s.reasons());
    // Without PreFilter's state Filter computes the same answer.
    framework::CycleState empty;
    EXPECT_EQ(pl->Filter(empty, *pod, node_info).code(), c.want);
  }
}

// The memo answers pods that select nodes alike, for the node state it was
// stored in: a label changed behind the NodeInfo's back is not seen until the
// NodeInfo changes.
TEST(NodeAffinityTest, FilterVerdictsAreKeptPerSelectionUntilTheNodeChanges) {
  auto pl = NewOrDie();
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "n";
  node->metadata.labels = {{"zone", "a"}};
  framework::NodeInfo node_info(node);
  auto filter = [&](const api::Pod& pod) {
    framework::CycleState state;
    auto [result, pre] = pl->PreFilter(state, pod, {&node_info});
    EXPECT_TRUE(pre.IsSuccess()) << pre.ToString();
    return pl->Filter(state, pod, node_info).code();
  };
  const auto in_a = MakePod({.required = std::vector{Exprs({Req("zone", "In", {"a"})})}});
  auto in_a_too = MakePod({.required = std::vector{Exprs({Req("zone", "In", {"a"})})}});
  in_a_too->metadata.name = "other";
  const auto by_selector = MakePod({.node_selector = {{"zone", "a"}}});
  EXPECT_EQ(filter(*in_a), Code::kSuccess);

  node->metadata.labels = {{"zone", "b"}};  // unknown to the NodeInfo
  EXPECT_EQ(filter(*in_a_too), Code::kSuccess);  // the stored verdict
  EXPECT_EQ(filter(*by_selector), Code::kUnschedulableAndUnresolvable);  // another selection: computed

  node_info.SetNode(node);  // the NodeInfo changes: its memo is cleared
  EXPECT_EQ(filter(*in_a), Code::kUnschedulableAndUnresolvable);
  node->metadata.labels = {{"zone", "a"}};
  EXPECT_EQ(filter(*in_a), Code::kUnschedulableAndUnresolvable);  // a rejection is kept too
  framework::NodeInfo copy = node_info;
  copy.RemoveNode();
  copy.SetNode(node);
  EXPECT_EQ(filter(*in_a), Code::kUnschedulableAndUnresolvable);
  framework::CycleState state;
  auto [result, pre] = pl->PreFilter(state, *in_a, {&copy});
  EXPECT_EQ(pl->Filter(state, *in_a, copy).code(), Code::kSuccess);  // the changed copy computes afresh
}

api::PreferredSchedulingTerm Pref(int32_t weight, std::vector<api::NodeSelectorRequirement> exprs) {
  return {weight, Exprs(std::move(exprs))};
}

TEST(NodeAffinityTest, Score) {
  const api::StringMap label1 = {{"foo", "bar"}};
  const api::StringMap label2 = {{"key", "value"}};
  const api::StringMap label3 = {{"az", "az1"}};
  const api::StringMap label4 = {{"abc", "az11"}, {"def", "az22"}};
  const api::StringMap label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const std::vector<api::PreferredSchedulingTerm> affinity1 = {Pref(2, {Req("foo", "In", {"bar"})})};
  const std::vector<api::PreferredSchedulingTerm> affinity2 = {
      Pref(2, {Req("foo", "In", {"bar"})}),
      Pref(4, {Req("key", "In", {"value"})}),
      Pref(5, {Req("foo", "In", {"bar"}), Req("key", "In", {"value"}), Req("az", "In", {"az1"})}),
  };
  auto added_preferred = [](std::vector<api::PreferredSchedulingTerm> terms) {
    api::NodeAffinity a;
    a.preferred_during_scheduling_ignored_during_execution = std::move(terms);
    return a;
  };
  struct Case {
    const char* name;
    std::vector<api::PreferredSchedulingTerm> preferred;
    std::vector<api::StringMap> node_labels;
    std::optional<api::NodeAffinity> added;
    bool want_skip;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      {"no preferred affinity: PreScore skips", {}, {label1, label2, label3}, std::nullopt, true, {}},
      {"no node matches", affinity1, {label4, label2, label3}, std::nullopt, false, {0, 0, 0}},
      {"only node1 matches", affinity1, {label1, label2, label3}, std::nullopt, false, {100, 0, 0}},
      // Raw scores 2, 11, 4.
      {"different priorities", affinity2, {label1, label5, label2}, std::nullopt, false, {18, 100, 36}},
      {"added affinity only",
       {},
       {label1, label2},
       added_preferred({Pref(5, {Req("foo", "In", {"bar"})})}),
       false,
       {100, 0}},
      // Raw scores 2, 3, 5.
      {"added affinity and the pod's",
       affinity1,
       {label1, label2, label5},
       added_preferred({Pref(3, {Req("key", "In", {"value"})})}),
       false,
       {40, 60, 100}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto pl = NewOrDie(c.added);
    auto pod = MakePod({.preferred = c.preferred});
    std::vector<framework::NodeInfo> infos;
    for (size_t i = 0; i < c.node_labels.size(); ++i) {
      infos.emplace_back(MakeNode("node" + std::to_string(i), c.node_labels[i]));
    }
    framework::NodeInfoList list;
    for (const auto& ni : infos) list.push_back(&ni);
    framework::CycleState state;
    framework::Status pre = pl->PreScore(state, *pod, list);
    EXPECT_EQ(pre.IsSkip(), c.want_skip);
    if (c.want_skip) continue;
    ASSERT_TRUE(pre.IsSuccess());
    framework::NodeScoreList scores;
    framework::CycleState no_prescore;
    std::vector<int64_t> raw_fallback;
    for (const auto& ni : infos) {
      auto [score, status] = pl->Score(state, *pod, ni);
      ASSERT_TRUE(status.IsSuccess());
      scores.push_back({ni.node_name(), score});
      raw_fallback.push_back(pl->Score(no_prescore, *pod, ni).first);
    }
    for (size_t i = 0; i < scores.size(); ++i) EXPECT_EQ(raw_fallback[i], scores[i].score);
    ASSERT_NE(pl->GetScoreExtensions(), nullptr);
    ASSERT_TRUE(pl->GetScoreExtensions()->NormalizeScore(state, *pod, scores).IsSuccess());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want);
  }
}

TEST(NodeAffinityTest, PreScoreRejectsMalformedPreferredTerms) {
  auto pl = NewOrDie();
  auto pod = MakePod({.preferred = {Pref(1, {Req("foo", "Bad", {"bar"})})}});
  framework::CycleState state;
  EXPECT_EQ(pl->PreScore(state, *pod, {}).code(), Code::kError);
}

TEST(NodeAffinityTest, New) {
  EXPECT_EQ(NewOrDie()->Name(), "NodeAffinity");
  auto bad =
      New(NodeAffinityArgs{AddedRequired({Exprs({Req("foo", "Bad", {"x"})})})}, framework::FeatureGates());
  EXPECT_FALSE(bad.ok());
  auto wrong = New(helper::OtherArgs{}, framework::FeatureGates());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "want args to be of type NodeAffinityArgs, got OtherArgs");
}

TEST(NodeAffinityTest, EventsToRegister) {
  auto on = NewOrDie()->EventsToRegister();
  ASSERT_TRUE(on.ok());
  ASSERT_EQ(on->size(), 1u);
  EXPECT_EQ((*on)[0].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel));
  EXPECT_TRUE((*on)[0].queueing_hint_fn);

  auto off = NewOrDie(std::nullopt, false)->EventsToRegister();
  ASSERT_TRUE(off.ok());
  ASSERT_EQ(off->size(), 1u);
  EXPECT_EQ((*off)[0].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel |
                                                                          ActionType::kUpdateNodeTaint));
  EXPECT_TRUE((*off)[0].queueing_hint_fn);
}

TEST(NodeAffinityTest, IsSchedulableAfterNodeChange) {
  const auto added = AddedRequired({Exprs({Req("zone", "In", {"foo"})})});
  struct Case {
    const char* name;
    std::optional<api::NodeAffinity> added;
    EventObject old_obj;
    EventObject new_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"wrong new object", std::nullopt, EventObject(), EventObject(std::make_shared<const api::Pod>()), true,
       QueueingHint::kQueue},
      {"wrong old object", std::nullopt, EventObject(std::make_shared<const api::Pod>()),
       EventObject(MakeNode("n", {})), true, QueueingHint::kQueue},
      {"node added without the label", std::nullopt, EventObject(), EventObject(MakeNode("n", {})), false,
       QueueingHint::kQueueSkip},
      {"node added with the label", std::nullopt, EventObject(), EventObject(MakeNode("n", {{"foo", "bar"}})), false,
       QueueingHint::kQueue},
      {"unrelated label change of a matching node", std::nullopt, EventObject(MakeNode("n", {{"foo", "bar"}})),
       EventObject(MakeNode("n", {{"foo", "bar"}, {"x", "y"}})), false, QueueingHint::kQueueSkip},
      {"label change that still does not match", std::nullopt, EventObject(MakeNode("n", {})),
       EventObject(MakeNode("n", {{"x", "y"}})), false, QueueingHint::kQueueSkip},
      {"label change that makes the node match", std::nullopt, EventObject(MakeNode("n", {})),
       EventObject(MakeNode("n", {{"foo", "bar"}})), false, QueueingHint::kQueue},
      {"added node misses the enforced affinity", added, EventObject(), EventObject(MakeNode("n", {{"foo", "bar"}})),
       false, QueueingHint::kQueueSkip},
      {"added node matches the enforced affinity", added, EventObject(),
       EventObject(MakeNode("n", {{"foo", "bar"}, {"zone", "foo"}})), false, QueueingHint::kQueue},
  };
  auto pod = MakePod({.node_selector = {{"foo", "bar"}}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto pl = NewOrDie(c.added);
    auto got = pl->IsSchedulableAfterNodeChange(*pod, c.old_obj, c.new_obj);
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
    auto events = pl->EventsToRegister();
    ASSERT_TRUE(events.ok());
    auto via_registration = (*events)[0].queueing_hint_fn(*pod, c.old_obj, c.new_obj);
    ASSERT_EQ(via_registration.ok(), got.ok());
    if (got.ok()) {
      EXPECT_EQ(*via_registration, *got);
    }
  }
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeaffinity
