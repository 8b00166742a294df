#include "test/bench/cluster.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ksched::bench {
namespace {

TEST(ScheduledCounterTest, CountsPerNamespaceAndInTotal) {
  ScheduledCounter c;
  c.Add("a", "p");
  c.Add("a", "p");
  c.Add("b", "p");
  EXPECT_EQ(c.Get("a"), 2);
  EXPECT_EQ(c.Get("b"), 1);
  EXPECT_EQ(c.Get("c"), 0);
  EXPECT_EQ(c.Total(), 3);
}

TEST(ScheduledCounterTest, BindTimesOnlyOnceKept) {
  ScheduledCounter c;
  c.Add("a", "before");
  c.KeepBindTimes();
  const auto t0 = std::chrono::steady_clock::now();
  c.Add("a", "after");
  EXPECT_FALSE(c.BoundAt("a", "before").has_value());
  ASSERT_TRUE(c.BoundAt("a", "after").has_value());
  EXPECT_GE(*c.BoundAt("a", "after"), t0);
  EXPECT_FALSE(c.BoundAt("b", "after").has_value());
  EXPECT_EQ(c.Get("a"), 2);
}

TEST(ScheduledCounterTest, WaitForReturnsAtOnceWhenReachedAndFalseWhenNot) {
  ScheduledCounter c;
  c.Add("a", "p");
  EXPECT_TRUE(c.WaitFor("a", 1, std::chrono::milliseconds(0)));
  EXPECT_FALSE(c.WaitFor("a", 2, std::chrono::milliseconds(0)));
  EXPECT_FALSE(c.WaitFor("b", 1, std::chrono::milliseconds(0)));
}

// The waiter is woken when its count is reached, even though Add only
// notifies then (and not for other namespaces or smaller counts).
TEST(ScheduledCounterTest, WaiterWakesWhenItsCountIsReached) {
  ScheduledCounter c;
  std::thread adder([&c] {
    for (int i = 0; i < 1000; ++i) {
      c.Add("other", "p");
      c.Add("ns", "p");
    }
  });
  // Generous: the adder needs microseconds; a lost wake-up would hit it.
  EXPECT_TRUE(c.WaitFor("ns", 1000, std::chrono::seconds(60)));
  adder.join();
  EXPECT_EQ(c.Get("ns"), 1000);
  // A second waiter on a count already passed returns at once.
  EXPECT_TRUE(c.WaitFor("ns", 10, std::chrono::milliseconds(0)));
}

// The e2e cluster's pipelined creates: every object lands (many batches,
// a partial last one), and a refused POST is reported with its HTTP code.
TEST(E2eClusterTest, PipelinedCreatesLandAndRefusalsAreReported) {
  ClusterOptions options;
  options.create_workers = 3;
  util::StatusOr<std::unique_ptr<Cluster>> cluster = NewE2eCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.CreateNamespace({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ns"}}}}).ok());
  std::vector<nlohmann::json> pods;
  for (int i = 0; i < 53; ++i) {
    pods.push_back({{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p" + std::to_string(i)}, {"namespace", "ns"}}},
                    {"spec", {{"schedulerName", "other"}, {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}});
  }
  auto batch = c.PreparePods(pods);
  ASSERT_TRUE(batch.ok());
  util::Status created = c.CreatePods(**batch);
  ASSERT_TRUE(created.ok()) << created.ToString();
  // Again: every name is taken now.
  created = c.CreatePods(**batch);
  EXPECT_FALSE(created.ok());
  EXPECT_NE(created.message().find("HTTP 409"), std::string::npos) << created.ToString();
  c.Stop();
}

}  // namespace
}  // namespace ksched::bench
