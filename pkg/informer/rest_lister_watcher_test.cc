// RestListerWatcher's wire behaviour is exercised against kube-apiserver-lite
// in test/integration/informer_integration_test.cc; here: the collections
// and selectors kube-scheduler's informers use.
#include "pkg/informer/rest_lister_watcher.h"

#include <gtest/gtest.h>

namespace ksched::informer {
namespace {

class RestListerWatcherTest : public ::testing::Test {
 protected:
  RestListerWatcherTest() {
    client::RestConfig config;
    config.host = "http://127.0.0.1:1";  // never contacted
    auto created = client::RestClient::Create(config, clock_);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (created.ok()) client_ = std::move(created).value();
  }

  util::FakeClock clock_;
  std::unique_ptr<client::RestClient> client_;
};

TEST_F(RestListerWatcherTest, PodsExcludeTerminalPhases) {
  auto lw = NewSchedulerListerWatcher(*client_, ResourceType::Of<api::Pod>());
  EXPECT_EQ(lw->path(), "/api/v1/pods");
  EXPECT_EQ(lw->field_selector(), "status.phase!=Succeeded,status.phase!=Failed");
}

TEST_F(RestListerWatcherTest, OtherResourcesAreUnfilteredAndClusterWide) {
  auto nodes = NewSchedulerListerWatcher(*client_, ResourceType::Of<api::Node>());
  EXPECT_EQ(nodes->path(), "/api/v1/nodes");
  EXPECT_EQ(nodes->field_selector(), "");
  EXPECT_EQ(NewSchedulerListerWatcher(*client_, ResourceType::Of<api::PersistentVolumeClaim>())->path(),
            "/api/v1/persistentvolumeclaims");
  EXPECT_EQ(NewSchedulerListerWatcher(*client_, ResourceType::Of<api::CSINode>())->path(),
            "/apis/storage.k8s.io/v1/csinodes");
  EXPECT_EQ(NewSchedulerListerWatcher(*client_, ResourceType::Of<api::PodDisruptionBudget>())->path(),
            "/apis/policy/v1/poddisruptionbudgets");
  auto factory = RestListerWatcherFactory(*client_);
  EXPECT_NE(factory(ResourceType::Of<api::StorageClass>()), nullptr);
}

}  // namespace
}  // namespace ksched::informer
