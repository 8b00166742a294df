#include "pkg/util/parallelizer.h"

#include <gtest/gtest.h>

#include <ctime>

#include <atomic>
#include <chrono>
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
  for (int parallelism : {1, 2, 4, 16}) {
    Parallelizer p(parallelism);
    for (int n : {0, 1, 2, 7, 100, 5000}) {
      std::vector<std::atomic<int>> hits(n);
      p.ParallelFor(n, [&](int i) { hits[i].fetch_add(1); });
      for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "p=" << parallelism << " n=" << n;
    }
  }
}

TEST(ParallelizerTest, CancelStopsHandingOutPieces) {
  Parallelizer p(4);
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
  Parallelizer p(3);
  std::atomic<int> total{0};
  p.ParallelFor(8, [&](int) { p.ParallelFor(8, [&](int) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ParallelizerTest, ConcurrentCallersAreSerializedNotLost) {
  Parallelizer p(2);
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

// Workers either catch each loop while spinning or sleep and are woken; both
// hand-offs (and the caller's spin-then-sleep wait) must lose no piece.
TEST(ParallelizerTest, SpinningAndSleepingHandOffsRunEveryPiece) {
  for (std::chrono::nanoseconds spin : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(std::chrono::milliseconds(50))}) {
    Parallelizer p(3, spin);
    for (int round = 0; round < 200; ++round) {
      const int n = 1 + round % 97;
      std::vector<std::atomic<int>> hits(n);
      auto work = [&](int i) { hits[i].fetch_add(1); };
      if (round % 3 == 0) {
        Parallelizer::Burst(p).LastParallelFor(n, work, nullptr, /*chunk_size=*/1);
      } else {
        p.ParallelFor(n, work, nullptr, /*chunk_size=*/1);
      }
      for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "spin=" << spin.count() << " round=" << round;
      // Every few rounds let the spin window lapse so workers go to sleep.
      if (spin.count() == 0 && round % 10 == 0) std::this_thread::yield();
    }
  }
}

// Process CPU time, which a spinning worker consumes and a sleeping one
// does not.
std::chrono::nanoseconds ProcessCpuTime() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

TEST(ParallelizerTest, WorkersSleepAtOnceAfterABurstsLastLoop) {
  // With a 10 s spin window, workers that spun after a burst's last loop would
  // burn about 2 x 200 ms of CPU while the test sleeps 200 ms. (A loaded
  // machine can only make spinning workers burn less, never sleeping ones
  // more, so the check cannot fail spuriously.)
  Parallelizer p(3, std::chrono::seconds(10));
  std::atomic<int> total{0};
  for (int i = 0; i < 5; ++i) {
    Parallelizer::Burst(p).LastParallelFor(64, [&](int) { total.fetch_add(1); }, nullptr, 1);
  }
  const auto before = ProcessCpuTime();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(ProcessCpuTime() - before, std::chrono::milliseconds(100));
  EXPECT_EQ(total.load(), 5 * 64);
  // They still wake for the next loop, even one issued without a burst.
  p.ParallelFor(64, [&](int) { total.fetch_add(1); }, nullptr, 1);
  EXPECT_EQ(total.load(), 6 * 64);
}

TEST(ParallelizerTest, WokenWorkersJoinTheNextLoopOrSleepAgain) {
  Parallelizer p(3, std::chrono::microseconds(200));
  std::atomic<int> total{0};
  for (int round = 0; round < 100; ++round) {
    Parallelizer::Burst burst(p);
    // Sometimes the loop comes while they spin, sometimes after they slept
    // again.
    if (round % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    burst.LastParallelFor(32, [&](int) { total.fetch_add(1); }, nullptr, 1);
  }
  EXPECT_EQ(total.load(), 100 * 32);
  // A burst with no loop: back to sleep, not spinning (see above).
  { Parallelizer::Burst idle(p); }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto before = ProcessCpuTime();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(ProcessCpuTime() - before, std::chrono::milliseconds(100));
  Parallelizer single(1);
  Parallelizer::Burst none(single);  // no workers: nothing to wake
}

TEST(ParallelizerTest, DestroysWhileWorkersSpinOrSleep) {
  for (int spin_us : {0, 1000000}) {
    Parallelizer p(4, std::chrono::microseconds(spin_us));
    std::atomic<int> total{0};
    p.ParallelFor(16, [&](int) { total.fetch_add(1); });
    EXPECT_EQ(total.load(), 16);
    Parallelizer::Burst wake(p);
  }  // the destructor must return although workers may still be spinning
}

}  // namespace
}  // namespace ksched::util
