#include "pkg/workqueue/metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/workqueue/fake_metrics_provider.h"
#include "pkg/workqueue/queue.h"

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;
using testing::FakeMetricsProvider;

TEST(QueueMetricsTest, AddGetDoneUpdateClientGoMetrics) {
  util::FakeClock clock;
  FakeMetricsProvider m;
  Queue<std::string> q(clock, QueueConfig{.name = "test", .metrics_provider = &m});

  q.Add("a");
  q.Add("b");
  q.Add("a");  // de-duplicated: not an add
  EXPECT_EQ(m.Values("test").adds, 2);
  EXPECT_EQ(m.Values("test").depth, 2);

  clock.Step(2s);
  ASSERT_EQ(q.Get(), "a");
  EXPECT_EQ(m.Values("test").depth, 1);
  EXPECT_EQ(m.Values("test").latencies, std::vector<double>({2.0}));

  clock.Step(3s);
  q.UpdateUnfinishedWork();
  EXPECT_DOUBLE_EQ(m.Values("test").unfinished_work_seconds, 3.0);
  EXPECT_DOUBLE_EQ(m.Values("test").longest_running_processor_seconds, 3.0);

  ASSERT_EQ(q.Get(), "b");
  EXPECT_EQ(m.Values("test").latencies, std::vector<double>({2.0, 5.0}));
  clock.Step(1s);
  q.UpdateUnfinishedWork();
  EXPECT_DOUBLE_EQ(m.Values("test").unfinished_work_seconds, 4.0 + 1.0);
  EXPECT_DOUBLE_EQ(m.Values("test").longest_running_processor_seconds, 4.0);

  q.Done("a");
  EXPECT_EQ(m.Values("test").work_durations, std::vector<double>({4.0}));

  // Re-added while processing: counted as an add and in the depth, since it
  // is due for another run.
  q.Add("b");
  EXPECT_EQ(m.Values("test").adds, 3);
  EXPECT_EQ(m.Values("test").depth, 1);
  clock.Step(1s);
  q.Done("b");
  EXPECT_EQ(m.Values("test").work_durations, std::vector<double>({4.0, 2.0}));
  ASSERT_EQ(q.Get(), "b");
  EXPECT_EQ(m.Values("test").depth, 0);
  EXPECT_EQ(m.Values("test").latencies, std::vector<double>({2.0, 5.0, 1.0}));
  q.Done("b");

  q.UpdateUnfinishedWork();
  EXPECT_DOUBLE_EQ(m.Values("test").unfinished_work_seconds, 0.0);
  EXPECT_DOUBLE_EQ(m.Values("test").longest_running_processor_seconds, 0.0);
}

TEST(QueueMetricsTest, UnfinishedWorkIsRefreshedPeriodicallyOnTheClock) {
  util::FakeClock clock;
  FakeMetricsProvider m;
  Queue<std::string> q(clock, QueueConfig{.name = "periodic", .metrics_provider = &m});
  q.Add("a");
  ASSERT_EQ(q.Get(), "a");
  clock.Step(500ms);
  ASSERT_TRUE(m.WaitForUnfinishedWorkUpdates("periodic", 1));
  EXPECT_DOUBLE_EQ(m.Values("periodic").unfinished_work_seconds, 0.5);
  EXPECT_DOUBLE_EQ(m.Values("periodic").longest_running_processor_seconds, 0.5);
  clock.Step(500ms);
  ASSERT_TRUE(m.WaitForUnfinishedWorkUpdates("periodic", 2));
  EXPECT_DOUBLE_EQ(m.Values("periodic").longest_running_processor_seconds, 1.0);
  q.Done("a");
}

TEST(QueueMetricsTest, UnnamedQueueOrNoopProviderRecordsNothing) {
  util::FakeClock clock;
  FakeMetricsProvider m;
  Queue<std::string> unnamed(clock, QueueConfig{.metrics_provider = &m});
  unnamed.Add("a");
  EXPECT_EQ(m.Values("").adds, 0);

  EXPECT_FALSE(MetricsEnabled("q", nullptr));
  EXPECT_FALSE(MetricsEnabled("q", &NoopMetricsProvider::Get()));
  EXPECT_FALSE(MetricsEnabled("", &m));
  EXPECT_TRUE(MetricsEnabled("q", &m));
}

}  // namespace
}  // namespace ksched::workqueue
