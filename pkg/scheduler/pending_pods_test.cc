#include "pkg/scheduler/pending_pods.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pkg/api/codec.h"
#include "pkg/scheduler/scheduler_test_util.h"

namespace ksched::scheduler {
namespace {

using testing::Code;
using testing::Node;
using testing::Pod;
using testing::SchedulerFixture;
using testing::Status;

TEST(PendingPodsJsonTest, ListsEveryPendingPodWithItsQueueState) {
  SchedulerFixture f;
  f.AddNode(Node("n1"));
  f.behaviour().filter["n1"] = Status(Code::kUnschedulable, "Insufficient cpu");
  f.AddPod(Pod("rejected"));
  f.ScheduleOne();
  f.AddPod(Pod("waiting"));

  nlohmann::json j = nlohmann::json::parse(PendingPodsJson(f.sched().PendingPodsDebug(), f.clock()));
  EXPECT_EQ(j["summary"]["active"], 1);
  EXPECT_EQ(j["summary"]["unschedulable"], 1);
  EXPECT_EQ(j["summary"]["backoff"], 0);
  ASSERT_EQ(j["pods"].size(), 2u);
  const nlohmann::json& active = j["pods"][0];
  EXPECT_EQ(active["name"], "waiting");
  EXPECT_EQ(active["queue"], "active");
  EXPECT_EQ(active["attempts"], 0);
  const nlohmann::json& rejected = j["pods"][1];
  EXPECT_EQ(rejected["name"], "rejected");
  EXPECT_EQ(rejected["queue"], "unschedulable");
  EXPECT_EQ(rejected["schedulerName"], "ksched");
  EXPECT_EQ(rejected["attempts"], 1);
  EXPECT_EQ(rejected["unschedulablePlugins"], nlohmann::json::array({"FakeFilter"}));
  EXPECT_EQ(rejected["lastFailureMessage"], "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(PendingPodsJsonTest, BackoffExpirationIsWallTime) {
  util::FakeClock clock;
  PendingPodDebug d;
  d.pod = Pod("p");
  d.queue = "backoff";
  d.backoff_expiration = clock.Now() + std::chrono::seconds(2);
  nlohmann::json j = nlohmann::json::parse(PendingPodsJson({d}, clock));
  EXPECT_EQ(j["summary"]["backoff"], 1);
  EXPECT_EQ(j["pods"][0]["backoffExpiration"], api::FormatMicroTime(clock.WallNow() + std::chrono::seconds(2)));
}

}  // namespace
}  // namespace ksched::scheduler
