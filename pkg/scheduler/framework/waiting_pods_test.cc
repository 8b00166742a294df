#include "pkg/scheduler/framework/waiting_pods.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/util/long_wait_counter.h"

namespace ksched::scheduler::framework {
namespace {

using std::chrono::seconds;

TEST(WaitingPodTest, AllowedByEveryPluginSucceeds) {
  util::FakeClock clock;
  WaitingPod wp(testing::MakePod("p").Obj(), {{"A", seconds(10)}, {"B", seconds(10)}}, clock);
  EXPECT_EQ(wp.GetPendingPlugins(), (std::vector<std::string>{"A", "B"}));
  wp.Allow("A");
  EXPECT_FALSE(wp.TryGet().has_value());
  EXPECT_EQ(wp.GetPendingPlugins(), (std::vector<std::string>{"B"}));
  std::future<Status> waiter = std::async(std::launch::async, [&] { return wp.Wait(); });
  wp.Allow("B");
  Status s = waiter.get();
  EXPECT_TRUE(s.IsSuccess()) << s.ToString();
}

// A binding pool counts a wait for a decision as a long wait; a decided
// pod does not wait.
TEST(WaitingPodTest, WaitingForADecisionIsALongWait) {
  util::FakeClock clock;
  WaitingPod wp(testing::MakePod("p").Obj(), {{"A", seconds(10)}}, clock);
  std::atomic<util::LongWaitCounter*> waiting_thread{nullptr};
  std::future<Status> waiter = std::async(std::launch::async, [&] {
    util::LongWaitCounter counter;
    waiting_thread = &counter;
    Status s = wp.Wait();
    EXPECT_EQ(counter.left.load(), 1);
    EXPECT_TRUE(wp.Wait().IsSuccess());  // decided: returns without waiting
    EXPECT_EQ(counter.entered.load(), 1);
    return s;
  });
  // The waiter's counter lives until the decision below ends its wait.
  while (waiting_thread.load() == nullptr || waiting_thread.load()->entered.load() != 1) std::this_thread::yield();
  wp.Allow("A");
  EXPECT_TRUE(waiter.get().IsSuccess());
}

TEST(WaitingPodTest, RejectFromAnotherThreadWins) {
  util::FakeClock clock;
  WaitingPod wp(testing::MakePod("p").Obj(), {{"A", seconds(10)}}, clock);
  std::future<Status> waiter = std::async(std::launch::async, [&] { return wp.Wait(); });
  std::thread([&] { wp.Reject("A", "not today"); }).join();
  Status s = waiter.get();
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "not today");
  EXPECT_EQ(s.plugin(), "A");
  // The first decision sticks.
  wp.Allow("A");
  EXPECT_EQ(wp.TryGet()->code(), Code::kUnschedulable);
}

TEST(WaitingPodTest, TimesOutOnTheClock) {
  util::FakeClock clock;
  WaitingPod wp(testing::MakePod("p").Obj(), {{"Slow", seconds(30)}, {"Fast", seconds(10)}}, clock);
  std::future<Status> waiter = std::async(std::launch::async, [&] { return wp.Wait(); });
  clock.Step(seconds(9));
  EXPECT_FALSE(wp.TryGet().has_value());
  clock.Step(seconds(2));
  Status s = waiter.get();
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "rejected due to timeout after waiting 10s at plugin Fast");
  EXPECT_EQ(s.plugin(), "Fast");
  // An Allow after the deadline does not resurrect the pod.
  wp.Allow("Fast");
  wp.Allow("Slow");
  EXPECT_EQ(wp.TryGet()->code(), Code::kUnschedulable);
}

TEST(WaitingPodTest, DeadlinePassedBeforeAllowIsATimeout) {
  util::FakeClock clock;
  WaitingPod wp(testing::MakePod("p").Obj(), {{"A", seconds(1)}}, clock);
  clock.Step(seconds(2));
  wp.Allow("A");
  Status s = wp.Wait();
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "A");
}

TEST(WaitingPodsMapTest, AddGetRemoveIterate) {
  util::FakeClock clock;
  WaitingPodsMap m;
  auto p1 = testing::MakePod("p1").UID("u1").Obj();
  auto p2 = testing::MakePod("p2").UID("u2").Obj();
  m.Add(std::make_shared<WaitingPod>(p1, std::map<std::string, util::Duration>{{"A", seconds(1)}}, clock));
  m.Add(std::make_shared<WaitingPod>(p2, std::map<std::string, util::Duration>{{"A", seconds(1)}}, clock));
  EXPECT_EQ(m.size(), 2u);
  ASSERT_NE(m.Get("u1"), nullptr);
  EXPECT_EQ(m.Get("u1")->pod()->metadata.name, "p1");
  EXPECT_EQ(m.Get("nope"), nullptr);
  std::vector<std::string> seen;
  // Iterate works on a copy, so the callback may modify the map.
  m.Iterate([&](WaitingPod& wp) {
    seen.push_back(wp.pod()->metadata.name);
    m.Remove(wp.pod()->metadata.uid);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(m.size(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler::framework
