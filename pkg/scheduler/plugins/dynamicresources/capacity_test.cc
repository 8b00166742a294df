// Consumable capacity's arithmetic (kube's consumable_capacity_test.go
// cases: request policies' rounding, policy violations, the fit).
#include "pkg/scheduler/plugins/dynamicresources/capacity.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace ksched::scheduler::dra {
namespace {

using api::Quantity;

api::Device DeviceWith(const std::string& value, std::optional<api::CapacityRequestPolicy> policy = std::nullopt) {
  api::Device d;
  d.name = "dev";
  d.capacity["memory"] = api::DeviceCapacity{value, std::move(policy)};
  return d;
}

api::CapacityRequirements Ask(const std::string& amount) {
  api::CapacityRequirements r;
  r.requests["memory"] = Quantity::MustParse(amount);
  return r;
}

api::CapacityRequestPolicy Range(const std::string& min, const std::string& max, const std::string& step) {
  api::CapacityRequestPolicy p;
  p.valid_range.emplace();
  if (!min.empty()) p.valid_range->min = Quantity::MustParse(min);
  if (!max.empty()) p.valid_range->max = Quantity::MustParse(max);
  if (!step.empty()) p.valid_range->step = Quantity::MustParse(step);
  return p;
}

std::string Consumed(const api::CapacityRequirements* request, const api::Device& device) {
  util::StatusOr<CapacityMap> c = ConsumedCapacity(request, device, true);
  if (!c.ok()) return "error: " + c.status().message();
  return c->at("memory").ToString();
}

TEST(CapacityTest, NoRequestTakesTheDefaultElseTheWholeCapacity) {
  EXPECT_EQ(Consumed(nullptr, DeviceWith("10Gi")), "10Gi");
  api::CapacityRequestPolicy p;
  p.default_value = Quantity::MustParse("1Gi");
  EXPECT_EQ(Consumed(nullptr, DeviceWith("10Gi", p)), "1Gi");
}

TEST(CapacityTest, RequestWithoutPolicyIsTakenAsIs) {
  const api::CapacityRequirements ask = Ask("3Gi");
  EXPECT_EQ(Consumed(&ask, DeviceWith("10Gi")), "3Gi");
}

TEST(CapacityTest, RangeRoundsUpToMinAndToTheNextStep) {
  const api::Device device = DeviceWith("10Gi", Range("1Gi", "8Gi", "2Gi"));
  const api::CapacityRequirements small = Ask("100Mi");
  EXPECT_EQ(Consumed(&small, device), "1Gi");
  const api::CapacityRequirements between = Ask("2Gi");
  EXPECT_EQ(Consumed(&between, device), "3Gi");  // 1Gi + 1 step
  const api::CapacityRequirements on_step = Ask("5Gi");
  EXPECT_EQ(Consumed(&on_step, device), "5Gi");
  const api::Device no_step = DeviceWith("10Gi", Range("1Gi", "", ""));
  const api::CapacityRequirements odd = Ask("1500Mi");
  EXPECT_EQ(Consumed(&odd, no_step), "1500Mi");
}

TEST(CapacityTest, ValidValuesRoundUpToTheSmallestAtLeastTheRequest) {
  api::CapacityRequestPolicy p;
  p.valid_values = {Quantity::MustParse("1Gi"), Quantity::MustParse("4Gi"), Quantity::MustParse("8Gi")};
  const api::Device device = DeviceWith("16Gi", p);
  const api::CapacityRequirements two = Ask("2Gi");
  EXPECT_EQ(Consumed(&two, device), "4Gi");
  EXPECT_TRUE(*CapacityFits(&two, device, nullptr, nullptr, true));
  // No valid value is large enough: the request stays as it is and
  // violates the policy, so the device does not fit.
  const api::CapacityRequirements nine = Ask("9Gi");
  EXPECT_EQ(Consumed(&nine, device), "9Gi");
  EXPECT_FALSE(*CapacityFits(&nine, device, nullptr, nullptr, true));
}

TEST(CapacityTest, RangeMaxIsAViolation) {
  const api::Device device = DeviceWith("10Gi", Range("1Gi", "4Gi", "1Gi"));
  const api::CapacityRequirements five = Ask("5Gi");
  EXPECT_FALSE(*CapacityFits(&five, device, nullptr, nullptr, true));
  const api::CapacityRequirements four = Ask("4Gi");
  EXPECT_TRUE(*CapacityFits(&four, device, nullptr, nullptr, true));
}

TEST(CapacityTest, FitSumsAllocatedAllocatingAndTheRequest) {
  const api::Device device = DeviceWith("10");
  const api::CapacityRequirements four = Ask("4");
  const CapacityMap allocated{{"memory", Quantity::MustParse("3")}};
  const CapacityMap allocating{{"memory", Quantity::MustParse("3")}};
  EXPECT_TRUE(*CapacityFits(&four, device, &allocated, nullptr, true));
  EXPECT_TRUE(*CapacityFits(&four, device, &allocated, &allocating, true));  // 10 <= 10
  const CapacityMap more{{"memory", Quantity::MustParse("4")}};
  EXPECT_FALSE(*CapacityFits(&four, device, &allocated, &more, true));
}

TEST(CapacityTest, KeptValuesStandForTheDevicesOwn) {
  api::Device device = DeviceWith("10");
  device.capacity["bandwidth"] = api::DeviceCapacity{"2Gi", std::nullopt};
  const std::vector<Quantity> values = CapacityValues(device);
  ASSERT_EQ(values.size(), 2u);  // in name order: bandwidth, memory
  EXPECT_EQ(values[0].ToString(), "2Gi");
  EXPECT_EQ(values[1].ToString(), "10");
  const api::CapacityRequirements four = Ask("4");
  const CapacityMap allocated{{"memory", Quantity::MustParse("6")}};
  EXPECT_TRUE(*CapacityFits(&four, device, &allocated, nullptr, true, &values));
  // The values given are the ones compared: a smaller memory no longer fits.
  const std::vector<Quantity> smaller = {Quantity::MustParse("2Gi"), Quantity::MustParse("9")};
  EXPECT_FALSE(*CapacityFits(&four, device, &allocated, nullptr, true, &smaller));
  util::StatusOr<CapacityMap> consumed = ConsumedCapacity(nullptr, device, true, &smaller);
  ASSERT_TRUE(consumed.ok());
  EXPECT_EQ(consumed->at("memory").ToString(), "9");
  EXPECT_EQ(consumed->at("bandwidth").ToString(), "2Gi");
}

TEST(CapacityTest, RequestForACapacityTheDeviceLacksDoesNotFit) {
  const api::Device device = DeviceWith("10");
  api::CapacityRequirements ask;
  ask.requests["bandwidth"] = Quantity::MustParse("1");
  util::StatusOr<bool> fits = CapacityFits(&ask, device, nullptr, nullptr, true);
  ASSERT_TRUE(fits.ok());
  EXPECT_FALSE(*fits);
}

TEST(CapacityTest, NoRequestOnAnExclusiveDeviceFitsItsWholeCapacityOnce) {
  const api::Device device = DeviceWith("10");
  EXPECT_TRUE(*CapacityFits(nullptr, device, nullptr, nullptr, true));
  const CapacityMap allocated{{"memory", Quantity::MustParse("1")}};
  EXPECT_FALSE(*CapacityFits(nullptr, device, &allocated, nullptr, true));
}

TEST(CapacityTest, WholeCapacityFitsOnlyWithoutPoliciesOrNegativeValues) {
  const api::Device plain = DeviceWith("10");
  EXPECT_TRUE(WholeCapacityFits(plain, CapacityValues(plain), true));
  api::CapacityRequestPolicy p;
  p.default_value = Quantity::MustParse("1");
  const api::Device with_policy = DeviceWith("10", p);
  EXPECT_FALSE(WholeCapacityFits(with_policy, CapacityValues(with_policy), false));
  const api::Device negative = DeviceWith("-1");
  EXPECT_FALSE(WholeCapacityFits(negative, CapacityValues(negative), true));
  EXPECT_TRUE(WholeCapacityFits(negative, CapacityValues(negative), false));
  // Where it says true, CapacityFits agrees, and strict refuses what it left.
  EXPECT_TRUE(*CapacityFits(nullptr, negative, nullptr, nullptr, false));
  EXPECT_FALSE(CapacityFits(nullptr, negative, nullptr, nullptr, true).ok());
}

TEST(CapacityTest, RoundingPastInt64IsAnErrorOnlyWhenStrict) {
  const api::Device device = DeviceWith("10", Range("1", "", "1"));
  const api::CapacityRequirements huge = Ask("1e30");
  util::StatusOr<bool> strict = CapacityFits(&huge, device, nullptr, nullptr, true);
  EXPECT_FALSE(strict.ok());
  util::StatusOr<bool> lenient = CapacityFits(&huge, device, nullptr, nullptr, false);
  ASSERT_TRUE(lenient.ok());
  EXPECT_FALSE(*lenient);
}

}  // namespace
}  // namespace ksched::scheduler::dra
