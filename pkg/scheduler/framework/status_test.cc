#include "pkg/scheduler/framework/status.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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

TEST(StatusTest, CopiesShareTheirTextUntilOneChanges) {
  const Status original = Status(Code::kUnschedulable, "node(s) didn't match").WithPlugin("InterPodAffinity");
  Status copy = original;
  EXPECT_EQ(&copy.reasons(), &original.reasons());  // one text for both
  copy.WithPlugin("InterPodAffinity");              // already so: still shared
  EXPECT_EQ(&copy.reasons(), &original.reasons());
  copy.AppendReason("another");
  EXPECT_NE(&copy.reasons(), &original.reasons());
  EXPECT_EQ(original.reasons(), std::vector<std::string>{"node(s) didn't match"});
  EXPECT_EQ(copy.reasons(), (std::vector<std::string>{"node(s) didn't match", "another"}));
  EXPECT_EQ(copy.plugin(), "InterPodAffinity");

  Status renamed = original;
  renamed.WithPlugin("NodeAffinity");
  EXPECT_EQ(original.plugin(), "InterPodAffinity");
  EXPECT_EQ(renamed.plugin(), "NodeAffinity");

  // A status that holds its text alone changes it in place.
  Status alone(Code::kUnschedulable, "x");
  const std::vector<std::string>* before = &alone.reasons();
  alone.AppendReason("y");
  EXPECT_EQ(&alone.reasons(), before);
}

TEST(StatusTest, ThreadsChangeTheirCopiesOfOneStatusIndependently) {
  const Status shared = Status(Code::kUnschedulable, "rejected").WithPlugin("P");
  std::vector<std::thread> threads;
  std::vector<Status> results(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Status s = shared;
        s.WithPlugin(i % 2 == 0 ? "P" : "Q" + std::to_string(t));
        s.AppendReason(std::to_string(t));
        results[t] = std::move(s);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(results[t].reasons(), (std::vector<std::string>{"rejected", std::to_string(t)}));
    EXPECT_EQ(results[t].plugin(), "Q" + std::to_string(t));
  }
  EXPECT_EQ(shared.reasons(), std::vector<std::string>{"rejected"});
  EXPECT_EQ(shared.plugin(), "P");
}

}  // namespace
}  // namespace ksched::scheduler::framework
