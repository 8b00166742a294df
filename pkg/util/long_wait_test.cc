#include "pkg/util/long_wait.h"

#include <gtest/gtest.h>

#include <thread>

#include "pkg/util/long_wait_counter.h"

namespace ksched::util {
namespace {

TEST(LongWaitTest, NestedScopesAreOneWaitOfTheObservedThread) {
  LongWaitCounter counter;
  {
    ScopedLongWait outer;
    EXPECT_EQ(counter.entered.load(), 1);
    {
      ScopedLongWait inner;
      EXPECT_EQ(counter.entered.load(), 1);
    }
    EXPECT_EQ(counter.left.load(), 0);
  }
  EXPECT_EQ(counter.left.load(), 1);

  // Another thread's waits are not this observer's.
  std::thread([] { ScopedLongWait elsewhere; }).join();
  EXPECT_EQ(counter.entered.load(), 1);
  {
    ScopedLongWait again;
  }
  EXPECT_EQ(counter.entered.load(), 2);
  EXPECT_EQ(counter.left.load(), 2);
}

}  // namespace
}  // namespace ksched::util
