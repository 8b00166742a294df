#include "pkg/util/parker.h"

#include <gtest/gtest.h>

#include <thread>

namespace ksched::util {
namespace {

TEST(ParkerTest, AnUnparkBeforeParkIsRememberedOnce) {
  Parker p;
  p.Unpark();
  p.Unpark();
  p.Park();  // returns at once: the unparks count as one
  bool woken = false;
  std::thread waker([&] {
    woken = true;
    p.Unpark();
  });
  p.Park();  // needs the waker's unpark
  waker.join();
  EXPECT_TRUE(woken);
}

// Two threads take turns, each writing what the other reads after its Park:
// every hand-off wakes the right thread and publishes the write.
TEST(ParkerTest, HandsOffBackAndForthWithWritesVisible) {
  constexpr int kRounds = 5000;
  Parker ping, pong;
  int value = 0;
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) {
      ping.Park();
      value += 1;
      pong.Unpark();
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    ASSERT_EQ(value, i);
    ping.Unpark();
    pong.Park();
  }
  other.join();
  EXPECT_EQ(value, kRounds);
}

}  // namespace
}  // namespace ksched::util
