#include "pkg/scheduler/plugins/dynamicresources/binding_conditions.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::dra {
namespace {

// A claim with one allocated device "dev" waiting for "Attached" (failing
// on "AttachFailed"), and one device without conditions.
api::ResourceClaim WaitingClaim() {
  api::ResourceClaim c;
  c.metadata.name = "claim";
  api::AllocationResult a;
  api::DeviceRequestAllocationResult plain{"r", "drv", "pool", "plain"};
  api::DeviceRequestAllocationResult waiting{"r", "drv", "pool", "dev"};
  waiting.binding_conditions = {"Attached"};
  waiting.binding_failure_conditions = {"AttachFailed"};
  a.devices.results = {plain, waiting};
  c.status.allocation = a;
  return c;
}

void SetCondition(api::ResourceClaim& c, const std::string& type, const std::string& status,
                  const std::string& message = "") {
  if (c.status.device_statuses.empty()) c.status.device_statuses.push_back({"drv", "pool", "dev", {}, {}});
  api::Condition cond;
  cond.type = type;
  cond.status = status;
  cond.reason = "Because";
  cond.message = message;
  c.status.device_statuses[0].conditions.push_back(cond);
}

TEST(ClaimReadinessTest, ReadyOnlyWhenEveryConditionIsTrue) {
  api::ResourceClaim c = WaitingClaim();
  EXPECT_TRUE(HasBindingConditions(c));
  EXPECT_EQ(ClaimReadyForBinding(c).value(), false);  // no status yet
  std::vector<BindingConditionsStatus> list = ListBindingConditionsStatus(c);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].pending, std::vector<std::string>{"Attached"});
  EXPECT_EQ(FormatBindingConditionsStatus(list, kBindingOutcomeTimeout), "<driver=drv, pool=pool> dev pending=[Attached]");

  SetCondition(c, "Attached", "False");
  EXPECT_EQ(ClaimReadyForBinding(c).value(), false);
  c.status.device_statuses[0].conditions[0].status = "True";
  EXPECT_EQ(ClaimReadyForBinding(c).value(), true);
  EXPECT_EQ(FormatBindingConditionsStatus(ListBindingConditionsStatus(c), kBindingOutcomeSuccess),
            "<driver=drv, pool=pool> dev");

  // A status of another device does not count.
  api::ResourceClaim other = WaitingClaim();
  other.status.device_statuses.push_back({"drv", "pool", "plain", {}, {}});
  other.status.device_statuses[0].conditions.push_back(c.status.device_statuses[0].conditions[0]);
  EXPECT_EQ(ClaimReadyForBinding(other).value(), false);

  // Unallocated: not ready; without conditions: ready.
  api::ResourceClaim unallocated;
  EXPECT_EQ(ClaimReadyForBinding(unallocated).value(), false);
  api::ResourceClaim plain = WaitingClaim();
  plain.status.allocation->devices.results.pop_back();
  EXPECT_FALSE(HasBindingConditions(plain));
  EXPECT_EQ(ClaimReadyForBinding(plain).value(), true);
}

TEST(ClaimReadinessTest, FailureConditionWins) {
  api::ResourceClaim c = WaitingClaim();
  SetCondition(c, "Attached", "True");
  SetCondition(c, "AttachFailed", "True", "no \"slot\"");
  util::StatusOr<bool> r = ClaimReadyForBinding(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "device binding failed: claim=claim, reason=Because, message=\"no \\\"slot\\\"\"");
  EXPECT_EQ(FormatBindingConditionsStatus(ListBindingConditionsStatus(c), kBindingOutcomeFailed),
            "<driver=drv, pool=pool> dev failed=[AttachFailed]");
}

TEST(ClaimReadinessTest, TimeoutCountsFromTheAllocationTimestamp) {
  api::ResourceClaim c = WaitingClaim();
  const util::WallTime t0 = util::WallTime{} + std::chrono::hours(1000);
  EXPECT_FALSE(ClaimBindingTimedOut(c, std::chrono::seconds(10), t0));  // no timestamp
  c.status.allocation->allocation_timestamp = t0;
  EXPECT_FALSE(ClaimBindingTimedOut(c, std::chrono::seconds(10), t0 + std::chrono::seconds(10)));
  EXPECT_TRUE(ClaimBindingTimedOut(c, std::chrono::seconds(10), t0 + std::chrono::seconds(11)));
  c.status.allocation->devices.results.pop_back();
  EXPECT_FALSE(ClaimBindingTimedOut(c, std::chrono::seconds(10), t0 + std::chrono::seconds(11)));
}

TEST(ClaimReadinessTest, CheckClaimBindingIsReadinessThenTimeout) {
  api::ResourceClaim c = WaitingClaim();
  const util::WallTime t0 = util::WallTime{} + std::chrono::hours(1000);
  c.status.allocation->allocation_timestamp = t0;
  const util::Duration timeout = std::chrono::seconds(10);
  EXPECT_EQ(CheckClaimBinding(c, timeout, t0).value(), false);
  util::StatusOr<bool> late = CheckClaimBinding(c, timeout, t0 + std::chrono::seconds(11));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), util::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(late.status().message(), "device binding timeout: claim=claim");
  // A failure condition is reported before the timeout ...
  SetCondition(c, "AttachFailed", "True");
  EXPECT_EQ(CheckClaimBinding(c, timeout, t0 + std::chrono::seconds(11)).status().code(),
            util::StatusCode::kInternal);
  // ... and a ready claim never times out.
  c = WaitingClaim();
  c.status.allocation->allocation_timestamp = t0;
  SetCondition(c, "Attached", "True");
  EXPECT_EQ(CheckClaimBinding(c, timeout, t0 + std::chrono::seconds(11)).value(), true);
}

}  // namespace
}  // namespace ksched::scheduler::dra
