#include "pkg/util/writes_gate.h"

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

using std::chrono::seconds;

TEST(WritesGateTest, UnboundedIsOpenUntilClosed) {
  WritesGate gate;
  EXPECT_TRUE(gate.IsOpen());
  EXPECT_FALSE(gate.StopToken().stop_requested());
  gate.Close();
  EXPECT_FALSE(gate.IsOpen());
  EXPECT_TRUE(gate.StopToken().stop_requested());
}

// A leader paused past its tenure wakes to a closed gate, though nothing
// closed it: the deadline is the clock's, checked by every write.
TEST(WritesGateTest, BoundedIsOpenOnlyBeforeTheRenewalDeadline) {
  FakeClock clock;
  WritesGate gate;
  gate.BoundBy(clock);
  EXPECT_FALSE(gate.IsOpen());  // not leading yet
  gate.ExtendUntil(clock.Now() + seconds(3));
  EXPECT_TRUE(gate.IsOpen());
  clock.Step(seconds(2));
  EXPECT_TRUE(gate.IsOpen());
  clock.Step(seconds(1));
  EXPECT_FALSE(gate.IsOpen());  // at the deadline: the Lease may be gone
  EXPECT_FALSE(gate.StopToken().stop_requested());
  gate.ExtendUntil(clock.Now() + seconds(3));  // a renewal
  EXPECT_TRUE(gate.IsOpen());
}

TEST(WritesGateTest, ExtendNeverShortensAndCloseIsFinal) {
  FakeClock clock;
  WritesGate gate;
  gate.BoundBy(clock);
  gate.ExtendUntil(clock.Now() + seconds(5));
  gate.ExtendUntil(clock.Now() + seconds(1));  // late report of an older renewal
  clock.Step(seconds(4));
  EXPECT_TRUE(gate.IsOpen());
  gate.Close();
  EXPECT_FALSE(gate.IsOpen());
  gate.ExtendUntil(clock.Now() + seconds(10));
  EXPECT_FALSE(gate.IsOpen());
}

}  // namespace
}  // namespace ksched::util
