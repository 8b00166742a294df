#include "pkg/scheduler/opportunistic_batch.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/node_selection.h"
#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using framework::testing::MakePod;
using testing::Code;
using testing::Node;
using testing::SchedulerFixture;
using testing::Status;

std::vector<std::string> PopAll(SortedScoredNodes nodes) {
  std::vector<std::string> out;
  while (nodes.Len() > 0) out.push_back(nodes.Pop().name);
  return out;
}

// Go's container/heap: equal totals come out in the heap's own order, not
// in input order; the first is SelectHostByScoreHeap's pick.
TEST(SortedScoredNodesTest, PopsAsGosHeap) {
  std::vector<SortedScoredNodes::Entry> tied;
  for (const char* n : {"a", "b", "c", "d", "e"}) tied.push_back({n, 5, {}});
  EXPECT_EQ(PopAll(SortedScoredNodes(tied)), (std::vector<std::string>{"a", "e", "d", "c", "b"}));

  std::vector<int64_t> totals = {3, 9, 9, 1, 7, 9};
  std::vector<SortedScoredNodes::Entry> scored;
  for (size_t i = 0; i < totals.size(); ++i) scored.push_back({std::to_string(i), totals[i], {}});
  std::vector<std::string> order = PopAll(SortedScoredNodes(scored));
  EXPECT_EQ(order.front(), std::to_string(SelectHostByScoreHeap(totals)));
  EXPECT_EQ(order, (std::vector<std::string>{"1", "5", "2", "4", "0", "3"}));
}

std::shared_ptr<const api::Pod> Alike(const std::string& name, const std::string& kind = "web") {
  return MakePod(name).SchedulerName(testing::kProfile).Label("app", kind).Obj();
}

class OpportunisticBatchTest : public ::testing::Test {
 protected:
  explicit OpportunisticBatchTest(int minor = 35) : f_(testing::FakeConfig(), framework::FeatureGates::ForMinor(minor)) {
    for (const char* n : {"n1", "n2", "n3", "n4"}) f_.AddNode(Node(n));
    f_.behaviour().score = {{"n1", 90}, {"n2", 80}, {"n3", 70}, {"n4", 60}};
  }

  // Schedules `pod`; returns the node it was bound to.
  std::string Place(const std::shared_ptr<const api::Pod>& pod) {
    f_.behaviour().filtered.clear();
    f_.AddPod(pod);
    f_.ScheduleOne();
    for (const std::string& b : f_.binding_client().Binds()) {
      if (b.rfind(pod->metadata.name + "@", 0) == 0) return b.substr(b.find('@') + 1);
    }
    return "";
  }
  // A node is full: Filter rejects every later pod there.
  void Fill(const std::string& node) { f_.behaviour().filter[node] = Status(Code::kUnschedulable, "Insufficient cpu"); }
  double Attempts(std::string_view result) {
    return f_.metrics().BatchAttempts()->With({testing::kProfile, result}).Value();
  }
  double Flushes(std::string_view reason) {
    return f_.metrics().BatchCacheFlushed()->With({testing::kProfile, reason}).Value();
  }

  SchedulerFixture f_;
};

// A run of alike pods, one per node: each takes the next node of the first
// pod's ranking, Filter checking only the previous node and the hint.
TEST_F(OpportunisticBatchTest, AlikePodsTakeTheNextNodeOfTheRanking) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  Fill("n1");
  EXPECT_EQ(Place(Alike("b")), "n2");
  EXPECT_EQ(f_.behaviour().filtered, (std::vector<std::string>{"b@n1", "b@n2"}));
  Fill("n2");
  EXPECT_EQ(Place(Alike("c")), "n3");
  EXPECT_EQ(f_.behaviour().filtered, (std::vector<std::string>{"c@n2", "c@n3"}));
  EXPECT_EQ(Attempts(batch::kHintUsed), 2);
  EXPECT_EQ(Attempts(batch::kNoHint), 1);
}

// Before 1.37 a previous node that still fits voids the ranking.
TEST_F(OpportunisticBatchTest, APreviousNodeThatStillFitsFlushesBefore137) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  EXPECT_EQ(Place(Alike("b")), "n1");
  EXPECT_EQ(Flushes(batch::kFlushNodeNotFull), 1);
  EXPECT_EQ(f_.behaviour().filtered.size(), 5u);  // n1's check, then all four
}

TEST_F(OpportunisticBatchTest, ADifferentPodAnOldRankingOrAPodInBetweenFlush) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  Fill("n1");
  EXPECT_EQ(Place(Alike("other", "db")), "n2");
  EXPECT_EQ(Flushes(batch::kFlushPodIncompatible), 1);

  f_.behaviour().filter.clear();
  EXPECT_EQ(Place(Alike("c")), "n1");
  Fill("n1");
  f_.clock().Step(std::chrono::milliseconds(501));
  EXPECT_EQ(Place(Alike("d")), "n2");
  EXPECT_EQ(Flushes(batch::kFlushExpired), 1);

  f_.behaviour().filter.clear();
  EXPECT_EQ(Place(Alike("e")), "n1");
  Fill("n1");
  // A pod that fits nowhere is attempted in between.
  f_.behaviour().filter["n2"] = f_.behaviour().filter["n3"] = f_.behaviour().filter["n4"] = f_.behaviour().filter["n1"];
  EXPECT_EQ(Place(Alike("nowhere", "db")), "");
  f_.behaviour().filter.erase("n2");
  f_.behaviour().filter.erase("n3");
  f_.behaviour().filter.erase("n4");
  EXPECT_EQ(Place(Alike("f")), "n2");
  EXPECT_EQ(Flushes(batch::kFlushPodSkipped), 1);
  EXPECT_EQ(Attempts(batch::kHintUsed), 0);
}

TEST_F(OpportunisticBatchTest, ANominatedNodeGoesFirstAndTheHintIsNotUsed) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  Fill("n1");
  // Before 1.37 the hint is taken from the ranking all the same.
  EXPECT_EQ(Place(MakePod("b").SchedulerName(testing::kProfile).Label("app", "web").NominatedNode("n3").Obj()), "n3");
  EXPECT_EQ(Attempts(batch::kHintNotUsed), 1);
}

class OpportunisticBatch137Test : public OpportunisticBatchTest {
 protected:
  OpportunisticBatch137Test() : OpportunisticBatchTest(37) {}
};

// From 1.37 the previous node is scored again and ranked with the rest.
TEST_F(OpportunisticBatch137Test, APreviousNodeThatStillFitsIsRescored) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  f_.behaviour().score["n1"] = 75;  // the pod made it less attractive
  EXPECT_EQ(Place(Alike("b")), "n2");
  EXPECT_EQ(f_.behaviour().filtered, (std::vector<std::string>{"b@n1", "b@n2"}));
  f_.behaviour().score["n2"] = 65;
  EXPECT_EQ(Place(Alike("c")), "n1");
  EXPECT_EQ(f_.metrics().BatchRescoreAttempts()->With({testing::kProfile}).Value(), 2);
  EXPECT_EQ(Attempts(batch::kHintUsed), 2);
}

TEST_F(OpportunisticBatch137Test, APodWithANominatedNodeDoesNotBatch) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  Fill("n1");
  EXPECT_EQ(Place(MakePod("b").SchedulerName(testing::kProfile).Label("app", "web").NominatedNode("n3").Obj()), "n3");
  EXPECT_EQ(Flushes(batch::kFlushPodNominated), 1);
  EXPECT_EQ(Attempts(batch::kHintNotUsed), 0);
}

class OpportunisticBatch134Test : public OpportunisticBatchTest {
 protected:
  OpportunisticBatch134Test() : OpportunisticBatchTest(34) {}
};

TEST_F(OpportunisticBatch134Test, NothingBatches) {
  EXPECT_EQ(Place(Alike("a")), "n1");
  Fill("n1");
  EXPECT_EQ(Place(Alike("b")), "n2");
  EXPECT_EQ(f_.behaviour().filtered.size(), 4u);  // a full cycle
  EXPECT_EQ(Attempts(batch::kNoHint), 0);
}

}  // namespace
}  // namespace ksched::scheduler
