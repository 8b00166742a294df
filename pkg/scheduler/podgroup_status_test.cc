#include "pkg/scheduler/podgroup_status.h"

#include <gtest/gtest.h>

namespace ksched::scheduler {
namespace {

std::shared_ptr<const api::Pod> Pod(const std::string& name, const std::string& node, const std::string& phase) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = name;
  p->metadata.namespace_ = "team";
  p->spec.node_name = node;
  p->status.phase = phase;
  return p;
}

TEST(PodGroupStatusTest, StepsThroughThePhasesAsTheControllerDoes) {
  api::PodGroup pg;
  pg.spec.min_member = 2;
  const api::Time now = api::Time(std::chrono::seconds(1'700'000'000));
  std::vector<std::shared_ptr<const api::Pod>> pods;
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Pending");
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Pending");  // too few pods
  auto owned = std::make_shared<api::Pod>(*Pod("a", "", "Pending"));
  owned->metadata.owner_references.push_back({"batch/v1", "Job", "train", "u1", {}, {}});
  pods = {owned, Pod("b", "", "Pending")};
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Scheduling");
  EXPECT_EQ(pg.status.schedule_start_time, now);
  EXPECT_EQ(pg.status.occupied_by, "team/train");
  pods = {Pod("a", "n1", "Pending"), Pod("b", "n1", "Running")};
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Scheduling");
  EXPECT_EQ(pg.status.scheduled, 2);
  EXPECT_EQ(pg.status.running, 1);
  pods = {Pod("a", "n1", "Running"), Pod("b", "n1", "Succeeded")};
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Running");
  pods = {Pod("a", "n1", "Failed"), Pod("b", "n1", "Succeeded")};
  pg.status = NextPodGroupStatus(pg, pods, now);
  EXPECT_EQ(pg.status.phase, "Failed");
  pods = {};
  EXPECT_EQ(NextPodGroupStatus(pg, pods, now).phase, "Failed");  // final
  api::PodGroup done;
  done.spec.min_member = 1;
  done.status.phase = "Running";
  EXPECT_EQ(NextPodGroupStatus(done, {Pod("a", "n1", "Succeeded")}, now).phase, "Finished");
  EXPECT_EQ(NextPodGroupStatus(done, {}, now).phase, "Pending");
}

TEST(PodGroupStatusTest, PatchCarriesOnlyTheChanges) {
  api::PodGroupStatus a, b;
  EXPECT_TRUE(PodGroupStatusPatch(a, b).is_null());
  b.phase = "Scheduling";
  b.scheduled = 3;
  b.schedule_start_time = api::Time(std::chrono::seconds(1'700'000'000));
  nlohmann::json patch = PodGroupStatusPatch(a, b);
  EXPECT_EQ(patch, nlohmann::json::parse(
                       R"({"status":{"phase":"Scheduling","scheduled":3,"scheduleStartTime":"2023-11-14T22:13:20Z"}})"));
  a.occupied_by = "x/y";
  EXPECT_TRUE(PodGroupStatusPatch(a, b)["status"]["occupiedBy"].is_null());
}

}  // namespace
}  // namespace ksched::scheduler
