#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/api/quantity.h"

namespace ksched::scheduler::dra {
namespace {

using api::Quantity;

std::shared_ptr<const api::ResourceClaim> Allocated(std::vector<api::DeviceRequestAllocationResult> results) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->status.allocation.emplace();
  c->status.allocation->devices.results = std::move(results);
  return c;
}

TEST(AllocatedDevicesTest, AdminAccessResultsDoNotTakeTheirDevice) {
  auto unallocated = std::make_shared<api::ResourceClaim>();
  auto got = AllocatedDevices({Allocated({{"gpu", "d", "p", "a", std::nullopt}, {"gpu", "d", "p", "b", false}}),
                               Allocated({{"mon", "d", "p", "c", true}}), unallocated,
                               Allocated({{"x", "d", "q", "a", std::nullopt}})});
  EXPECT_EQ(got, (std::set<DeviceId>{{"d", "p", "a"}, {"d", "p", "b"}, {"d", "q", "a"}}));
}

// Two shares of "gpu" consuming 1Gi each and "nic" taken whole.
api::AllocationResult SharesAndAWholeDevice() {
  api::AllocationResult allocation;
  api::DeviceRequestAllocationResult shared{"r", "d", "p", "gpu", std::nullopt, {}};
  shared.share_id = "s1";
  shared.consumed_capacity["memory"] = Quantity::MustParse("1Gi");
  allocation.devices.results = {shared, shared, api::DeviceRequestAllocationResult{"r", "d", "p", "nic", std::nullopt, {}}};
  allocation.devices.results[1].share_id = "s2";
  return allocation;
}

api::AllocationResult Whole(const std::string& device) {
  api::AllocationResult allocation;
  allocation.devices.results = {api::DeviceRequestAllocationResult{"r", "d", "p", device, std::nullopt, {}}};
  return allocation;
}

TEST(AllocatedCountsTest, SharesAndTheirCapacity) {
  const DeviceId gpu{"d", "p", "gpu"};
  const DeviceId nic{"d", "p", "nic"};
  AllocatedCounts counts;
  counts.Add(SharesAndAWholeDevice(), true);
  AllocatedState state = counts.State();
  EXPECT_TRUE(state.TakenWhole(nic));
  EXPECT_FALSE(state.HasShares(nic));
  EXPECT_FALSE(state.TakenWhole(gpu));
  EXPECT_TRUE(state.HasShares(gpu));
  ASSERT_NE(state.Consumed(gpu), nullptr);
  EXPECT_EQ(state.Consumed(gpu)->at("memory").ToString(), "2Gi");
  EXPECT_EQ(state.Consumed(nic), nullptr);
  // Gate off: every result takes its device.
  AllocatedCounts off;
  off.Add(SharesAndAWholeDevice(), false);
  EXPECT_TRUE(off.State().TakenWhole(gpu));
  EXPECT_FALSE(off.State().HasShares(gpu));
  EXPECT_EQ(off.State().Consumed(gpu), nullptr);
}

TEST(AllocatedCountsTest, RemoveUndoesAddAndViewsStayAsTheyWere) {
  const DeviceId gpu{"d", "p", "gpu"};
  AllocatedCounts counts;
  counts.Add(SharesAndAWholeDevice(), true);
  counts.Add(Whole("gpu"), true);
  AllocatedState both = counts.State();
  counts.Remove(Whole("gpu"), true);
  AllocatedState shares = counts.State();
  counts.Remove(SharesAndAWholeDevice(), true);
  AllocatedState none = counts.State();

  EXPECT_TRUE(both.TakenWhole(gpu));
  EXPECT_TRUE(both.HasShares(gpu));
  EXPECT_FALSE(shares.TakenWhole(gpu));
  EXPECT_EQ(shares.Consumed(gpu)->at("memory").ToString(), "2Gi");
  EXPECT_FALSE(none.Holds(gpu));
  EXPECT_FALSE(none.Holds({"d", "p", "nic"}));
  EXPECT_EQ(none.Consumed(gpu), nullptr);
}

// Enough devices come and go for the counts to fold their changes into a
// new base several times; every view answers as a tally from scratch would.
TEST(AllocatedCountsTest, ViewsAcrossFoldsMatchATallyFromScratch) {
  AllocatedCounts counts;
  std::set<int> held;
  std::vector<std::pair<std::set<int>, AllocatedState>> views;
  for (int step = 0; step < 3000; ++step) {
    const int device = (step * 7919) % 400;
    if (held.erase(device) != 0) {
      counts.Remove(Whole("dev-" + std::to_string(device)), true);
    } else {
      held.insert(device);
      counts.Add(Whole("dev-" + std::to_string(device)), true);
    }
    if (step % 97 == 0) views.emplace_back(held, counts.State());
  }
  views.emplace_back(held, counts.State());
  for (const auto& [expected, state] : views) {
    for (int device = 0; device < 400; ++device) {
      EXPECT_EQ(state.TakenWhole({"d", "p", "dev-" + std::to_string(device)}), expected.count(device) != 0)
          << "device " << device;
    }
  }
}

TEST(AllocatedStateTest, EmptyHoldsHoldNothing) {
  AllocatedState state(DeviceHolds{{{"d", "p", "a"}, {}}, {{"d", "p", "b"}, {1, 0, {}}}});
  EXPECT_FALSE(state.Holds({"d", "p", "a"}));
  EXPECT_TRUE(state.Holds({"d", "p", "b"}));
  EXPECT_FALSE(AllocatedState().Holds({"d", "p", "b"}));
}

}  // namespace
}  // namespace ksched::scheduler::dra
