#include "pkg/informer/informer_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>

#include "pkg/informer/fake_lister_watcher.h"
#include "pkg/informer/test_objects.h"

namespace ksched::informer {
namespace {

using ::testing::ElementsAre;
using testing::NodeJson;
using testing::Page;
using testing::PodJson;

class InformerFactoryTest : public ::testing::Test {
 protected:
  InformerFactoryTest()
      : factory_(
            [this](const ResourceType& type) {
              auto lw = std::make_unique<FakeListerWatcher>();
              std::lock_guard<std::mutex> lock(mu_);
              fakes_[type.resource] = lw.get();
              types_[type.resource] = type;
              return lw;
            },
            clock_) {}

  FakeListerWatcher& Fake(const std::string& resource) {
    std::lock_guard<std::mutex> lock(mu_);
    return *fakes_.at(resource);
  }

  util::FakeClock clock_;
  std::mutex mu_;
  std::map<std::string, FakeListerWatcher*> fakes_;
  std::map<std::string, ResourceType> types_;
  // Outlive the factory, whose delivery threads call into them.
  testing::Recorder pod_calls_;
  testing::Recorder node_calls_;
  InformerFactory factory_;
};

TEST_F(InformerFactoryTest, OneInformerPerTypeCreatedOnDemand) {
  SharedInformer<api::Pod>& pods = factory_.Pods();
  EXPECT_EQ(&pods, &factory_.InformerFor<api::Pod>());
  factory_.Nodes();
  factory_.PersistentVolumes();
  factory_.PersistentVolumeClaims();
  factory_.StorageClasses();
  factory_.CSINodes();
  factory_.CSIDrivers();
  factory_.PodDisruptionBudgets();
  factory_.Namespaces();
  EXPECT_THAT(factory_.Resources(),
              ElementsAre("csidrivers", "csinodes", "namespaces", "nodes", "persistentvolumeclaims",
                          "persistentvolumes", "poddisruptionbudgets", "pods", "storageclasses"));
  EXPECT_EQ(types_["csinodes"].api_version, "storage.k8s.io/v1");
  EXPECT_TRUE(types_["pods"].namespaced);
  EXPECT_FALSE(types_["nodes"].namespaced);
  EXPECT_EQ(types_["poddisruptionbudgets"].kind, "PodDisruptionBudget");
  EXPECT_EQ(fakes_.size(), 9u);
  // The namespace index is in place, and no other.
  EXPECT_TRUE(pods.GetStore().ByIndex(kNamespaceIndex, "default").ok());
  EXPECT_FALSE(pods.GetStore().ByIndex("spec.nodeName", "n").ok());
  EXPECT_FALSE(factory_.Nodes().GetStore().ByIndex(kNamespaceIndex, "default").ok());
}

TEST_F(InformerFactoryTest, StartsWaitsAndShutsDown) {
  factory_.Pods().AddEventHandler(pod_calls_.PodHandler());
  factory_.Nodes().AddEventHandler(node_calls_.NodeHandler());
  Fake("pods").AddListResponse(Page({PodJson("ns", "a", "3", "n1")}, "5"));
  Fake("nodes").AddListResponse(Page({NodeJson("n1", "4")}, "5"));
  factory_.Start();
  std::map<std::string, bool> synced = factory_.WaitForCacheSync(std::chrono::seconds(10));
  EXPECT_EQ(synced, (std::map<std::string, bool>{{"nodes", true}, {"pods", true}}));
  EXPECT_THAT(pod_calls_.Calls(), ElementsAre("add ns/a 3 initial"));
  EXPECT_THAT(node_calls_.Calls(), ElementsAre("add n1 4 initial"));
  EXPECT_EQ(factory_.Pods().GetStore().ByIndex(kNamespaceIndex, "ns")->size(), 1u);

  // Created after Start: started by the next Start only.
  factory_.CSINodes();
  Fake("csinodes").AddListResponse(Page({}, "5"));
  EXPECT_EQ(Fake("csinodes").ListCalls().size(), 0u);
  factory_.Start();
  ASSERT_TRUE(Fake("csinodes").WaitForListCalls(1));
  EXPECT_TRUE(factory_.WaitForCacheSync(std::chrono::seconds(10))["csinodes"]);
  EXPECT_EQ(Fake("pods").ListCalls().size(), 1u);  // not restarted

  ASSERT_TRUE(Fake("pods").WaitForWatchCalls(1));
  ASSERT_TRUE(Fake("nodes").WaitForWatchCalls(1));
  factory_.Shutdown();
  EXPECT_EQ(Fake("pods").OpenWatches(), 0);
  EXPECT_EQ(Fake("nodes").OpenWatches(), 0);
  EXPECT_EQ(Fake("csinodes").OpenWatches(), 0);
  factory_.Namespaces();
  factory_.Start();  // after Shutdown: nothing starts
  EXPECT_EQ(Fake("namespaces").ListCalls().size(), 0u);
}

TEST_F(InformerFactoryTest, WaitForCacheSyncReportsTheLaggards) {
  factory_.Pods();
  factory_.Nodes();
  Fake("nodes").AddListResponse(Page({}, "1"));  // pods never list
  factory_.Start();
  ASSERT_TRUE(factory_.Nodes().WaitForCacheSync(std::chrono::seconds(10)));
  auto waiting = std::async(std::launch::async, [&] { return factory_.WaitForCacheSync(std::chrono::seconds(3)); });
  while (waiting.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    clock_.Step(std::chrono::seconds(1));
  }
  EXPECT_EQ(waiting.get(), (std::map<std::string, bool>{{"nodes", true}, {"pods", false}}));
}

}  // namespace
}  // namespace ksched::informer
