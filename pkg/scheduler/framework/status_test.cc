#include "pkg/scheduler/framework/status.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(StatusTest, DefaultIsSuccess) {
  Status s;
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_FALSE(s.IsRejected());
  EXPECT_EQ(s.ToString(), "Success");
  EXPECT_EQ(s.Message(), "");
}

TEST(StatusTest, CodeNamesMatchKube) {
  EXPECT_STREQ(CodeName(Code::kSuccess), "Success");
  EXPECT_STREQ(CodeName(Code::kError), "Error");
  EXPECT_STREQ(CodeName(Code::kUnschedulable), "Unschedulable");
  EXPECT_STREQ(CodeName(Code::kUnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
  EXPECT_STREQ(CodeName(Code::kWait), "Wait");
  EXPECT_STREQ(CodeName(Code::kSkip), "Skip");
  EXPECT_STREQ(CodeName(Code::kPending), "Pending");
  EXPECT_EQ(static_cast<int>(Code::kPending), 6);
}

TEST(StatusTest, RejectedCodes) {
  EXPECT_TRUE(Status(Code::kUnschedulable).IsRejected());
  EXPECT_TRUE(Status(Code::kUnschedulableAndUnresolvable).IsRejected());
  EXPECT_TRUE(Status(Code::kPending).IsRejected());
  EXPECT_FALSE(Status(Code::kError).IsRejected());
  EXPECT_FALSE(Status(Code::kWait).IsRejected());
  EXPECT_TRUE(Status(Code::kWait).IsWait());
  EXPECT_TRUE(Status(Code::kSkip).IsSkip());
}

TEST(StatusTest, MessageJoinsReasons) {
  Status s(Code::kUnschedulable, std::vector<std::string>{"Insufficient cpu", "Insufficient memory"});
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory");
  EXPECT_EQ(s.ToString(), "Unschedulable: Insufficient cpu, Insufficient memory");
  s.AppendReason("too many pods");
  EXPECT_EQ(s.reasons().size(), 3u);
}

TEST(StatusTest, ErrorWrapsUtilStatus) {
  Status s = Status::FromError(util::Status(util::StatusCode::kUnavailable, "connection refused"));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "connection refused");
  EXPECT_EQ(s.error().code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(Status::Error("boom").Message(), "boom");
}

TEST(StatusTest, PluginAttributionAndEquality) {
  Status a(Code::kUnschedulable, "x");
  a.WithPlugin("NodeResourcesFit");
  EXPECT_EQ(a.plugin(), "NodeResourcesFit");
  Status b(Code::kUnschedulable, "x");
  EXPECT_EQ(a, b);  // plugin is not part of equality
  EXPECT_FALSE(a == Status(Code::kUnschedulable, "y"));
  EXPECT_FALSE(a == Status(Code::kUnschedulableAndUnresolvable, "x"));
}

}  // namespace
}  // namespace ksched::scheduler::framework
