#include "pkg/scheduler/podgroup_status_controller.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler {
namespace {

class RecordingClient final : public PodGroupStatusClient {
 public:
  util::Status PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                   const nlohmann::json& patch) override {
    calls.push_back({ns + "/" + name, patch});
    return next;
  }
  std::vector<std::pair<std::string, nlohmann::json>> calls;
  util::Status next;
};

class PodGroupStatusControllerTest : public ::testing::Test {
 protected:
  std::shared_ptr<api::PodGroup> Group(const std::string& phase) {
    auto pg = std::make_shared<api::PodGroup>();
    pg->metadata.name = "gang";
    pg->metadata.namespace_ = "team";
    pg->spec.min_member = 2;
    pg->status.phase = phase;
    listers_.pod_groups.Set(pg);
    return pg;
  }
  void Pod(const std::string& name, const std::string& group) {
    auto p = std::make_shared<api::Pod>();
    p->metadata.name = name;
    p->metadata.namespace_ = "team";
    if (!group.empty()) p->metadata.labels[std::string(api::kPodGroupLabel)] = group;
    listers_.pods.Set(p);
  }

  util::FakeClock clock_;
  framework::InMemorySharedListers listers_;
  RecordingClient client_;
  PodGroupStatusController controller_{listers_.pod_groups, listers_.pods, client_, clock_};
};

TEST_F(PodGroupStatusControllerTest, PatchesTheNextStatusOnly) {
  EXPECT_TRUE(controller_.Sync("team/gang").ok());  // no such group: nothing to do
  EXPECT_TRUE(client_.calls.empty());
  Group("");
  EXPECT_TRUE(controller_.Sync("team/gang").ok());
  ASSERT_EQ(client_.calls.size(), 1u);
  EXPECT_EQ(client_.calls[0].first, "team/gang");
  EXPECT_EQ(client_.calls[0].second, nlohmann::json::parse(R"({"status":{"phase":"Pending"}})"));
  Group("Pending");
  Pod("a", "gang");
  Pod("b", "other");
  EXPECT_TRUE(controller_.Sync("team/gang").ok());
  EXPECT_EQ(client_.calls.size(), 1u);  // one member of two: stays Pending, no patch
  Pod("b", "gang");
  EXPECT_TRUE(controller_.Sync("team/gang").ok());
  ASSERT_EQ(client_.calls.size(), 2u);
  EXPECT_EQ(client_.calls[1].second["status"]["phase"], "Scheduling");
  EXPECT_TRUE(client_.calls[1].second["status"].contains("scheduleStartTime"));
  EXPECT_FALSE(controller_.Sync("malformed").ok());
}

TEST_F(PodGroupStatusControllerTest, ErrorsAreReturnedForRetryButAGoneGroupIsNot) {
  Group("");
  client_.next = util::Status(util::StatusCode::kUnavailable, "try later");
  EXPECT_EQ(controller_.Sync("team/gang").code(), util::StatusCode::kUnavailable);
  client_.next = util::NotFound("podgroups \"gang\" not found");
  EXPECT_TRUE(controller_.Sync("team/gang").ok());
}

TEST_F(PodGroupStatusControllerTest, EventsEnqueueTheirGroupOnce) {
  auto pg = Group("");
  controller_.EnqueueGroup(*pg);
  api::Pod member;
  member.metadata.namespace_ = "team";
  member.metadata.labels[std::string(api::kPodGroupLabel)] = "gang";
  controller_.EnqueuePod(member);
  api::Pod loner;
  controller_.EnqueuePod(loner);
  EXPECT_EQ(controller_.Pending(), 1u);
}

// At SIGTERM the daemon's client is cancelled: a status waiting out a
// backoff is dropped, not retried, and counted (the clock never moves).
TEST_F(PodGroupStatusControllerTest, StopDropsAStatusWaitingOutABackoff) {
  auto pg = Group("");
  client_.next = util::Status(util::StatusCode::kUnavailable, "try later");
  controller_.Start();
  controller_.EnqueueGroup(*pg);
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (controller_.WaitingRetries() == 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), limit) << "no retry was scheduled";
    std::this_thread::yield();
  }
  controller_.Stop();
  EXPECT_EQ(controller_.DroppedAtStop(), 1u);
  EXPECT_EQ(client_.calls.size(), 1u);
}

}  // namespace
}  // namespace ksched::scheduler
