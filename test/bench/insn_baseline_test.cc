#include "test/bench/insn_baseline.h"

#include <gtest/gtest.h>

namespace ksched::bench {
namespace {

BaselineEntry Entry(double per_pod) {
  BaselineEntry e;
  e.workload = "SchedulingBasic/5000Nodes_10000Pods";
  e.scale = 0.1;
  e.pods = 1000;
  e.instructions_per_pod = per_pod;
  return e;
}

TEST(InsnBaselineTest, SixPercentMoreFails) {
  const Comparison c = CompareWithBaseline(Entry(100000), 106000, 5);
  EXPECT_EQ(c.verdict, Verdict::kRegressed);
  EXPECT_NEAR(c.change_percent, 6.0, 1e-9);
  // The message names the workload, both figures and the change.
  EXPECT_NE(c.message.find("SchedulingBasic/5000Nodes_10000Pods"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("106000"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("100000"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("+6.00 %"), std::string::npos) << c.message;
}

TEST(InsnBaselineTest, UpToTolerancePasses) {
  EXPECT_EQ(CompareWithBaseline(Entry(100000), 105000, 5).verdict, Verdict::kWithin);
  EXPECT_EQ(CompareWithBaseline(Entry(100000), 104999, 5).verdict, Verdict::kWithin);
  EXPECT_EQ(CompareWithBaseline(Entry(100000), 95000, 5).verdict, Verdict::kWithin);
  EXPECT_EQ(CompareWithBaseline(Entry(100000), 105001, 5).verdict, Verdict::kRegressed);
}

TEST(InsnBaselineTest, SixPercentLessPassesAndSaysSo) {
  const Comparison c = CompareWithBaseline(Entry(100000), 94000, 5);
  EXPECT_EQ(c.verdict, Verdict::kImproved);
  EXPECT_NE(c.message.find("make insn-baseline"), std::string::npos) << c.message;
}

TEST(InsnBaselineTest, NonPositiveBaselineFails) {
  EXPECT_EQ(CompareWithBaseline(Entry(0), 1, 5).verdict, Verdict::kRegressed);
}

TEST(InsnBaselineTest, ParsesAndFormatsRoundTrip) {
  const std::string text =
      "# instructions per scheduled pod\n"
      "# command: build/bench/insn_count --write\n"
      "SchedulingBasic/5000Nodes_10000Pods\t0.1\t1000\t251234\n"
      "\n"
      "Unschedulable/5kNodes/100Init/10kPods\t0.1\t1000\t198765\n";
  util::StatusOr<Baseline> b = ParseBaseline(text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->entries.size(), 2u);
  EXPECT_EQ(b->comments.size(), 2u);
  EXPECT_EQ(b->comments[1], "command: build/bench/insn_count --write");
  const BaselineEntry* e = FindEntry(*b, "Unschedulable/5kNodes/100Init/10kPods");
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->scale, 0.1);
  EXPECT_EQ(e->pods, 1000);
  EXPECT_DOUBLE_EQ(e->instructions_per_pod, 198765);
  EXPECT_EQ(FindEntry(*b, "nope"), nullptr);

  util::StatusOr<Baseline> again = ParseBaseline(FormatBaseline(*b));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FormatBaseline(*again), FormatBaseline(*b));
}

TEST(InsnBaselineTest, RejectsBrokenLines) {
  EXPECT_FALSE(ParseBaseline("SchedulingBasic/x\t0.1\t1000\n").ok());
  EXPECT_FALSE(ParseBaseline("SchedulingBasic/x\t0.1\t1000\tmany\n").ok());
  EXPECT_FALSE(ParseBaseline("SchedulingBasic/x\t0\t1000\t5\n").ok());
  EXPECT_FALSE(ParseBaseline("a\t1\t1\t5\na\t1\t1\t6\n").ok());
}

TEST(InsnBaselineTest, ReadsCallgrindTotals) {
  const std::string out =
      "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd: scheduler_perf\n"
      "events: Ir\nsummary: 123456789\n\nfn=(1) main\n16 5\ntotals: 123456790\n";
  util::StatusOr<uint64_t> n = ParseCallgrindTotal(out);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 123456790u);
  util::StatusOr<uint64_t> only_summary = ParseCallgrindTotal("events: Ir\nsummary: 77\n");
  ASSERT_TRUE(only_summary.ok());
  EXPECT_EQ(*only_summary, 77u);
  EXPECT_FALSE(ParseCallgrindTotal("events: Ir\n").ok());
  EXPECT_FALSE(ParseCallgrindTotal("totals: lots\n").ok());
}

}  // namespace
}  // namespace ksched::bench
