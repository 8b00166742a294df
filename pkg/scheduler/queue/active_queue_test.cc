#include "pkg/scheduler/queue/active_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/queue/backoff_queue.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using namespace std::chrono_literals;
using testing::MakePod;

// Orders exactly as PrioritySort but is not PrioritySort, so the queues take
// their generic path (a call to Less per comparison).
class WrappedPrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return "WrappedPrioritySort"; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    return inner_.Less(a, b);
  }

 private:
  plugins::queuesort::PrioritySort inner_;
};

// A wrapper that delegates the declaration too keeps the fast path.
class DeclaredPrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return "DeclaredPrioritySort"; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    return inner_.Less(a, b);
  }
  bool OrdersByPriorityThenTimestamp() const override { return inner_.OrdersByPriorityThenTimestamp(); }

 private:
  plugins::queuesort::PrioritySort inner_;
};

// Reverse order: proves the generic path really calls the plugin.
class LowestPriorityFirst final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return "LowestPriorityFirst"; }
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    return a.pod_info.priority() < b.pod_info.priority();
  }
};

framework::QueuedPodInfoPtr Info(const std::string& name, int32_t prio, util::TimePoint ts) {
  return std::make_shared<framework::QueuedPodInfo>(MakePod(name, prio), ts);
}

// The cached-field order used for PrioritySort must pop exactly what calling
// PrioritySort::Less would, through adds, priority-changing updates, deletes
// and re-adds with new timestamps.
TEST(ActiveQueueTest, PrioritySortFastPathMatchesThePlugin) {
  plugins::queuesort::PrioritySort fast_sort;
  WrappedPrioritySort slow_sort;
  CountingQueueMetrics metrics;
  ActiveQueue fast(fast_sort, false, metrics);
  ActiveQueue slow(slow_sort, false, metrics);
  ASSERT_TRUE(fast.uses_cached_order());
  ASSERT_FALSE(slow.uses_cached_order());
  std::mt19937 rng(5);
  const util::TimePoint t0{std::chrono::hours(1)};
  std::map<std::string, std::shared_ptr<api::Pod>> pods;
  for (int step = 0; step < 5000; ++step) {
    const std::string name = "p" + std::to_string(rng() % 300);
    const std::string key = "default/" + name;
    switch (rng() % 4) {
      case 0:
      case 1: {
        // Few distinct priorities and timestamps: many ties to break.
        auto info = Info(name, static_cast<int32_t>(rng() % 5), t0 + std::chrono::seconds(rng() % 4));
        fast.Add(key, info, "e");
        slow.Add(key, std::make_shared<framework::QueuedPodInfo>(*info), "e");
        break;
      }
      case 2: {
        if (!fast.Has(key)) break;
        auto pod = std::make_shared<api::Pod>((*fast.Get(key))->pod());
        pod->spec.priority = static_cast<int32_t>(rng() % 5);
        fast.Update(key, pod);
        slow.Update(key, pod);
        break;
      }
      default: {
        ASSERT_EQ(fast.empty(), slow.empty());
        if (fast.empty()) break;
        framework::QueuedPodInfoPtr a = fast.PopHead();
        framework::QueuedPodInfoPtr b = slow.PopHead();
        // Equal (priority, timestamp) pairs may come out in either order;
        // what comes out must rank the same.
        ASSERT_EQ(a->pod_info.priority(), b->pod_info.priority()) << "step " << step;
        ASSERT_EQ(a->timestamp, b->timestamp) << "step " << step;
        if (a->pod().metadata.name != b->pod().metadata.name) {
          // Put the tie partners back where the other queue has them.
          ASSERT_NE(slow.Delete(KeyOf(a->pod().metadata)), nullptr);
          ASSERT_NE(fast.Delete(KeyOf(b->pod().metadata)), nullptr);
        }
        break;
      }
    }
    ASSERT_EQ(fast.size(), slow.size());
  }
}

// The fast path follows the plugin's declaration, not its type.
TEST(ActiveQueueTest, CachedOrderFollowsTheDeclaration) {
  DeclaredPrioritySort declared;
  WrappedPrioritySort undeclared;
  LowestPriorityFirst other;
  CountingQueueMetrics metrics;
  EXPECT_TRUE(ActiveQueue(declared, false, metrics).uses_cached_order());
  EXPECT_FALSE(ActiveQueue(undeclared, false, metrics).uses_cached_order());
  EXPECT_FALSE(ActiveQueue(other, false, metrics).uses_cached_order());
}

TEST(ActiveQueueTest, OtherSortPluginsAreCalled) {
  LowestPriorityFirst sort;
  CountingQueueMetrics metrics;
  ActiveQueue q(sort, false, metrics);
  const util::TimePoint t0{std::chrono::hours(1)};
  q.Add("default/hi", Info("hi", 10, t0), "e");
  q.Add("default/lo", Info("lo", 1, t0), "e");
  q.Add("default/mid", Info("mid", 5, t0), "e");
  EXPECT_EQ(q.PopHead()->pod().metadata.name, "lo");
  // An update that changes the order is honoured.
  auto hi = std::make_shared<api::Pod>((*q.Get("default/hi"))->pod());
  hi->spec.priority = 0;
  q.Update("default/hi", hi);
  EXPECT_EQ(q.PopHead()->pod().metadata.name, "hi");
  EXPECT_EQ(q.PopHead()->pod().metadata.name, "mid");
  EXPECT_TRUE(q.empty());
}

// With ordering windows, the rejection heap breaks deadline ties by the
// activeQ order; the cached fields must give PrioritySort's answer.
TEST(ActiveQueueTest, BackoffWindowTieBreakMatchesThePlugin) {
  util::FakeClock clock;
  plugins::queuesort::PrioritySort fast_sort;
  WrappedPrioritySort slow_sort;
  CountingQueueMetrics metrics;
  BackoffQueue fast(clock, 1s, 10s, fast_sort, true, metrics);
  BackoffQueue slow(clock, 1s, 10s, slow_sort, true, metrics);
  std::mt19937 rng(9);
  for (int i = 0; i < 200; ++i) {
    const std::string name = "p" + std::to_string(i);
    // Timestamps within a few windows, priorities with ties.
    auto info = Info(name, static_cast<int32_t>(rng() % 4), clock.Now() + std::chrono::milliseconds(rng() % 3000));
    info->attempts = 1;
    info->unschedulable_plugins.Insert("fake");
    fast.Add("default/" + name, info, "e");
    auto copy = std::make_shared<framework::QueuedPodInfo>(*info);
    copy->backoff_expiration.reset();
    slow.Add("default/" + name, copy, "e");
  }
  while (fast.rejection_size() > 0) {
    auto [ka, a] = fast.PopRejectionHead();
    auto [kb, b] = slow.PopRejectionHead();
    ASSERT_EQ(*a->backoff_expiration, *b->backoff_expiration);
    ASSERT_EQ(a->pod_info.priority(), b->pod_info.priority());
    ASSERT_EQ(a->timestamp, b->timestamp);
  }
  EXPECT_EQ(slow.rejection_size(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler::queue
