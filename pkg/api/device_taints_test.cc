#include "pkg/api/device_taints.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

DeviceTaint Taint(std::string key, std::string value, std::string effect) {
  return DeviceTaint{std::move(key), std::move(value), std::move(effect), std::nullopt};
}

DeviceToleration Toleration(std::string key, std::string op, std::string value, std::string effect) {
  return DeviceToleration{std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

TEST(DeviceTaintsTest, TolerationMatchesAsNodeTaints) {
  const DeviceTaint t = Taint("k", "v", "NoSchedule");
  EXPECT_TRUE(DeviceTolerates(Toleration("k", "", "v", ""), t));          // empty operator is Equal
  EXPECT_TRUE(DeviceTolerates(Toleration("k", "Equal", "v", "NoSchedule"), t));
  EXPECT_FALSE(DeviceTolerates(Toleration("k", "Equal", "w", ""), t));
  EXPECT_TRUE(DeviceTolerates(Toleration("k", "Exists", "", ""), t));
  EXPECT_TRUE(DeviceTolerates(Toleration("", "Exists", "", ""), t));      // every key
  EXPECT_FALSE(DeviceTolerates(Toleration("", "Exists", "", "NoExecute"), t));
  EXPECT_FALSE(DeviceTolerates(Toleration("other", "Exists", "", ""), t));
  EXPECT_FALSE(DeviceTolerates(Toleration("k", "Gt", "v", ""), t));       // unknown operator
}

TEST(DeviceTaintsTest, OnlyNoScheduleAndNoExecutePrevent) {
  Device d;
  d.taints = {Taint("a", "", "None"), Taint("b", "", "PreferNoSchedule")};
  EXPECT_FALSE(DeviceTaintPreventsAllocation(d, {}));
  d.taints.push_back(Taint("c", "1", "NoExecute"));
  EXPECT_TRUE(DeviceTaintPreventsAllocation(d, {}));
  EXPECT_FALSE(DeviceTaintPreventsAllocation(d, {Toleration("c", "", "1", "")}));
  d.taints.push_back(Taint("e", "", "NoSchedule"));
  EXPECT_TRUE(DeviceTaintPreventsAllocation(d, {Toleration("c", "", "1", "")}));  // every taint needs one
  EXPECT_FALSE(DeviceTaintPreventsAllocation(d, {Toleration("", "Exists", "", "")}));
}

std::shared_ptr<const ResourceSlice> Slice(std::string driver, std::string pool, std::vector<std::string> devices) {
  auto s = std::make_shared<ResourceSlice>();
  s->metadata.name = driver + "-" + pool;
  s->spec.driver = std::move(driver);
  s->spec.pool.name = std::move(pool);
  for (std::string& n : devices) s->spec.devices.push_back(Device{.name = std::move(n)});
  return s;
}

std::shared_ptr<const DeviceTaintRule> Rule(std::optional<DeviceTaintSelector> sel, std::string key) {
  auto r = std::make_shared<DeviceTaintRule>();
  r->spec.device_selector = std::move(sel);
  r->spec.taint = Taint(std::move(key), "", "NoSchedule");
  return r;
}

TEST(DeviceTaintsTest, RulesTaintTheDevicesTheySelect) {
  auto gpu = Slice("gpu", "n1", {"g0", "g1"});
  auto nic = Slice("nic", "n1", {"eth0"});
  const std::vector<std::shared_ptr<const ResourceSlice>> slices = {gpu, nic};

  // No selector: nothing; driver and pool: the whole pool; device: one.
  auto out = ApplyDeviceTaintRules(slices, {Rule(std::nullopt, "none")});
  EXPECT_EQ(out[0], gpu);
  EXPECT_EQ(out[1], nic);
  out = ApplyDeviceTaintRules(slices, {Rule(DeviceTaintSelector{.driver = "gpu", .pool = "n1"}, "pool"),
                                       Rule(DeviceTaintSelector{.device = "g1"}, "one")});
  EXPECT_EQ(out[1], nic);  // untouched slices are shared, not copied
  ASSERT_NE(out[0], gpu);
  EXPECT_TRUE(gpu->spec.devices[0].taints.empty());  // the informer's object is not changed
  ASSERT_EQ(out[0]->spec.devices[0].taints.size(), 1u);
  EXPECT_EQ(out[0]->spec.devices[0].taints[0].key, "pool");
  ASSERT_EQ(out[0]->spec.devices[1].taints.size(), 2u);  // in rule order
  EXPECT_EQ(out[0]->spec.devices[1].taints[1].key, "one");

  EXPECT_TRUE(DeviceTaintRuleSelectsAny(*Rule(DeviceTaintSelector{.driver = "nic"}, "x"), *nic));
  EXPECT_FALSE(DeviceTaintRuleSelectsAny(*Rule(DeviceTaintSelector{.driver = "nic"}, "x"), *gpu));
  EXPECT_FALSE(DeviceTaintRuleSelectsAny(*Rule(DeviceTaintSelector{.device = "g9"}, "x"), *gpu));
  EXPECT_FALSE(DeviceTaintRuleSelectsAny(*Rule(DeviceTaintSelector{.pool = "n2"}, "x"), *gpu));
  EXPECT_FALSE(DeviceTaintRuleSelectsAny(*Rule(std::nullopt, "x"), *gpu));
}

}  // namespace
}  // namespace ksched::api
