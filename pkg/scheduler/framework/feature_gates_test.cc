#include "pkg/scheduler/framework/feature_gates.h"

#include <gtest/gtest.h>

#include "pkg/api/resource_helpers.h"
#include "pkg/config/config_gates.h"

namespace ksched::scheduler::framework {
namespace {

TEST(FeatureGatesTest, DefaultConstructedIsKube134) {
  FeatureGates g;
  EXPECT_EQ(g.minor, 34);
  EXPECT_TRUE(g.scheduler_queueing_hints);
  EXPECT_TRUE(g.scheduler_pop_from_backoff_q);
  EXPECT_TRUE(g.scheduler_async_preemption);
  EXPECT_FALSE(g.score_heap_host_selection);
  EXPECT_FALSE(g.opportunistic_batching);
  EXPECT_FALSE(g.balanced_allocation_half_difference);
  EXPECT_FALSE(g.node_name_prefilter_order);
  EXPECT_EQ(FeatureGates::ForMinor(34), g);
}

TEST(FeatureGatesTest, UngatedChangesTurnOnAtTheirMinor) {
  FeatureGates g35 = FeatureGates::ForMinor(35);
  EXPECT_TRUE(g35.score_heap_host_selection);
  EXPECT_TRUE(g35.opportunistic_batching);
  EXPECT_FALSE(g35.batch_rescores_chosen_node);
  EXPECT_FALSE(g35.balanced_allocation_half_difference);
  FeatureGates g36 = FeatureGates::ForMinor(36);
  EXPECT_TRUE(g36.balanced_allocation_half_difference);
  EXPECT_TRUE(g36.image_locality_image_volumes);
  EXPECT_FALSE(g36.node_name_prefilter_order);
  EXPECT_FALSE(g35.node_declared_features);
  EXPECT_TRUE(g36.node_declared_features);
  FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_TRUE(g37.node_declared_features);
  EXPECT_EQ(g37.Set("NodeDeclaredFeatures=false").message(),
            "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true");
  EXPECT_TRUE(g36.Set("NodeDeclaredFeatures=false").ok());
  EXPECT_FALSE(g36.node_declared_features);
  EXPECT_TRUE(g37.node_name_prefilter_order);
  EXPECT_TRUE(g37.preemption_placement_message);
  EXPECT_TRUE(g37.score_heap_host_selection);
  EXPECT_TRUE(g37.batch_rescores_chosen_node);
}

TEST(FeatureGatesTest, StorageCapacityScoringIsOnFrom137AndReachesTheConfigGates) {
  EXPECT_FALSE(FeatureGates::ForMinor(36).storage_capacity_scoring);
  FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_TRUE(g37.storage_capacity_scoring);
  config::ScopedConfigGates restore(config::CurrentConfigGates());
  g37.ApplyProcessWideSwitches();
  EXPECT_TRUE(config::CurrentConfigGates().storage_capacity_scoring);
  ASSERT_TRUE(g37.Set("StorageCapacityScoring=false").ok());
  g37.ApplyProcessWideSwitches();
  EXPECT_FALSE(config::CurrentConfigGates().storage_capacity_scoring);
  FeatureGates::ForMinor(34).ApplyProcessWideSwitches();  // pkg/api's accounting back to the baseline
}

TEST(FeatureGatesTest, PodLevelResizeStatusCountsFrom136) {
  EXPECT_FALSE(FeatureGates::ForMinor(35).in_place_pod_level_resources_vertical_scaling);
  FeatureGates g36 = FeatureGates::ForMinor(36);
  EXPECT_TRUE(g36.in_place_pod_level_resources_vertical_scaling);
  g36.ApplyProcessWideSwitches();
  EXPECT_TRUE(api::SchedulingPodRequestOptions().pod_level_status);
  ASSERT_TRUE(g36.Set("InPlacePodLevelResourcesVerticalScaling=false").ok());
  g36.ApplyProcessWideSwitches();
  EXPECT_FALSE(api::SchedulingPodRequestOptions().pod_level_status);
  FeatureGates::ForMinor(34).ApplyProcessWideSwitches();  // pkg/api's accounting back to the baseline
}

TEST(FeatureGatesTest, DeviceTaintsFrom136RulesFrom137AtTheServedVersion) {
  FeatureGates g35 = FeatureGates::ForMinor(35);
  EXPECT_FALSE(g35.dra_device_taints);
  EXPECT_FALSE(g35.dra_device_taint_rules);
  EXPECT_EQ(g35.DeviceTaintRuleApiVersion(), "resource.k8s.io/v1alpha3");
  FeatureGates g36 = FeatureGates::ForMinor(36);
  EXPECT_TRUE(g36.dra_device_taints);
  EXPECT_FALSE(g36.dra_device_taint_rules);  // beta, off: its API is off by default
  EXPECT_EQ(g36.DeviceTaintRuleApiVersion(), "resource.k8s.io/v1beta2");
  FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_TRUE(g37.dra_device_taints);
  EXPECT_TRUE(g37.dra_device_taint_rules);
  EXPECT_EQ(g37.DeviceTaintRuleApiVersion(), "resource.k8s.io/v1");
  ASSERT_TRUE(g36.Set("DRADeviceTaintRules=true").ok());
  EXPECT_TRUE(g36.dra_device_taint_rules);
}

TEST(FeatureGatesTest, PartitionableDevicesFrom136) {
  EXPECT_FALSE(FeatureGates::ForMinor(35).dra_partitionable_devices);
  EXPECT_TRUE(FeatureGates::ForMinor(36).dra_partitionable_devices);
  EXPECT_TRUE(FeatureGates::ForMinor(37).dra_partitionable_devices);
  FeatureGates g35 = FeatureGates::ForMinor(35);
  ASSERT_TRUE(g35.Set("DRAPartitionableDevices=true").ok());
  EXPECT_TRUE(g35.dra_partitionable_devices);
}

TEST(FeatureGatesTest, DraExtendedResourceFrom136) {
  EXPECT_FALSE(FeatureGates().dra_extended_resource);
  EXPECT_FALSE(FeatureGates::ForMinor(35).dra_extended_resource);
  EXPECT_TRUE(FeatureGates::ForMinor(36).dra_extended_resource);
  EXPECT_TRUE(FeatureGates::ForMinor(37).dra_extended_resource);
  FeatureGates g35 = FeatureGates::ForMinor(35);
  ASSERT_TRUE(g35.Set("DRAExtendedResource=true").ok());
  EXPECT_TRUE(g35.dra_extended_resource);
  FeatureGates g36 = FeatureGates::ForMinor(36);
  ASSERT_TRUE(g36.Set("DRAExtendedResource=false").ok());
  EXPECT_FALSE(g36.dra_extended_resource);
  // GA and locked on in 1.37.
  FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_FALSE(g37.Set("DRAExtendedResource=false").ok());
}

TEST(FeatureGatesTest, ConsumableCapacityFrom136) {
  const FeatureGates g35 = FeatureGates::ForMinor(35);
  const FeatureGates g36 = FeatureGates::ForMinor(36);
  const FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_FALSE(g35.dra_consumable_capacity);
  EXPECT_FALSE(g35.dra_incubating_knows_capacity);
  EXPECT_TRUE(g36.dra_consumable_capacity);
  EXPECT_TRUE(g36.dra_incubating_knows_capacity);
  EXPECT_FALSE(g36.dra_consumable_capacity_fixes);
  EXPECT_TRUE(g37.dra_consumable_capacity);
  EXPECT_TRUE(g37.dra_consumable_capacity_fixes);
  FeatureGates off = g37;
  ASSERT_TRUE(off.Set("DRAConsumableCapacity=false").ok());
  EXPECT_FALSE(off.dra_consumable_capacity);
  // An ungated change is not settable.
  EXPECT_FALSE(off.Set("DraConsumableCapacityFixes=false").ok());
}

// Binding conditions need both gates: β-on from 1.36; device status is GA
// and locked on at 1.37.
TEST(FeatureGatesTest, BindingConditionsFollowTheMinor) {
  EXPECT_FALSE(FeatureGates::ForMinor(35).DraBindingConditions());
  EXPECT_TRUE(FeatureGates::ForMinor(35).dra_resource_claim_device_status);
  EXPECT_TRUE(FeatureGates::ForMinor(36).DraBindingConditions());
  FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_TRUE(g37.DraBindingConditions());
  ASSERT_TRUE(g37.Set("DRADeviceBindingConditions=false").ok());
  EXPECT_FALSE(g37.DraBindingConditions());
  EXPECT_FALSE(g37.Set("DRAResourceClaimDeviceStatus=false").ok());
  config::ScopedConfigGates restore(config::CurrentConfigGates());
  FeatureGates::ForMinor(36).ApplyProcessWideSwitches();
  EXPECT_TRUE(config::CurrentConfigGates().dra_binding_conditions);
  FeatureGates::ForMinor(35).ApplyProcessWideSwitches();
  EXPECT_FALSE(config::CurrentConfigGates().dra_binding_conditions);
}

TEST(FeatureGatesTest, MinorIsClamped) {
  EXPECT_EQ(FeatureGates::ForMinor(30).minor, kOldestKubeMinor);
  EXPECT_EQ(FeatureGates::ForMinor(40), FeatureGates::ForMinor(kNewestKubeMinor));
}

// v1.37 no longer lists SchedulerQueueingHints: its behaviour is the only one.
TEST(FeatureGatesTest, RemovedGateKeepsItsLastDefault) {
  EXPECT_EQ(FindKubeGate(37, "SchedulerQueueingHints"), nullptr);
  EXPECT_NE(FindKubeGate(36, "SchedulerQueueingHints"), nullptr);
  FeatureGates g = FeatureGates::ForMinor(37);
  EXPECT_TRUE(g.scheduler_queueing_hints);
  util::Status s = g.Set("SchedulerQueueingHints=true");
  EXPECT_EQ(s.message(), "unrecognized feature gate: SchedulerQueueingHints");
}

TEST(FeatureGatesTest, SetsModelledGates) {
  FeatureGates g = FeatureGates::ForMinor(37);
  std::vector<std::string> warnings;
  ASSERT_TRUE(g.Set("SchedulerAsyncPreemption=false, SchedulerPopFromBackoffQ=False", &warnings).ok());
  EXPECT_FALSE(g.scheduler_async_preemption);
  EXPECT_FALSE(g.scheduler_pop_from_backoff_q);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(g.Set("").ok());
  EXPECT_TRUE(g.Set("SchedulerPopFromBackoffQ=1,").ok());
  EXPECT_TRUE(g.scheduler_pop_from_backoff_q);
}

TEST(FeatureGatesTest, RejectsBadInputWithoutChanging) {
  FeatureGates g = FeatureGates::ForMinor(36);
  const FeatureGates before = g;
  EXPECT_EQ(g.Set("SchedulerAsyncPreemption=false,Unknown=true").message(), "unrecognized feature gate: Unknown");
  util::Status s = g.Set("SchedulerPopFromBackoffQ=maybe");
  EXPECT_EQ(s.code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "invalid value of SchedulerPopFromBackoffQ=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
  EXPECT_EQ(g.Set("SchedulerPopFromBackoffQ").message(), "missing bool value for SchedulerPopFromBackoffQ");
  EXPECT_FALSE(g.Set("schedulerpopfrombackoffq=false").ok());
  EXPECT_EQ(g, before);
}

// kube-scheduler v1.34 exits with this text for
// --feature-gates=SchedulerQueueingHints=false.
TEST(FeatureGatesTest, LockedGateRefusesItsOtherValue) {
  FeatureGates g;
  util::Status s = g.Set("SchedulerPopFromBackoffQ=false,SchedulerQueueingHints=false");
  EXPECT_EQ(s.code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
  EXPECT_EQ(g, FeatureGates());
  std::vector<std::string> warnings;
  EXPECT_TRUE(g.Set("SchedulerQueueingHints=true", &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future release.");
  FeatureGates g36 = FeatureGates::ForMinor(36);
  warnings.clear();
  EXPECT_TRUE(g36.Set("SchedulerQueueingHints=true", &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "Warning: setting GA feature gate. It will be removed in a future release. "
            "featureGate=\"SchedulerQueueingHints\" value=true");
}

TEST(FeatureGatesTest, AllBetaSetsUnlockedBetaGatesExplicitOnesWin) {
  FeatureGates g = FeatureGates::ForMinor(37);
  ASSERT_TRUE(g.Set("SchedulerPopFromBackoffQ=true,AllBeta=false").ok());
  EXPECT_TRUE(g.scheduler_pop_from_backoff_q);
  EXPECT_FALSE(g.scheduler_async_preemption);
}

TEST(FeatureGatesTest, KubeGatesKschedDoesNotModelAreAcceptedWithAWarning) {
  FeatureGates g = FeatureGates::ForMinor(37);
  const FeatureGates before = g;
  std::vector<std::string> warnings;
  ASSERT_TRUE(g.Set("AllAlpha=false", &warnings).ok());
  EXPECT_EQ(g, before);
  ASSERT_TRUE(g.Set("SchedulerPreQueueingHints=false", &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("SchedulerPreQueueingHints is ignored"), std::string::npos);
  EXPECT_EQ(g, before);
}

// The generated list: every kube-scheduler gate of each minor, in order.
TEST(FeatureGatesTest, KubesListHasEveryMinor) {
  for (int minor = kOldestKubeMinor; minor <= kNewestKubeMinor; ++minor) {
    SCOPED_TRACE(minor);
    EXPECT_NE(FindKubeGate(minor, "AllAlpha"), nullptr);
    EXPECT_NE(FindKubeGate(minor, "SchedulerPopFromBackoffQ"), nullptr);
  }
  EXPECT_EQ(FindKubeGate(35, "OpportunisticBatching")->stage, KubeGate::kBeta);
  EXPECT_EQ(FindKubeGate(34, "OpportunisticBatching"), nullptr);
}

// DRA selectors' CEL follows the release: the format library's label-key
// messages from 1.35; includes() and Go 1.26's URL ports from 1.36,
// includes() bounded from 1.37 no more; cel-go 0.29's lists.range, dyn
// attributes, deep-copied quantities and no duration(int) from 1.37.
TEST(FeatureGatesTest, CelSwitchesFollowTheRelease) {
  const FeatureGates g35 = FeatureGates::ForMinor(35), g36 = FeatureGates::ForMinor(36);
  const FeatureGates g37 = FeatureGates::ForMinor(37);
  EXPECT_FALSE(FeatureGates::ForMinor(34).cel_label_key_messages);
  EXPECT_TRUE(g35.cel_label_key_messages && g36.cel_label_key_messages && g37.cel_label_key_messages);
  EXPECT_FALSE(g35.cel_includes || g35.cel_strict_url_ports);
  EXPECT_TRUE(g36.cel_includes && g37.cel_includes && g36.cel_strict_url_ports && g37.cel_strict_url_ports);
  EXPECT_FALSE(g36.cel_unbounded_includes || g36.cel_bounded_lists_range || g36.cel_dyn_attributes ||
               g36.cel_quantity_deep_copy || g36.cel_no_duration_of_int);
  EXPECT_TRUE(g37.cel_unbounded_includes && g37.cel_bounded_lists_range && g37.cel_dyn_attributes &&
              g37.cel_quantity_deep_copy && g37.cel_no_duration_of_int);
}

TEST(FeatureGatesTest, DescribeNamesEverySwitch) {
  std::vector<std::string> d = FeatureGates::ForMinor(36).Describe();
  EXPECT_NE(std::find(d.begin(), d.end(), "BalancedAllocationHalfDifference=true"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(), "NodeNamePreFilterOrder=false"), d.end());
}

}  // namespace
}  // namespace ksched::scheduler::framework
