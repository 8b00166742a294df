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

std::vector<std::string> Items(const ListPage& page) {
  std::vector<std::string> out;
  for (size_t i = 0; i < page.items.size(); ++i) out.emplace_back(page.Item(i));
  return out;
}

TEST(ParseListPageTest, FindsEachItemsTextAndTheListsMetadata) {
  const std::string item_a = R"({"metadata":{"name":"a","labels":{"k":"v\"q"}},"spec":{"x":[1,{"y":null}],"z":-1.5e3}})";
  const std::string item_b = R"({"metadata":{"name":"b"}})";
  util::StatusOr<ListPage> page = ParseListPage(
      "/api/v1/pods", R"({"kind":"PodList","metadata":{"resourceVersion":"42","continue":"tok"},"items":[ )" + item_a +
                          " , " + item_b + "]}");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "tok");
  EXPECT_EQ(Items(*page), (std::vector<std::string>{item_a, item_b}));

  util::StatusOr<ListPage> empty = ParseListPage("/api/v1/pods", R"({"metadata":{},"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
}

// As in a tree, a repeated "items" key counts once, with its last value.
TEST(ParseListPageTest, ARepeatedItemsKeyKeepsTheLast) {
  util::StatusOr<ListPage> page = ParseListPage("/api/v1/pods", R"({"items":[{"a":1}],"items":[{"b":2}]})");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Items(*page), (std::vector<std::string>{R"({"b":2})"}));
}

// An escaped key is beyond the reader: the tree answers, with the same
// items (written back compactly).
TEST(ParseListPageTest, WhatTheReaderRefusesGoesThroughTheTree) {
  util::StatusOr<ListPage> page = ParseListPage(
      "/api/v1/pods", R"({"metadata":{"resourceVersion":"7"},"\u0069tems":[], "items":[ {"metadata": {"name":"a"}} ]})");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->resource_version, "7");
  EXPECT_EQ(Items(*page), (std::vector<std::string>{R"({"metadata":{"name":"a"}})"}));
}

TEST(ParseListPageTest, MalformedListsAreErrors) {
  EXPECT_NE(ParseListPage("/p", "{").status().message().find("response body is not JSON"), std::string::npos);
  EXPECT_NE(ParseListPage("/p", "[]").status().message().find("the response is not an object"), std::string::npos);
  EXPECT_NE(ParseListPage("/p", R"({"items":{}})").status().message().find("items is not an array"),
            std::string::npos);
}

}  // namespace
}  // namespace ksched::informer
