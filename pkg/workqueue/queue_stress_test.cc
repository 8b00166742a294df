// Concurrency stress for the work queues: many producers and consumers on a
// small key space. Checked invariants:
//  * no key is ever processed by two workers at once;
//  * none lost: every Add is followed by a processing that started after it
//    (the consumer observes the key's version at processing start, and at the
//    end every key's observed version equals its final version);
//  * no spurious work: a key is processed at most as often as it was added.
// Sized to take well under a few seconds, also under ThreadSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "pkg/workqueue/delaying_queue.h"
#include "pkg/workqueue/queue.h"

namespace ksched::workqueue {
namespace {

constexpr int kKeys = 64;

struct KeyState {
  std::atomic<int> version{0};  // bumped by a producer before each Add
  std::atomic<int> adds{0};
  std::atomic<bool> in_flight{false};
  std::atomic<int> processed{0};
  std::atomic<int> seen_version{0};  // highest version a processing started after
};

struct Tracker {
  KeyState keys[kKeys];
  std::atomic<int> overlaps{0};
  std::mutex mu;
  std::condition_variable cv;

  void Produce(int key) {
    keys[key].version.fetch_add(1);
    keys[key].adds.fetch_add(1);
  }

  void Process(int key) {
    KeyState& k = keys[key];
    if (k.in_flight.exchange(true)) overlaps++;
    // Widen the processing window so a second worker handed the same key
    // would be caught overlapping.
    for (int i = 0; i < 3; ++i) std::this_thread::yield();
    int v = k.version.load();
    int prev = k.seen_version.load();
    while (prev < v && !k.seen_version.compare_exchange_weak(prev, v)) {
    }
    k.processed.fetch_add(1);
    k.in_flight.store(false);
    std::lock_guard<std::mutex> l(mu);
    cv.notify_all();
  }

  bool AllSeen() {
    for (auto& k : keys) {
      if (k.seen_version.load() != k.version.load()) return false;
    }
    return true;
  }

  void Check() {
    EXPECT_EQ(overlaps.load(), 0);
    for (int i = 0; i < kKeys; ++i) {
      EXPECT_EQ(keys[i].seen_version.load(), keys[i].version.load()) << "key " << i << " lost";
      EXPECT_LE(keys[i].processed.load(), keys[i].adds.load()) << "key " << i;
      EXPECT_GE(keys[i].processed.load(), keys[i].adds.load() > 0 ? 1 : 0) << "key " << i;
    }
  }
};

TEST(QueueStressTest, ProducersAndConsumersNeverOverlapOrLoseWork) {
  constexpr int kProducers = 4;
  constexpr int kConsumers = 4;
  constexpr int kAddsPerProducer = 20000;
  util::FakeClock clock;
  Queue<int> q(clock);
  Tracker tracker;

  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      while (auto key = q.Get()) {
        tracker.Process(*key);
        q.Done(*key);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAddsPerProducer; ++i) {
        int key = (i * 7 + p * 13) % kKeys;
        tracker.Produce(key);
        q.Add(key);
      }
    });
  }
  for (auto& t : producers) t.join();
  // Every add happened before the shutdown, so the drain must process it.
  q.ShutDownWithDrain();
  for (auto& t : consumers) t.join();
  tracker.Check();
  EXPECT_EQ(q.Len(), 0u);
}

TEST(QueueStressTest, DelayedAddsFromManyThreadsAllArrive) {
  constexpr int kProducers = 4;
  constexpr int kConsumers = 4;
  constexpr int kAddsPerProducer = 5000;
  util::RealClock& clock = util::RealClock::Get();
  DelayingQueue<int> q(clock);
  Tracker tracker;

  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      while (auto key = q.Get()) {
        tracker.Process(*key);
        q.Done(*key);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAddsPerProducer; ++i) {
        int key = (i * 5 + p * 11) % kKeys;
        tracker.Produce(key);
        // Delays of 0..300 us: some immediate, most through the heap.
        q.AddAfter(key, std::chrono::microseconds((i * 37 + p) % 301));
      }
    });
  }
  for (auto& t : producers) t.join();
  {
    // Delayed items are dropped at shutdown, so wait until every one of them
    // has been processed; a lost item fails here instead of hanging.
    std::unique_lock<std::mutex> l(tracker.mu);
    ASSERT_TRUE(
        tracker.cv.wait_for(l, std::chrono::seconds(60), [&] { return tracker.AllSeen(); }));
  }
  q.ShutDownWithDrain();
  for (auto& t : consumers) t.join();
  tracker.Check();
}

}  // namespace
}  // namespace ksched::workqueue
