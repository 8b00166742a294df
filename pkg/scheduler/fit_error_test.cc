#include "pkg/scheduler/fit_error.h"

#include <gtest/gtest.h>

namespace ksched::scheduler {
namespace {

using framework::Code;
using framework::Status;

Status Rejected(Code c, std::vector<std::string> reasons, const char* plugin) {
  Status s(c, std::move(reasons));
  s.WithPlugin(plugin);
  return s;
}

TEST(FitErrorTest, HistogramIsSortedAsStrings) {
  FitError fe;
  fe.num_all_nodes = 5;
  for (const char* n : {"n1", "n2", "n3"}) {
    fe.diagnosis.node_to_status.Set(n, Rejected(Code::kUnschedulable, {"Insufficient cpu"}, "NodeResourcesFit"));
  }
  for (const char* n : {"n4", "n5"}) {
    fe.diagnosis.node_to_status.Set(
        n, Rejected(Code::kUnschedulableAndUnresolvable, {"node(s) had untolerated taint(s)"}, "TaintToleration"));
  }
  EXPECT_EQ(fe.Message(), "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu.");
}

TEST(FitErrorTest, CountsSortAsTextNotNumbers) {
  FitError fe;
  fe.num_all_nodes = 12;
  for (int i = 0; i < 10; ++i) fe.diagnosis.node_to_status.Set("a" + std::to_string(i), Status(Code::kUnschedulable, "x"));
  for (int i = 0; i < 2; ++i) fe.diagnosis.node_to_status.Set("b" + std::to_string(i), Status(Code::kUnschedulable, "y"));
  EXPECT_EQ(fe.Message(), "0/12 nodes are available: 10 x, 2 y.");
}

TEST(FitErrorTest, EveryReasonOfANodeCounts) {
  FitError fe;
  fe.num_all_nodes = 2;
  fe.diagnosis.node_to_status.Set("n1", Status(Code::kUnschedulable, std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
  fe.diagnosis.node_to_status.Set("n2", Status(Code::kUnschedulable, "Insufficient memory"));
  EXPECT_EQ(fe.Message(), "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.");
}

TEST(FitErrorTest, AbsentNodesCountTheAbsentStatus) {
  FitError fe;
  fe.num_all_nodes = 4;
  fe.diagnosis.node_to_status.SetAbsentNodesStatus(
      Status(Code::kUnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeAffinity]"));
  fe.diagnosis.node_to_status.Set("n1", Status(Code::kUnschedulable, "Insufficient cpu"));
  EXPECT_EQ(fe.Message(),
            "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].");
}

TEST(FitErrorTest, PreFilterMessageReplacesTheHistogram) {
  FitError fe;
  fe.num_all_nodes = 3;
  fe.diagnosis.node_to_status.SetAbsentNodesStatus(Status(Code::kUnschedulable, "too many pods"));
  fe.diagnosis.pre_filter_msg = "too many pods";
  EXPECT_EQ(fe.Message(), "0/3 nodes are available: too many pods.");
}

TEST(FitErrorTest, PostFilterMessageIsAppendedAsIs) {
  FitError fe;
  fe.num_all_nodes = 1;
  fe.diagnosis.node_to_status.Set("n1", Status(Code::kUnschedulable, "Insufficient cpu"));
  fe.diagnosis.post_filter_msg =
      "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
  EXPECT_EQ(fe.Message(),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption "
            "victims found for incoming pod.");
}

TEST(FitErrorTest, NoReasonsNoHistogram) {
  FitError fe;
  fe.num_all_nodes = 0;
  EXPECT_EQ(fe.Message(), "0/0 nodes are available:");
}

TEST(DiagnosisTest, AddPluginStatusRecordsRejectorsAndPending) {
  Diagnosis d;
  d.AddPluginStatus(Rejected(Code::kUnschedulable, {"x"}, "A"));
  d.AddPluginStatus(Rejected(Code::kPending, {"y"}, "B"));
  d.AddPluginStatus(Rejected(Code::kError, {"z"}, "C"));
  d.AddPluginStatus(Status(Code::kUnschedulable, "no plugin"));
  EXPECT_EQ(d.unschedulable_plugins, (framework::PluginSet{"A", "B"}));
  EXPECT_EQ(d.pending_plugins, (framework::PluginSet{"B"}));
}

}  // namespace
}  // namespace ksched::scheduler
