#include "pkg/scheduler/apiwriter/pod_status_patch.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::apiwriter {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// 2026-01-01T00:00:00Z
const api::Time kNow = api::Time(std::chrono::seconds(1767225600));

PodScheduledCondition Unschedulable(std::string message) {
  return PodScheduledCondition{kConditionFalse, kReasonUnschedulable, std::move(message),
                               std::nullopt};
}

TEST(PodSchedulingStatusTest, FromPodPicksPodScheduledAndNominatedNode) {
  api::PodStatus status;
  status.nominated_node_name = "node-1";
  status.conditions.push_back(api::PodCondition{"Ready", "False", "x", "y", {}, {}, {}});
  status.conditions.push_back(
      api::PodCondition{"PodScheduled", "False", "Unschedulable", "0/3 nodes", {}, kNow - 1h, 4});
  PodSchedulingStatus s = PodSchedulingStatus::FromPod(status);
  EXPECT_EQ(s.nominated_node_name, "node-1");
  ASSERT_TRUE(s.condition);
  EXPECT_EQ(*s.condition, (PodScheduledCondition{"False", "Unschedulable", "0/3 nodes", 4}));
  EXPECT_EQ(s.condition_transition_time, kNow - 1h);

  EXPECT_FALSE(PodSchedulingStatus::FromPod(api::PodStatus{}).condition);
}

TEST(PodStatusPatchTest, NewConditionAndNominatedNode) {
  PodStatusUpdate u{Unschedulable("0/3 nodes are available"), "node-2"};
  auto patch = PodStatusPatch(PodSchedulingStatus{}, u, kNow);
  ASSERT_TRUE(patch);
  EXPECT_EQ(*patch, json::parse(R"({"status": {
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "0/3 nodes are available",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}],
      "nominatedNodeName": "node-2"}})"));
}

TEST(PodStatusPatchTest, NothingChangesNoPatch) {
  PodSchedulingStatus current;
  current.condition = Unschedulable("same");
  current.nominated_node_name = "n";
  EXPECT_FALSE(PodStatusPatch(current, PodStatusUpdate{Unschedulable("same"), "n"}, kNow));
  EXPECT_FALSE(PodStatusPatch(current, PodStatusUpdate{Unschedulable("same"), std::nullopt}, kNow));
  EXPECT_FALSE(PodStatusPatch(current, PodStatusUpdate{std::nullopt, "n"}, kNow));
  EXPECT_FALSE(PodStatusPatch(current, PodStatusUpdate{}, kNow));
}

TEST(PodStatusPatchTest, SameStatusKeepsTheTransitionTime) {
  PodSchedulingStatus current;
  current.condition = Unschedulable("old message");
  current.condition_transition_time = kNow - 10min;
  auto patch = PodStatusPatch(
      current,
      PodStatusUpdate{PodScheduledCondition{"False", kReasonSchedulerError, "boom", 7},
                      std::nullopt},
      kNow);
  ASSERT_TRUE(patch);
  EXPECT_EQ(*patch, json::parse(R"({"status": {"conditions": [{
      "type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": "boom",
      "observedGeneration": 7, "lastTransitionTime": "2025-12-31T23:50:00Z"}]}})"));
}

TEST(PodStatusPatchTest, StatusFlipStartsANewTransition) {
  PodSchedulingStatus current;
  current.condition = PodScheduledCondition{"True", "", "", std::nullopt};
  current.condition_transition_time = kNow - 10min;
  auto patch = PodStatusPatch(current, PodStatusUpdate{Unschedulable("m"), std::nullopt}, kNow);
  ASSERT_TRUE(patch);
  EXPECT_EQ((*patch)["status"]["conditions"][0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
}

TEST(PodStatusPatchTest, ClearingNominatedNodeSendsNull) {
  PodSchedulingStatus current;
  current.nominated_node_name = "node-1";
  auto patch = PodStatusPatch(current, PodStatusUpdate{std::nullopt, ""}, kNow);
  ASSERT_TRUE(patch);
  EXPECT_EQ(*patch, json::parse(R"({"status": {"nominatedNodeName": null}})"));
  // Clearing what is already empty is no change.
  EXPECT_FALSE(PodStatusPatch(PodSchedulingStatus{}, PodStatusUpdate{std::nullopt, ""}, kNow));
}

TEST(PodStatusUpdateTest, MergeFromLetsLaterFieldsWin) {
  PodStatusUpdate a{Unschedulable("first"), "node-1"};
  a.MergeFrom(PodStatusUpdate{Unschedulable("second"), std::nullopt});
  EXPECT_EQ(a.condition->message, "second");
  EXPECT_EQ(a.nominated_node_name, "node-1");
  a.MergeFrom(PodStatusUpdate{std::nullopt, ""});
  EXPECT_EQ(a.condition->message, "second");
  EXPECT_EQ(a.nominated_node_name, "");
  EXPECT_TRUE(PodStatusUpdate{}.Empty());
  EXPECT_FALSE(a.Empty());
}

TEST(ApplyUpdateTest, TracksWhatWasWritten) {
  PodSchedulingStatus s;
  s = ApplyUpdate(s, PodStatusUpdate{Unschedulable("m1"), "n1"}, kNow);
  EXPECT_EQ(s.condition->message, "m1");
  EXPECT_EQ(s.nominated_node_name, "n1");
  EXPECT_EQ(s.condition_transition_time, kNow);
  s = ApplyUpdate(s, PodStatusUpdate{Unschedulable("m2"), std::nullopt}, kNow + 1min);
  EXPECT_EQ(s.condition->message, "m2");
  EXPECT_EQ(s.nominated_node_name, "n1");
  EXPECT_EQ(s.condition_transition_time, kNow);  // same status: no new transition
  EXPECT_FALSE(PodStatusPatch(s, PodStatusUpdate{Unschedulable("m2"), "n1"}, kNow + 2min));
}

}  // namespace
}  // namespace ksched::scheduler::apiwriter
