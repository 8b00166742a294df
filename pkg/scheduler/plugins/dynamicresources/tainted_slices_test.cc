#include "pkg/scheduler/plugins/dynamicresources/tainted_slices.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::dra {
namespace {

std::shared_ptr<const api::ResourceSlice> Slice(std::string pool) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = pool;
  s->spec.driver = "d";
  s->spec.pool.name = std::move(pool);
  s->spec.devices.push_back(api::Device{"gpu-0", {}, {}});
  return s;
}

std::shared_ptr<const api::DeviceTaintRule> Rule(std::string pool, std::string key) {
  auto r = std::make_shared<api::DeviceTaintRule>();
  r->metadata.name = key;
  r->spec.device_selector = api::DeviceTaintSelector{};
  r->spec.device_selector->pool = std::move(pool);
  r->spec.taint.key = std::move(key);
  r->spec.taint.effect = "NoSchedule";
  return r;
}

TEST(TaintedSlicesTest, ReusesThePatchedSlicesWhileTheObjectsAreTheSame) {
  TaintedSlices cache;
  auto a = Slice("a"), b = Slice("b");
  auto rule = Rule("a", "broken");
  TaintedSlices::Slices first = cache.Get({a, b}, {rule});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_NE(first[0], a);  // a patched copy
  ASSERT_EQ(first[0]->spec.devices[0].taints.size(), 1u);
  EXPECT_EQ(first[1], b);  // untouched, shared
  // The same objects: the same copy, not a new one.
  EXPECT_EQ(cache.Get({a, b}, {rule})[0], first[0]);
  // A changed rule (a new object) patches again.
  TaintedSlices::Slices second = cache.Get({a, b}, {Rule("a", "maintenance")});
  EXPECT_NE(second[0], first[0]);
  EXPECT_EQ(second[0]->spec.devices[0].taints.at(0).key, "maintenance");
  // A changed slice too; no rules: the slices as they are.
  auto a2 = Slice("a");
  EXPECT_EQ(cache.Get({a2, b}, {}), (TaintedSlices::Slices{a2, b}));
}

}  // namespace
}  // namespace ksched::scheduler::dra
