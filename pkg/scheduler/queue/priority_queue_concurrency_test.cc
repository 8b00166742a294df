// Concurrency test (run under the tsan build): several producers add,
// update, delete and send events while one consumer blocks in Pop, fails
// pods a few times and then completes them, and the background flusher runs.
// Every pod that was added and not deleted must be scheduled exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "pkg/scheduler/plugins/queuesort/priority_sort.h"
#include "pkg/scheduler/plugins/schedulinggates/scheduling_gates.h"
#include "pkg/scheduler/queue/priority_queue.h"
#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventObject;
using framework::QueueingHint;
using testing::FakePlugin;
using testing::kProfile;
using namespace std::chrono_literals;

struct ConcurrencyParam {
  bool hints;
  bool pop_backoff;
};

class PriorityQueueConcurrencyTest : public ::testing::TestWithParam<ConcurrencyParam> {};

TEST_P(PriorityQueueConcurrencyTest, ProducersAndBlockingConsumer) {
  const ConcurrencyParam param = GetParam();
  constexpr int kProducers = 4;
  constexpr int kPodsPerProducer = 150;
  util::FakeClock clock;
  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = param.hints;
  gates.scheduler_pop_from_backoff_q = param.pop_backoff;
  plugins::queuesort::PrioritySort sort;
  auto scheduling_gates = plugins::schedulinggates::New(gates);
  FakePlugin fit("Fit", {{ClusterEvent(framework::resource::kNode, ActionType::kAdd),
                          testing::AlwaysHint(QueueingHint::kQueue)}});
  auto map = BuildQueueingHintMap({scheduling_gates.get(), &fit}, gates);
  ASSERT_TRUE(map.ok());
  CountingQueueMetrics metrics;
  PriorityQueueOptions opts;
  opts.clock = &clock;
  opts.features = gates;
  opts.metrics = &metrics;
  opts.queueing_hint_map.emplace(kProfile, *map);
  opts.pre_enqueue_plugins[kProfile] = {scheduling_gates.get()};
  PriorityQueue q(sort, std::move(opts));
  q.Run();

  std::mutex mu;
  std::set<std::string> expected;  // added and never deleted
  std::set<std::string> scheduled;
  std::condition_variable done_cv;
  std::atomic<bool> producers_done{false};
  std::atomic<bool> consumer_done{false};

  std::thread consumer([&] {
    std::mt19937 rng(7);
    for (;;) {
      framework::QueuedPodInfoPtr info = q.Pop();
      if (info == nullptr) return;  // closed
      const std::string name = info->pod().metadata.name;
      if (info->attempts < 3 && rng() % 2 == 0) {
        info->unschedulable_plugins.Insert(rng() % 3 == 0 ? "Silent" : "Fit");
        util::Status s = q.AddUnschedulableIfNotPresent(info, q.SchedulingCycle());
        (void)s;  // with hints off an update may have requeued it already
        continue;
      }
      q.Done(info->pod().metadata.uid);
      q.Delete(info->pod());  // bound: it leaves the pending set
      std::lock_guard<std::mutex> l(mu);
      scheduled.insert(name);
      if (producers_done && scheduled.size() >= expected.size()) {
        bool all = true;
        for (const std::string& n : expected) all = all && scheduled.count(n);
        if (all) {
          consumer_done = true;
          done_cv.notify_all();
          return;
        }
      }
    }
  });

  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      std::mt19937 rng(100 + p);
      for (int i = 0; i < kPodsPerProducer; ++i) {
        auto pod = testing::MakePod("p" + std::to_string(p) + "-" + std::to_string(i), static_cast<int32_t>(rng() % 50));
        {
          std::lock_guard<std::mutex> l(mu);
          expected.insert(pod->metadata.name);
        }
        q.Add(pod);
        if (rng() % 4 == 0) q.Update(pod, testing::WithLabel(*pod, "v", std::to_string(i)));
        if (rng() % 10 == 0) {
          {
            std::lock_guard<std::mutex> l(mu);
            // Deleting a pod that was already scheduled is harmless; it only
            // stops being expected if it has not been scheduled yet.
            if (!scheduled.count(pod->metadata.name)) expected.erase(pod->metadata.name);
          }
          q.Delete(*pod);
        }
        if (rng() % 5 == 0) {
          q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kNode, ActionType::kAdd), EventObject(),
                                          EventObject(std::make_shared<const api::Node>()));
        }
        if (rng() % 20 == 0) q.Activate({pod});
        (void)q.PendingPods();
      }
    });
  }
  // Time keeper: moves the clock so backoffs and leftovers complete.
  std::thread ticker([&] {
    while (!consumer_done) {
      clock.Step(500ms);
      q.MoveAllToActiveOrBackoffQueue(ClusterEvent(framework::resource::kNode, ActionType::kAdd), EventObject(),
                                      EventObject(std::make_shared<const api::Node>()));
      if (producers_done) {
        clock.Step(6min);
        q.FlushUnschedulablePodsLeftover();
      }
      q.FlushBackoffQCompleted();
      // Pace the ticker; correctness never depends on this delay.
      std::this_thread::sleep_for(200us);
    }
  });
  for (auto& t : producers) t.join();
  producers_done = true;
  // Wake the consumer in case everything was already scheduled while the
  // producers were still running.
  q.MoveAllToActiveOrBackoffQueue(framework::kEventUnschedulableTimeout, EventObject(), EventObject());
  {
    std::unique_lock<std::mutex> l(mu);
    bool all = true;
    for (const std::string& n : expected) all = all && scheduled.count(n);
    if (all) consumer_done = true;
    done_cv.wait(l, [&] { return consumer_done.load(); });
  }
  q.Close();
  consumer.join();
  ticker.join();
  std::lock_guard<std::mutex> l(mu);
  for (const std::string& n : expected) EXPECT_TRUE(scheduled.count(n)) << n;
  EXPECT_TRUE(q.InFlightPods().empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, PriorityQueueConcurrencyTest,
                         ::testing::Values(ConcurrencyParam{true, true}, ConcurrencyParam{true, false},
                                           ConcurrencyParam{false, true}, ConcurrencyParam{false, false}),
                         [](const ::testing::TestParamInfo<ConcurrencyParam>& info) {
                           return std::string(info.param.hints ? "Hints" : "NoHints") +
                                  (info.param.pop_backoff ? "PopFromBackoffQ" : "");
                         });

}  // namespace
}  // namespace ksched::scheduler::queue
