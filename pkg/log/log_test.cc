#include "pkg/log/log.h"

#include <gtest/gtest.h>

namespace ksched::log {
namespace {

TEST(LogTest, VerbosityGatesVLevels) {
  SetVerbosity(2);
  EXPECT_TRUE(V(0));
  EXPECT_TRUE(V(2));
  EXPECT_FALSE(V(3));
  SetVerbosity(-5);
  EXPECT_EQ(Verbosity(), 0);
  EXPECT_FALSE(V(1));
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
  KLOG_V(1, "not printed {}", count());
  EXPECT_EQ(evaluated, 0) << "arguments of a disabled KLOG_V must not be evaluated";
}

}  // namespace
}  // namespace ksched::log
