#include "pkg/scheduler/plugins/volumebinding/storage_capacity.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::plugins::volumebinding {
namespace {

constexpr char kDriver[] = "topolvm.io";

std::shared_ptr<api::CSIStorageCapacity> Capacity(const std::string& name, const std::string& sc,
                                                  std::optional<std::string> capacity,
                                                  std::optional<std::string> max_size,
                                                  std::optional<std::string> node = "node-1") {
  auto c = std::make_shared<api::CSIStorageCapacity>();
  c->metadata.name = name;
  c->metadata.namespace_ = "storage";
  c->storage_class_name = sc;
  if (node) {
    c->node_topology = api::LabelSelector{};
    c->node_topology->match_labels["topology.topolvm.io/node"] = *node;
  }
  if (capacity) c->capacity = api::Quantity::MustParse(*capacity);
  if (max_size) c->maximum_volume_size = api::Quantity::MustParse(*max_size);
  return c;
}

class StorageCapacityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sc_.metadata.name = "lvm";
    sc_.provisioner = kDriver;
    node_.metadata.name = "node-1";
    node_.metadata.labels["topology.topolvm.io/node"] = "node-1";
    claim_.metadata.name = "data";
    claim_.metadata.namespace_ = "default";
    claim_.spec.resources.requests["storage"] = api::Quantity::MustParse("1Gi");
    SetDriver(true);
  }

  void SetDriver(std::optional<bool> storage_capacity) {
    auto d = std::make_shared<api::CSIDriver>();
    d->metadata.name = kDriver;
    d->spec.storage_capacity = storage_capacity;
    listers_.csi_drivers.Set(d);
  }

  bool Fits() const { return HasEnoughCapacity(listers_, claim_, sc_, node_).sufficient; }

  framework::InMemorySharedListers listers_;
  api::StorageClass sc_;
  api::Node node_;
  api::PersistentVolumeClaim claim_;
};

// The cases of kube's TestCapacity (binder_test.go), per node.
TEST_F(StorageCapacityTest, NoCapacityObjects) { EXPECT_FALSE(Fits()); }

TEST_F(StorageCapacityTest, DriversThatDoNotTrackCapacity) {
  SetDriver(false);
  EXPECT_TRUE(Fits());
  SetDriver(std::nullopt);
  EXPECT_TRUE(Fits());
  listers_.csi_drivers.Delete("", kDriver);
  EXPECT_TRUE(Fits());  // not a CSI driver, or one without a CSIDriver object
}

TEST_F(StorageCapacityTest, ClaimWithoutRequest) {
  claim_.spec.resources.requests.clear();
  EXPECT_TRUE(Fits());
}

TEST_F(StorageCapacityTest, SufficientCapacity) {
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "1Gi", std::nullopt));
  EXPECT_TRUE(Fits());  // exactly the request
}

TEST_F(StorageCapacityTest, InsufficientCapacity) {
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "1023Mi", std::nullopt));
  EXPECT_FALSE(Fits());
}

TEST_F(StorageCapacityTest, OtherClass) {
  listers_.csi_storage_capacities.Set(Capacity("c", "other", "10Gi", std::nullopt));
  EXPECT_FALSE(Fits());
}

TEST_F(StorageCapacityTest, OtherTopologySegment) {
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "10Gi", std::nullopt, "node-2"));
  EXPECT_FALSE(Fits());
  // No nodeTopology: reachable from nowhere.
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "10Gi", std::nullopt, std::nullopt));
  EXPECT_FALSE(Fits());
  // An empty selector matches every node.
  auto everywhere = Capacity("c", "lvm", "10Gi", std::nullopt, std::nullopt);
  everywhere->node_topology = api::LabelSelector{};
  listers_.csi_storage_capacities.Set(everywhere);
  EXPECT_TRUE(Fits());
}

TEST_F(StorageCapacityTest, MaximumVolumeSizeWins) {
  // Plenty of capacity, but no single volume that large.
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "100Gi", "512Mi"));
  EXPECT_FALSE(Fits());
  // Little total capacity reported, but the maximum volume size is enough.
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "512Mi", "2Gi"));
  EXPECT_TRUE(Fits());
  // Neither set: no limit to compare with.
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", std::nullopt, std::nullopt));
  EXPECT_FALSE(Fits());
}

TEST_F(StorageCapacityTest, AnyMatchingObjectSufficesAndIsReturned) {
  listers_.csi_storage_capacities.Set(Capacity("small", "lvm", "1Mi", std::nullopt));
  listers_.csi_storage_capacities.Set(Capacity("far", "lvm", "10Gi", std::nullopt, "node-2"));
  EXPECT_FALSE(Fits());
  auto big = Capacity("big", "lvm", "5Gi", std::nullopt);
  big->metadata.namespace_ = "another-namespace";
  listers_.csi_storage_capacities.Set(big);
  CapacityCheck check = HasEnoughCapacity(listers_, claim_, sc_, node_);
  EXPECT_TRUE(check.sufficient);
  ASSERT_NE(check.capacity, nullptr);
  EXPECT_EQ(check.capacity->metadata.name, "big");
  // A driver that does not track capacity admits without an object.
  SetDriver(false);
  check = HasEnoughCapacity(listers_, claim_, sc_, node_);
  EXPECT_TRUE(check.sufficient);
  EXPECT_EQ(check.capacity, nullptr);
}

TEST_F(StorageCapacityTest, RequestRoundsUpToWholeBytes) {
  claim_.spec.resources.requests["storage"] = api::Quantity::MustParse("1500m");  // 1.5 bytes -> 2
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "1", std::nullopt));
  EXPECT_FALSE(Fits());
  listers_.csi_storage_capacities.Set(Capacity("c", "lvm", "2", std::nullopt));
  EXPECT_TRUE(Fits());
}

TEST(VolumeLimitTest, PrefersMaximumVolumeSize) {
  auto c = Capacity("c", "lvm", "5Gi", std::nullopt);
  ASSERT_NE(VolumeLimit(*c), nullptr);
  EXPECT_EQ(VolumeLimit(*c)->Value(), 5LL << 30);
  c->maximum_volume_size = api::Quantity::MustParse("1Gi");
  EXPECT_EQ(VolumeLimit(*c)->Value(), 1LL << 30);
  c->capacity.reset();
  c->maximum_volume_size.reset();
  EXPECT_EQ(VolumeLimit(*c), nullptr);
  EXPECT_FALSE(CapacitySufficient(*c, 0));
}

}  // namespace
}  // namespace ksched::scheduler::plugins::volumebinding
