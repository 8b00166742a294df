#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::dra {
namespace {

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

}  // namespace
}  // namespace ksched::scheduler::dra
