#include "pkg/log/vmodule.h"

#include <gtest/gtest.h>

namespace ksched::log {
namespace {

TEST(VModuleTest, MatchesBaseNameOrPath) {
  auto m = VModule::Parse("schedule_one=4,queue/*=3,*_test=1");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->LevelFor("/src/pkg/scheduler/schedule_one.cc"), 4);
  EXPECT_EQ(m->LevelFor("/src/pkg/scheduler/queue/priority_queue.cc"), 3);
  EXPECT_EQ(m->LevelFor("/src/pkg/log/log_test.cc"), 1);
  EXPECT_EQ(m->LevelFor("/src/pkg/scheduler/scheduler.cc"), -1);
  // The first matching rule wins.
  auto first = VModule::Parse("sched*=2,scheduler=5");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->LevelFor("pkg/scheduler/scheduler.cc"), 2);
}

TEST(VModuleTest, RejectsMalformedEntries) {
  for (const char* bad : {"schedule_one", "=3", "x=-1", "x=", "x=two"}) {
    auto m = VModule::Parse(bad);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_NE(m.status().message().find("--vmodule"), std::string::npos);
  }
  EXPECT_TRUE(VModule::Parse("").ok());
  EXPECT_TRUE(VModule::Parse("").value().empty());
}

}  // namespace
}  // namespace ksched::log
