#include "pkg/util/parallelizer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ksched::util {
namespace {

TEST(ChunkSizeTest, MatchesKubeSchedulerFormula) {
  EXPECT_EQ(ChunkSizeFor(0, 16), 1);
  EXPECT_EQ(ChunkSizeFor(1, 16), 1);
  EXPECT_EQ(ChunkSizeFor(100, 16), 7);    // min(10, 100/16+1=7)
  EXPECT_EQ(ChunkSizeFor(5000, 16), 70);  // min(70, 313)
  EXPECT_EQ(ChunkSizeFor(10, 1), 3);      // min(3, 11)
}

TEST(ParallelizerTest, RunsEveryPieceExactlyOnce) {
  for (std::chrono::nanoseconds help_after : {std::chrono::nanoseconds(0), Parallelizer::kDefaultHelpAfter}) {
    for (int parallelism : {1, 2, 4, 16}) {
      Parallelizer p(parallelism, help_after);
      for (int n : {0, 1, 2, 7, 100, 5000}) {
        std::vector<std::atomic<int>> hits(n);
        p.ParallelFor(n, [&](int i) { hits[i].fetch_add(1); });
        for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "p=" << parallelism << " n=" << n;
      }
    }
  }
}

TEST(ParallelizerTest, CancelStopsHandingOutPieces) {
  Parallelizer p(4, std::chrono::nanoseconds(0));
  CancelFlag cancel;
  std::atomic<int> ran{0};
  p.ParallelFor(
      100000,
      [&](int) {
        if (ran.fetch_add(1) + 1 >= 10) cancel.Cancel();
      },
      &cancel, /*chunk_size=*/1);
  // Each of the 4 threads may finish the piece it already started.
  EXPECT_GE(ran.load(), 10);
  EXPECT_LE(ran.load(), 10 + 4);
}

TEST(ParallelizerTest, NestedCallsRunInline) {
  Parallelizer p(3, std::chrono::nanoseconds(0));
  std::atomic<int> total{0};
  p.ParallelFor(8, [&](int) { p.ParallelFor(8, [&](int) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ParallelizerTest, ConcurrentCallersAreSerializedNotLost) {
  Parallelizer p(2, std::chrono::nanoseconds(0));
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int r = 0; r < 50; ++r) p.ParallelFor(64, [&](int) { total.fetch_add(1); });
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 64);
}

// Workers are woken for each loop that asks for help; the hand-off (and the
// caller's spin-then-sleep wait for the workers' last chunks) must lose no
// piece, whether the loop asks at once or after its alone phase.
TEST(ParallelizerTest, HandOffsRunEveryPiece) {
  for (std::chrono::nanoseconds help_after : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(1)}) {
    Parallelizer p(3, help_after);
    for (int round = 0; round < 300; ++round) {
      const int n = 1 + round % 97;
      std::vector<std::atomic<int>> hits(n);
      p.ParallelFor(n, [&](int i) { hits[i].fetch_add(1); }, nullptr, /*chunk_size=*/1 + round % 3);
      for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "help_after=" << help_after.count() << " round=" << round;
    }
  }
}

// Which threads ran a loop's pieces.
class ThreadSet {
 public:
  void Add() {
    std::lock_guard<std::mutex> l(mu_);
    ids_.insert(std::this_thread::get_id());
  }
  std::set<std::thread::id> Get() {
    std::lock_guard<std::mutex> l(mu_);
    return ids_;
  }

 private:
  std::mutex mu_;
  std::set<std::thread::id> ids_;
};

TEST(ParallelizerTest, ALoopThatEndsBeforeHelpAfterRunsOnTheCallerAlone) {
  Parallelizer p(4, std::chrono::hours(1));
  for (int round = 0; round < 20; ++round) {
    ThreadSet threads;
    p.ParallelFor(5000, [&](int) { threads.Add(); });
    EXPECT_EQ(threads.Get(), std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST(ParallelizerTest, TheCallerFinishesAloneWhenLessIsLeftThanItRan) {
  // Past help_after after its first chunk (2 of 3 pieces), the caller has
  // less left than it ran.
  Parallelizer p(4, std::chrono::nanoseconds(1));
  for (int round = 0; round < 20; ++round) {
    ThreadSet threads;
    p.ParallelFor(3, [&](int) { threads.Add(); }, nullptr, /*chunk_size=*/2);
    EXPECT_EQ(threads.Get(), std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST(ParallelizerTest, ALongLoopGetsHelp) {
  // Past help_after after its first piece with 98 left, the caller asks for
  // help; every later piece waits until a worker has run one, so the loop
  // ends only if help came.
  Parallelizer p(2, std::chrono::nanoseconds(1));
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mu;
  std::condition_variable cv;
  bool helped = false;
  p.ParallelFor(
      99,
      [&](int i) {
        std::unique_lock<std::mutex> l(mu);
        if (std::this_thread::get_id() != caller) {
          helped = true;
          cv.notify_all();
        } else if (i > 0) {
          cv.wait(l, [&] { return helped; });
        }
      },
      nullptr, /*chunk_size=*/1);
  EXPECT_TRUE(helped);
}

TEST(ParallelizerTest, DestroysWithWorkersAsleepOrJustWoken) {
  for (std::chrono::nanoseconds help_after : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(std::chrono::hours(1))}) {
    Parallelizer p(4, help_after);
    std::atomic<int> total{0};
    p.ParallelFor(16, [&](int) { total.fetch_add(1); });
    EXPECT_EQ(total.load(), 16);
  }  // the destructor must return although workers may still be leaving the loop
}

}  // namespace
}  // namespace ksched::util
