#include "pkg/scheduler/attempt_record.h"

#include <gtest/gtest.h>

#include <memory>

#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using framework::NodeInfo;
using framework::NodeInfoList;
using framework::NodeScoreList;
using framework::NodeToStatus;
using testing::Code;
using testing::Node;
using testing::Pod;
using testing::Status;

using Outcome = framework::CycleObserver::Outcome;
using ScoreView = framework::CycleObserver::ScoreView;

// Plugin j's raw scores, as the framework keeps them (NormalizeScore's
// input) from NodeScoreLists.
std::vector<std::vector<int64_t>> RawOf(const std::vector<NodeScoreList>& lists) {
  std::vector<std::vector<int64_t>> out;
  for (const NodeScoreList& l : lists) {
    out.emplace_back();
    for (const framework::NodeScore& s : l) out.back().push_back(s.score);
  }
  return out;
}

std::vector<std::string> TopNames(const Attempt& a) {
  std::vector<std::string> out;
  for (size_t r = 0; r < a.top_nodes.size(); ++r) out.emplace_back(a.TopNodeName(r));
  return out;
}

Status Rejected(const std::string& plugin, const std::string& reason) {
  Status s(Code::kUnschedulable, reason);
  s.WithPlugin(plugin);
  return s;
}

// `message` outlives the Outcome (a literal, or a string the test keeps).
Outcome Failed(int64_t cycle, int nodes, std::string_view message) {
  Outcome o;
  o.cycle = cycle;
  o.profile = "ksched";
  o.unschedulable = true;
  o.num_all_nodes = nodes;
  o.message = message;
  return o;
}

TEST(AttemptRecordTest, CountsFilterVerdictsByPluginAndReasonAsTheMessageDoes) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  auto pod = Pod("web");
  NodeToStatus rejected;
  rejected.Set("n1", Rejected("NodeResourcesFit", "Insufficient cpu"));
  rejected.Set("n2", Rejected("NodeResourcesFit", "Insufficient cpu"));
  Status both(Code::kUnschedulable, std::vector<std::string>{"Insufficient cpu", "Insufficient memory"});
  both.WithPlugin("NodeResourcesFit");
  rejected.Set("n3", both);
  rejected.Set("n4", Rejected("TaintToleration", "node(s) had untolerated taint(s)"));
  record.ObserveFilter(*pod, {}, rejected);
  record.ObserveOutcome(*pod, Failed(7, 4, "0/4 nodes are available: ..."));

  std::optional<Attempt> a = record.Get("default", "web");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->result, "Unschedulable");
  EXPECT_EQ(a->cycle, 7);
  EXPECT_EQ(a->message, "0/4 nodes are available: ...");
  EXPECT_EQ(a->time, clock.WallNow());
  EXPECT_EQ(a->num_all_nodes, 4);
  EXPECT_EQ(a->evaluated_nodes, 4);
  ASSERT_EQ(a->filter_counts.size(), 3u);
  EXPECT_EQ(a->filter_counts[0].plugin, "NodeResourcesFit");
  EXPECT_EQ(a->filter_counts[0].reason, "Insufficient cpu");
  EXPECT_EQ(a->filter_counts[0].nodes, 3);
  EXPECT_EQ(a->filter_counts[1].reason, "Insufficient memory");
  EXPECT_EQ(a->filter_counts[1].nodes, 1);
  EXPECT_EQ(a->filter_counts[2].plugin, "TaintToleration");
  EXPECT_EQ(a->filter_counts[2].nodes, 1);
}

TEST(AttemptRecordTest, NodesWithoutAnExplicitStatusCountTheAbsentStatus) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  auto pod = Pod("p");
  NodeToStatus rejected;
  Status absent(Code::kUnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector");
  absent.WithPlugin("NodeAffinity");
  rejected.SetAbsentNodesStatus(absent);
  rejected.Set("n1", Rejected("NodeResourcesFit", "Insufficient cpu"));
  record.ObserveFilter(*pod, {}, rejected);
  record.ObserveOutcome(*pod, Failed(1, 5, "m"));
  std::optional<Attempt> a = record.Get("default", "p");
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->filter_counts.size(), 2u);
  EXPECT_EQ(a->filter_counts[0].plugin, "NodeAffinity");
  EXPECT_EQ(a->filter_counts[0].nodes, 4);
  EXPECT_EQ(a->filter_counts[1].nodes, 1);
}

// The best k by total; among equal totals the scheduler's node order.
TEST(AttemptRecordTest, TopNodesAreTheBestTotalsInNodeOrder) {
  util::FakeClock clock;
  AttemptRecord record(10, 3, clock);
  auto pod = Pod("p");
  NodeInfo n0(Node("e")), n1(Node("d")), n2(Node("c")), n3(Node("b")), n4(Node("a"));
  NodeInfoList nodes = {&n0, &n1, &n2, &n3, &n4};
  record.ObserveFilter(*pod, nodes, NodeToStatus());
  std::vector<NodeScoreList> scores = {{{"e", 5}, {"d", 9}, {"c", 9}, {"b", 1}, {"a", 9}}};
  std::vector<std::string_view> plugins = {"Fit"};
  std::vector<int64_t> weights = {1};
  std::vector<std::vector<int64_t>> no_raw(1);  // Fit does not normalize
  std::vector<int64_t> totals = {5, 9, 9, 1, 9};
  record.ObserveScores(*pod, ScoreView{nodes, plugins, weights, scores, no_raw, totals});
  Outcome o;
  o.unschedulable = true;
  o.num_all_nodes = 5;
  record.ObserveOutcome(*pod, o);
  std::optional<Attempt> at = record.Get("default", "p");
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(TopNames(*at), (std::vector<std::string>{"d", "c", "a"}));
  EXPECT_EQ(at->Raw(0, 0), 9);
  EXPECT_EQ(at->Normalized(2, 0), 9);
}

TEST(AttemptRecordTest, KeepsTheBestNodesWithRawNormalizedAndWeightedScores) {
  util::FakeClock clock;
  AttemptRecord record(10, 2, clock);
  auto pod = Pod("p");
  NodeInfo a(Node("a")), b(Node("b")), c(Node("c"));
  NodeInfoList nodes = {&a, &b, &c};
  record.ObserveFilter(*pod, nodes, NodeToStatus());
  std::vector<std::string_view> plugins = {"Fit", "Balanced"};
  std::vector<int64_t> weights = {1, 2};
  std::vector<NodeScoreList> raw = {{{"a", 500}, {"b", 900}, {"c", 100}}, {{"a", 7}, {"b", 3}, {"c", 9}}};
  std::vector<NodeScoreList> normalized = {{{"a", 50}, {"b", 90}, {"c", 10}}, {{"a", 70}, {"b", 30}, {"c", 90}}};
  // Totals: a 50+140=190, b 90+60=150, c 10+180=190 (tie: node order).
  std::vector<std::vector<int64_t>> kept = RawOf(raw);
  std::vector<int64_t> totals = {190, 150, 190};
  record.ObserveScores(*pod, ScoreView{nodes, plugins, weights, normalized, kept, totals});
  Outcome o;
  o.scheduled = true;
  o.node = "c";  // a tie with "a", chosen by the tie-break
  o.num_all_nodes = 3;
  o.evaluated_nodes = 3;
  o.feasible_nodes = 3;
  record.ObserveOutcome(*pod, o);

  std::optional<Attempt> at = record.Get("default", "p");
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->result, "Scheduled");
  EXPECT_EQ(at->node, "c");
  EXPECT_EQ(at->scored_nodes, 3);
  ASSERT_NE(at->score_columns, nullptr);
  EXPECT_EQ(at->score_columns->plugins, (std::vector<std::string>{"Fit", "Balanced"}));
  EXPECT_EQ(at->score_columns->weights, weights);
  ASSERT_EQ(at->top_nodes.size(), 2u);
  EXPECT_EQ(at->TopNodeName(0), "c");  // the chosen one first among equals
  EXPECT_EQ(at->top_nodes[0].total, 190);
  EXPECT_EQ(at->TopNodeName(1), "a");
  EXPECT_EQ(at->top_nodes[1].total, 190);
  // The scores moved with their rows.
  EXPECT_EQ(at->Raw(0, 0), 100);
  EXPECT_EQ(at->Normalized(0, 0), 10);
  EXPECT_EQ(at->Raw(0, 1), 9);
  EXPECT_EQ(at->Normalized(0, 1), 90);
  EXPECT_EQ(at->Raw(1, 0), 500);
  EXPECT_EQ(at->Raw(1, 1), 7);
  EXPECT_EQ(at->Normalized(1, 0), 50);
  EXPECT_EQ(at->Normalized(1, 1), 70);
  EXPECT_TRUE(at->filter_counts.empty());
}

// A plugin without NormalizeScore has no raw scores of its own: the
// attempt keeps raw scores for the normalizing plugins only.
TEST(AttemptRecordTest, KeepsRawScoresOnlyOfPluginsThatNormalize) {
  util::FakeClock clock;
  AttemptRecord record(10, 2, clock);
  auto pod = Pod("p");
  NodeInfo a(Node("a")), b(Node("b"));
  NodeInfoList nodes = {&a, &b};
  record.ObserveFilter(*pod, nodes, NodeToStatus());
  std::vector<std::string_view> plugins = {"Fit", "Spread", "Balanced"};
  std::vector<int64_t> weights = {1, 2, 1};
  std::vector<NodeScoreList> normalized = {{{"a", 40}, {"b", 60}}, {{"a", 80}, {"b", 70}}, {{"a", 30}, {"b", 50}}};
  std::vector<std::vector<int64_t>> raw = {{}, {2, 9}, {}};  // only Spread normalizes
  std::vector<int64_t> totals = {230, 250};
  record.ObserveScores(*pod, ScoreView{nodes, plugins, weights, normalized, raw, totals});
  Outcome o;
  o.scheduled = true;
  o.node = "b";
  record.ObserveOutcome(*pod, o);

  std::optional<Attempt> at = record.Get("default", "p");
  ASSERT_TRUE(at.has_value());
  ASSERT_EQ(at->top_nodes.size(), 2u);
  EXPECT_EQ(at->top_raw.size(), 2u);  // one raw score per row
  EXPECT_EQ(at->score_columns->raw_column, (std::vector<int32_t>{-1, 0, -1}));
  EXPECT_EQ(at->TopNodeName(0), "b");
  EXPECT_EQ(at->Raw(0, 0), 60);
  EXPECT_EQ(at->Raw(0, 1), 9);
  EXPECT_EQ(at->Normalized(0, 1), 70);
  EXPECT_EQ(at->Raw(0, 2), 50);
  EXPECT_EQ(at->Raw(1, 0), 40);
  EXPECT_EQ(at->Raw(1, 1), 2);
  EXPECT_EQ(at->Raw(1, 2), 30);

  // A tie: the chosen node's row goes first, its scores with it.
  auto tied = Pod("t");
  record.ObserveFilter(*tied, nodes, NodeToStatus());
  std::vector<int64_t> tie = {240, 240};
  record.ObserveScores(*tied, ScoreView{nodes, plugins, weights, normalized, raw, tie});
  record.ObserveOutcome(*tied, o);
  std::optional<Attempt> t = record.Get("default", "t");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->TopNodeName(0), "b");
  EXPECT_EQ(t->Raw(0, 0), 60);
  EXPECT_EQ(t->Raw(0, 1), 9);
  EXPECT_EQ(t->Raw(0, 2), 50);
  EXPECT_EQ(t->TopNodeName(1), "a");
  EXPECT_EQ(t->Raw(1, 1), 2);

  // Same plugins and weights, another normalizing set: other columns.
  auto other = Pod("q");
  record.ObserveFilter(*other, nodes, NodeToStatus());
  std::vector<std::vector<int64_t>> all_raw = {{4, 6}, {2, 9}, {3, 2}};
  record.ObserveScores(*other, ScoreView{nodes, plugins, weights, normalized, all_raw, totals});
  record.ObserveOutcome(*other, o);
  std::optional<Attempt> q = record.Get("default", "q");
  ASSERT_TRUE(q.has_value());
  EXPECT_NE(q->score_columns, at->score_columns);
  EXPECT_EQ(q->top_raw.size(), 6u);
  EXPECT_EQ(q->Raw(1, 2), 3);  // row 1 is "a"
}

TEST(AttemptTest, RawScoresStayWholeAndNormalizedOnesFitAByte) {
  Attempt a;
  a.score_columns = std::make_shared<ScoreColumns>(ScoreColumns{{"A", "B"}, {1, 1}});
  const size_t first = a.AddTopNode("n1", 0);
  const size_t second = a.AddTopNode("n2", 0);
  a.SetScore(first, 0, int64_t{1} << 40, 100);
  a.SetScore(first, 1, -7, 0);
  a.SetScore(second, 0, 1, 300);  // out of the framework's range: clamped
  a.SetScore(second, 1, 2, -4);
  EXPECT_EQ(a.Raw(first, 0), int64_t{1} << 40);
  EXPECT_EQ(a.Normalized(first, 0), 100);
  EXPECT_EQ(a.Raw(first, 1), -7);
  EXPECT_EQ(a.Normalized(first, 1), 0);
  EXPECT_EQ(a.Raw(second, 1), 2);
  EXPECT_EQ(a.Normalized(second, 0), 255);
  EXPECT_EQ(a.Normalized(second, 1), 0);
}

TEST(AttemptRecordTest, ForgetsTheLeastRecentlyAttemptedPodBeyondItsCapacity) {
  util::FakeClock clock;
  AttemptRecord record(2, 10, clock);
  auto p1 = Pod("p1"), p2 = Pod("p2"), p3 = Pod("p3");
  record.ObserveOutcome(*p1, Failed(1, 0, "no nodes"));
  record.ObserveOutcome(*p2, Failed(2, 0, "no nodes"));
  record.ObserveOutcome(*p1, Failed(3, 0, "again"));  // p1 is the most recent now
  record.ObserveOutcome(*p3, Failed(4, 0, "no nodes"));
  EXPECT_EQ(record.Size(), 2u);
  EXPECT_FALSE(record.Get("default", "p2").has_value());
  ASSERT_TRUE(record.Get("default", "p1").has_value());
  EXPECT_EQ(record.Get("default", "p1")->cycle, 3);
  EXPECT_EQ(record.Get("default", "p1")->message, "again");
  EXPECT_TRUE(record.Get("default", "p3").has_value());
  EXPECT_EQ(record.TotalAttempts(), 4u);
}

// An evicted attempt's buffers are reused: nothing of it shows in the next.
TEST(AttemptRecordTest, AReusedAttemptKeepsNothingOfTheEvictedOne) {
  util::FakeClock clock;
  AttemptRecord record(1, 10, clock);
  auto p1 = Pod("p1"), p2 = Pod("p2"), victim = Pod("low");
  NodeInfo n0(Node("n0"));
  NodeInfoList nodes = {&n0};
  std::vector<std::string_view> plugins = {"Fit"};
  std::vector<int64_t> weights = {1};
  std::vector<NodeScoreList> scores = {{{"n0", 4}}};
  std::vector<std::vector<int64_t>> no_raw(1);
  std::vector<int64_t> totals = {4};
  NodeToStatus rejected;
  rejected.Set("n9", Rejected("NodeResourcesFit", "Insufficient cpu"));
  record.ObserveFilter(*p1, nodes, rejected);
  record.ObserveScores(*p1, ScoreView{nodes, plugins, weights, scores, no_raw, totals});
  record.ObservePreemptionVictim(*p1, *victim, "n0");
  Outcome o = Failed(1, 2, "0/2 nodes are available");
  o.nominated_node = "n0";
  record.ObserveOutcome(*p1, o);
  ASSERT_EQ(record.Get("default", "p1")->top_nodes.size(), 1u);

  // p2 evicts p1 and fails before Filter: its attempt, built on p1's
  // reused one, is empty.
  record.ObserveOutcome(*p2, Failed(2, 0, "no nodes available to schedule pods"));
  EXPECT_FALSE(record.Get("default", "p1").has_value());
  EXPECT_EQ(record.Size(), 1u);
  std::optional<Attempt> a = record.Get("default", "p2");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->name, "p2");
  EXPECT_EQ(a->cycle, 2);
  EXPECT_TRUE(a->filter_counts.empty());
  EXPECT_TRUE(a->top_nodes.empty());
  EXPECT_TRUE(a->top_node_names.empty());
  EXPECT_TRUE(a->top_raw.empty());
  EXPECT_TRUE(a->top_normalized.empty());
  EXPECT_EQ(a->score_columns, nullptr);
  EXPECT_EQ(a->scored_nodes, 0);
  EXPECT_TRUE(a->victims.empty());
  EXPECT_TRUE(a->nominated_node.empty());
  EXPECT_EQ(a->feasible_nodes, 0);
  EXPECT_EQ(a->message, "no nodes available to schedule pods");
}

TEST(AttemptRecordTest, VictimsJoinTheAttemptWhetherReportedDuringOrAfterTheCycle) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  auto preemptor = Pod("high");
  auto v1 = Pod("low1"), v2 = Pod("low2");
  record.ObserveFilter(*preemptor, {}, NodeToStatus());
  record.ObservePreemptionVictim(*preemptor, *v1, "n1");  // synchronous, in PostFilter
  Outcome o = Failed(5, 1, "0/1 nodes are available: 1 Insufficient cpu. preemption: ...");
  o.nominated_node = "n1";
  record.ObserveOutcome(*preemptor, o);
  record.ObservePreemptionVictim(*preemptor, *v2, "n1");  // asynchronous, later
  std::optional<Attempt> a = record.Get("default", "high");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->nominated_node, "n1");
  ASSERT_EQ(a->victims.size(), 2u);
  EXPECT_EQ(a->victims[0].name, "low1");
  EXPECT_EQ(a->victims[1].name, "low2");
  EXPECT_EQ(a->victims[1].node, "n1");
}

TEST(AttemptRecordTest, ABindingFailureReplacesTheScheduledResult) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  auto pod = Pod("p");
  Outcome o;
  o.scheduled = true;
  o.node = "n1";
  record.ObserveOutcome(*pod, o);
  record.ObserveBindingFailure(*pod, "rejected by Coscheduling");
  ASSERT_TRUE(record.Get("default", "p").has_value());
  EXPECT_EQ(record.Get("default", "p")->result, "BindingFailed");
  EXPECT_EQ(record.Get("default", "p")->message, "rejected by Coscheduling");
  EXPECT_EQ(record.Get("default", "p")->node, "n1");
}

TEST(AttemptRecordTest, CountsAttemptsWithinAWindowOnTheInjectedClock) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  auto pod = Pod("p");
  record.ObserveOutcome(*pod, Failed(1, 0, "x"));
  clock.Step(std::chrono::seconds(30));
  record.ObserveOutcome(*pod, Failed(2, 0, "x"));
  record.ObserveOutcome(*pod, Failed(3, 0, "x"));
  EXPECT_EQ(record.AttemptsWithin(std::chrono::minutes(1)), 3u);
  clock.Step(std::chrono::seconds(40));
  EXPECT_EQ(record.AttemptsWithin(std::chrono::minutes(1)), 2u);
  clock.Step(std::chrono::minutes(5));
  EXPECT_EQ(record.AttemptsWithin(std::chrono::minutes(1)), 0u);
  EXPECT_EQ(record.TotalAttempts(), 3u);
}

// Through the scheduler: the record is the observer of real cycles.
TEST(AttemptRecordTest, RecordsTheSchedulersCyclesAsTheObserver) {
  util::FakeClock record_clock;
  AttemptRecord record(10, 10, record_clock);
  testing::SchedulerFixture f(testing::FakeConfig(), {}, {}, std::nullopt, &record);
  f.AddNode(Node("n1"));
  f.AddNode(Node("n2"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.behaviour().filter["n2"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(Pod("big"));
  f.ScheduleOne();
  std::optional<Attempt> a = record.Get("default", "big");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->result, "Unschedulable");
  EXPECT_EQ(a->message, "0/2 nodes are available: 2 Insufficient cpu.");
  ASSERT_EQ(a->filter_counts.size(), 1u);
  EXPECT_EQ(a->filter_counts[0].plugin, testing::kFakeFilter);
  EXPECT_EQ(a->filter_counts[0].nodes, 2);
  EXPECT_EQ(a->profile, "ksched");

  f.behaviour().filter.clear();
  f.behaviour().score["n2"] = 80;
  f.behaviour().score["n1"] = 20;
  f.AddPod(Pod("small"));
  f.ScheduleOne();
  a = record.Get("default", "small");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->result, "Scheduled");
  EXPECT_EQ(a->node, "n2");
  ASSERT_EQ(a->top_nodes.size(), 2u);
  EXPECT_EQ(a->TopNodeName(0), "n2");
  ASSERT_EQ(a->NumScorePlugins(), 1u);
  EXPECT_EQ(a->score_columns->plugins[0], testing::kFakeScore);
  EXPECT_EQ(a->Raw(0, 0), 80);
}

// Attempts that ran the same Score plugins share one ScoreColumns; another
// list gets its own. Each attempt owns its node names (the snapshot's
// NodeInfos may be gone when it is read).
TEST(AttemptRecordTest, SharesScoreColumnsAndOwnsNodeNames) {
  util::FakeClock clock;
  AttemptRecord record(10, 10, clock);
  const std::string long_name = "ip-10-0-123-45.eu-west-1.compute.internal";
  auto n0 = std::make_unique<NodeInfo>(Node(long_name));
  auto n1 = std::make_unique<NodeInfo>(Node("short"));
  NodeInfoList nodes = {n0.get(), n1.get()};
  std::vector<int64_t> weights = {1};
  std::vector<int64_t> totals = {7, 3};
  std::vector<NodeScoreList> scores = {{{long_name, 7}, {"short", 3}}};
  std::vector<std::vector<int64_t>> no_raw(1);
  auto observe = [&](const std::shared_ptr<const api::Pod>& pod, std::string_view plugin) {
    std::vector<std::string_view> plugins = {plugin};
    record.ObserveFilter(*pod, nodes, NodeToStatus());
    record.ObserveScores(*pod, ScoreView{nodes, plugins, weights, scores, no_raw, totals});
    Outcome o;
    o.scheduled = true;
    o.node = long_name;
    o.num_all_nodes = 2;
    record.ObserveOutcome(*pod, o);
  };
  auto p1 = Pod("p1"), p2 = Pod("p2"), p3 = Pod("p3");
  observe(p1, "Fit");
  observe(p2, "Fit");
  observe(p3, "Balanced");
  nodes.clear();
  n0.reset();
  n1.reset();
  std::optional<Attempt> a1 = record.Get("default", "p1"), a2 = record.Get("default", "p2"),
                         a3 = record.Get("default", "p3");
  ASSERT_TRUE(a1 && a2 && a3);
  EXPECT_EQ(a1->score_columns, a2->score_columns);
  EXPECT_NE(a1->score_columns, a3->score_columns);
  EXPECT_EQ(a3->score_columns->plugins, (std::vector<std::string>{"Balanced"}));
  EXPECT_EQ(TopNames(*a2), (std::vector<std::string>{long_name, "short"}));
  EXPECT_EQ(a2->Raw(1, 0), 3);
}

}  // namespace
}  // namespace ksched::scheduler
