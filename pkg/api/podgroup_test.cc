#include "pkg/api/podgroup.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

TEST(PodGroupCodecTest, DecodesScheduler_pluginsFields) {
  auto j = nlohmann::json::parse(R"({
    "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
    "metadata": {"name": "gang", "namespace": "team", "creationTimestamp": "2026-01-02T03:04:05Z"},
    "spec": {"minMember": 3, "minResources": {"cpu": "3", "memory": "3Gi"},
             "scheduleTimeoutSeconds": 10, "unknownField": true},
    "status": {"phase": "Scheduling", "scheduled": 2, "running": 1, "succeeded": 0,
               "failed": 1, "occupiedBy": "team/job", "scheduleStartTime": "2026-01-02T03:04:06Z"}})");
  auto pg = FromJson<PodGroup>(j);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(pg->metadata.namespace_, "team");
  EXPECT_EQ(pg->spec.min_member, 3);
  EXPECT_EQ(pg->spec.min_resources.at("cpu").MilliValue(), 3000);
  EXPECT_EQ(pg->spec.schedule_timeout_seconds, 10);
  EXPECT_EQ(pg->status.phase, "Scheduling");
  EXPECT_EQ(pg->status.scheduled, 2);
  EXPECT_EQ(pg->status.running, 1);
  EXPECT_EQ(pg->status.failed, 1);
  EXPECT_EQ(pg->status.occupied_by, "team/job");
  ASSERT_TRUE(pg->status.schedule_start_time.has_value());
  EXPECT_EQ(FormatTime(*pg->status.schedule_start_time), "2026-01-02T03:04:06Z");

  nlohmann::json back = ToJson(*pg);
  EXPECT_EQ(back["apiVersion"], "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(back["kind"], "PodGroup");
  auto again = FromJson<PodGroup>(back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->spec, pg->spec);
  EXPECT_EQ(again->status, pg->status);
  auto text = FromJsonText<PodGroup>(j.dump());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->spec, pg->spec);
  EXPECT_EQ(text->status, pg->status);
}

TEST(PodGroupCodecTest, WrongTypesNameTheField) {
  auto bad = FromJson<PodGroup>(nlohmann::json::parse(R"({"spec": {"minMember": "three"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("spec.minMember"), std::string::npos) << bad.status().ToString();
  auto quantity = FromJsonText<PodGroup>(R"({"spec": {"minResources": {"cpu": "lots"}}})");
  ASSERT_FALSE(quantity.ok());
  EXPECT_NE(quantity.status().message().find("spec.minResources.cpu"), std::string::npos);
}

TEST(PodGroupCodecTest, PodGroupNameOf) {
  Pod pod;
  EXPECT_EQ(PodGroupNameOf(pod), "");
  pod.metadata.labels[std::string(kPodGroupLabel)] = "gang";
  EXPECT_EQ(PodGroupNameOf(pod), "gang");
}

}  // namespace
}  // namespace ksched::api
