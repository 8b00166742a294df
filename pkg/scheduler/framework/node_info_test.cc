#include "pkg/scheduler/framework/node_info.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::framework {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST(HostPortInfoTest, WildcardConflictsWithEveryAddress) {
  HostPortInfo ports;
  ports.Add("", "", 80);  // 0.0.0.0/TCP/80
  ports.Add("10.0.0.1", "UDP", 53);
  ports.Add("10.0.0.1", "TCP", 0);  // ignored
  EXPECT_EQ(ports.Len(), 2u);

  EXPECT_TRUE(ports.CheckConflict("127.0.0.1", "TCP", 80));   // wildcard in use
  EXPECT_TRUE(ports.CheckConflict("0.0.0.0", "TCP", 80));
  EXPECT_FALSE(ports.CheckConflict("127.0.0.1", "UDP", 80));  // other protocol
  EXPECT_TRUE(ports.CheckConflict("", "UDP", 53));             // wildcard vs specific
  EXPECT_TRUE(ports.CheckConflict("10.0.0.1", "UDP", 53));
  EXPECT_FALSE(ports.CheckConflict("10.0.0.2", "UDP", 53));
  EXPECT_FALSE(ports.CheckConflict("10.0.0.1", "TCP", 0));

  ports.Remove("0.0.0.0", "TCP", 80);
  EXPECT_FALSE(ports.CheckConflict("127.0.0.1", "TCP", 80));
  ports.Remove("10.0.0.1", "UDP", 53);
  EXPECT_EQ(ports.Len(), 0u);
  EXPECT_TRUE(ports.entries().empty());
}

TEST(NodeInfoTest, SetNodeTakesAllocatable) {
  NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
  EXPECT_EQ(ni.node_name(), "n1");
  EXPECT_EQ(ni.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(ni.node_name_view(), "n1");
  const NodeInfo copy = ni.Clone();
  int64_t g = ni.generation();
  ni.RemoveNode();
  EXPECT_EQ(ni.node(), nullptr);
  EXPECT_EQ(ni.node_name(), "");
  EXPECT_EQ(ni.node_name_view(), "");
  EXPECT_GT(ni.generation(), g);
  EXPECT_EQ(copy.node_name_view(), "n1") << "a copy shares the Node its name lives in";
  const std::string long_name(40, 'x');  // not stored inline in the string
  ni.SetNode(MakeNode(long_name).Obj());
  EXPECT_EQ(ni.node_name_view(), long_name);
  EXPECT_EQ(NodeInfo().node_name_view(), "");
}

TEST(NodeInfoTest, KeepsWhetherItsNodeHasTaintsOrIsUnschedulable) {
  NodeInfo ni(MakeNode("n1").Obj());
  EXPECT_FALSE(ni.node_has_taints());
  EXPECT_FALSE(ni.node_unschedulable());
  ni.SetNode(MakeNode("n1").Taint("k", "v", "PreferNoSchedule").Unschedulable().Obj());
  EXPECT_TRUE(ni.node_has_taints());
  EXPECT_TRUE(ni.node_unschedulable());
  const NodeInfo copy = ni.Clone();
  EXPECT_TRUE(copy.node_has_taints());
  EXPECT_TRUE(copy.node_unschedulable());
  ni.SetNode(MakeNode("n1").Obj());
  EXPECT_FALSE(ni.node_has_taints());
  EXPECT_FALSE(ni.node_unschedulable());
  ni.SetNode(MakeNode("n1").Taint("k", "v", "NoSchedule").Obj());
  ni.RemoveNode();
  EXPECT_FALSE(ni.node_has_taints()) << "a ghost has no node, so no taints";
  EXPECT_FALSE(ni.node_unschedulable());
}

TEST(NodeInfoTest, AddAndRemovePodsKeepAggregates) {
  NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "4"}}).Obj());
  auto a = MakePod("a").Node("n1").Req({{"cpu", "500m"}, {"memory", "1Gi"}}).HostPort(8080).PVC("data").Obj();
  auto b = MakePod("b").Node("n1").Req({}).RequiredPodAffinity("zone", {{"x", "y"}}, /*anti=*/true).PVC("data").Obj();
  auto c = MakePod("c").Node("n1").Req({{"example.com/gpu", "1"}}).PreferredPodAffinity(1, "zone", {{"x", "y"}}).Obj();

  int64_t g0 = ni.generation();
  ni.AddPod(a);
  int64_t g1 = ni.generation();
  EXPECT_GT(g1, g0);
  ni.AddPod(b);
  ni.AddPod(c);
  EXPECT_GT(ni.generation(), g1);

  ASSERT_EQ(ni.pods().size(), 3u);
  EXPECT_EQ(ni.requested().milli_cpu, 500);
  EXPECT_EQ(ni.requested().memory, int64_t{1} << 30);
  EXPECT_EQ(ni.requested().Scalar("example.com/gpu"), 1);
  // Containers without cpu/memory requests (a's host-port container, b's
  // and c's) count 100m and 200Mi each here.
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 500 + 3 * 100);
  EXPECT_EQ(ni.non_zero_requested().memory, (int64_t{1} << 30) + 3 * 200 * 1024 * 1024);
  EXPECT_EQ(ni.pods_with_affinity().size(), 2u);               // b and c
  EXPECT_EQ(ni.pods_with_required_anti_affinity().size(), 1u);  // b
  EXPECT_TRUE(ni.used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_EQ(ni.pvc_ref_counts().at("default/data"), 2);

  ASSERT_TRUE(ni.RemovePod(*b).ok());
  EXPECT_EQ(ni.pods().size(), 2u);
  EXPECT_EQ(ni.pods_with_affinity().size(), 1u);
  EXPECT_TRUE(ni.pods_with_required_anti_affinity().empty());
  EXPECT_EQ(ni.non_zero_requested().milli_cpu, 700);
  EXPECT_EQ(ni.pvc_ref_counts().at("default/data"), 1);

  ASSERT_TRUE(ni.RemovePod(*a).ok());
  EXPECT_FALSE(ni.used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_TRUE(ni.pvc_ref_counts().empty());
  EXPECT_EQ(ni.requested().milli_cpu, 0);

  // Removing an unknown pod changes nothing.
  int64_t g = ni.generation();
  util::Status s = ni.RemovePod(*a);
  EXPECT_EQ(s.code(), util::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "no corresponding pod default/a in pods of node n1");
  EXPECT_EQ(ni.generation(), g);

  ASSERT_TRUE(ni.RemovePod(*c).ok());
  EXPECT_TRUE(ni.requested().IsZero());
  EXPECT_TRUE(ni.non_zero_requested().IsZero());
  EXPECT_TRUE(ni.pods_with_affinity().empty());
}

// kube's TestPodInfoCalculateResources pod-level cases: pod-level requests
// replace the containers'; the non-zero defaults fill in only a resource
// neither level requests.
TEST(NodeInfoTest, PodLevelRequests) {
  struct Case {
    const char* name;
    std::shared_ptr<const api::Pod> pod;
    int64_t cpu, memory, ephemeral, non0_cpu, non0_memory;
  };
  const int64_t mem1200 = 1200 * 1000 * 1000;
  const int64_t def_mem = 200 * 1024 * 1024;
  const Case cases[] = {
      {"pod-level memory", MakePod("a").Req({}).PodLevelReq({{"memory", "1200M"}}).Obj(), 0, mem1200, 0, 100, mem1200},
      {"pod-level cpu", MakePod("b").Req({}).PodLevelReq({{"cpu", "500m"}}).Obj(), 500, 0, 0, 500, def_mem},
      {"pod-level cpu, container ephemeral-storage",
       MakePod("c").Req({{"ephemeral-storage", "800M"}}).PodLevelReq({{"cpu", "500m"}}).Obj(), 500, 0,
       800 * 1000 * 1000, 500, def_mem},
      {"pod-level cpu over two requestless containers: memory default twice",
       MakePod("d").Req({}).Req({}).PodLevelReq({{"cpu", "1"}}).Obj(), 1000, 0, 0, 1000, 2 * def_mem},
      {"pod-level cpu and container memory", MakePod("e").Req({{"memory", "1Gi"}}).PodLevelReq({{"cpu", "2"}}).Obj(),
       2000, int64_t{1} << 30, 0, 2000, int64_t{1} << 30},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "4"}}).Obj());
    ni.AddPod(c.pod);
    EXPECT_EQ(ni.requested().milli_cpu, c.cpu);
    EXPECT_EQ(ni.requested().memory, c.memory);
    EXPECT_EQ(ni.requested().ephemeral_storage, c.ephemeral);
    EXPECT_EQ(ni.non_zero_requested().milli_cpu, c.non0_cpu);
    EXPECT_EQ(ni.non_zero_requested().memory, c.non0_memory);
  }
}

// kube's TestCalculatePodResourcesWithResize: a resize's status resources
// count as the larger of spec and status, or alone when the resize is
// infeasible.
TEST(NodeInfoTest, ResizedPodsCountTheirStatusResources) {
  struct Case {
    const char* name;
    std::shared_ptr<const api::Pod> pod;
    int64_t cpu;
  };
  const Case cases[] = {
      {"no pending resize", MakePod("a").Req({{"cpu", "500m"}}).StatusReq("c0", {{"cpu", "500m"}}).Obj(), 500},
      {"deferred", MakePod("b").Req({{"cpu", "700m"}}).StatusReq("c0", {{"cpu", "500m"}}).ResizePending("Deferred").Obj(),
       700},
      {"infeasible", MakePod("c").Req({{"cpu", "700m"}}).StatusReq("c0", {{"cpu", "500m"}}).ResizePending("Infeasible").Obj(),
       500},
      {"scaling down, not applied yet", MakePod("d").Req({{"cpu", "500m"}}).StatusReq("c0", {{"cpu", "2500m"}}).Obj(), 2500},
      {"another container's status", MakePod("e").Req({{"cpu", "500m"}}).StatusReq("other", {{"cpu", "2"}}).Obj(), 500},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "4"}}).Obj());
    ni.AddPod(c.pod);
    EXPECT_EQ(ni.requested().milli_cpu, c.cpu);
    EXPECT_EQ(ni.non_zero_requested().milli_cpu, c.cpu);
    ASSERT_TRUE(ni.RemovePod(*c.pod).ok());
    EXPECT_TRUE(ni.requested().IsZero());
  }
}

TEST(NodeInfoTest, PodsAreMatchedByUID) {
  NodeInfo ni(MakeNode("n1").Obj());
  ni.AddPod(MakePod("a").UID("u1").Req({{"cpu", "1"}}).Obj());
  // Same name, other UID: a different pod.
  EXPECT_FALSE(ni.RemovePod(*MakePod("a").UID("u2").Obj()).ok());
  EXPECT_TRUE(ni.RemovePod(*MakePod("renamed").UID("u1").Obj()).ok());
  EXPECT_EQ(ni.requested().milli_cpu, 0);
}

TEST(NodeInfoTest, GenerationsIncreaseAcrossNodeInfos) {
  NodeInfo a(MakeNode("a").Obj());
  NodeInfo b(MakeNode("b").Obj());
  EXPECT_GT(b.generation(), a.generation());
  a.AddPod(MakePod("p").Obj());
  EXPECT_GT(a.generation(), b.generation());
  EXPECT_GT(NextGeneration(), a.generation());
}

TEST(NodeInfoTest, CloneIsIndependentButSharesPods) {
  NodeInfo ni(MakeNode("n1").Obj());
  ni.AddPod(MakePod("a").Req({{"cpu", "1"}}).Obj());
  NodeInfo clone = ni.Clone();
  EXPECT_EQ(clone.generation(), ni.generation());
  ASSERT_EQ(clone.pods().size(), 1u);
  EXPECT_EQ(clone.pods()[0].get(), ni.pods()[0].get());  // same immutable PodInfo
  clone.AddPod(MakePod("b").Req({{"cpu", "1"}}).Obj());
  EXPECT_EQ(clone.requested().milli_cpu, 2000);
  EXPECT_EQ(ni.requested().milli_cpu, 1000);
  EXPECT_EQ(ni.pods().size(), 1u);
}

// Ports and claims are shared by copies until one changes them.
TEST(NodeInfoTest, CopiesShareTheirPortsAndClaimsUntilOneChanges) {
  NodeInfo ni(MakeNode("n1").Obj());
  auto a = MakePod("a").Node("n1").HostPort(8080).PVC("data").Obj();
  ni.AddPod(a);
  NodeInfo copy = ni.Clone();
  EXPECT_EQ(&copy.used_ports(), &ni.used_ports());
  EXPECT_EQ(&copy.pvc_ref_counts(), &ni.pvc_ref_counts());

  copy.AddPod(MakePod("b").Node("n1").HostPort(9090).PVC("logs").Obj());
  EXPECT_TRUE(copy.used_ports().CheckConflict("", "TCP", 9090));
  EXPECT_EQ(copy.pvc_ref_counts().size(), 2u);
  EXPECT_FALSE(ni.used_ports().CheckConflict("", "TCP", 9090));
  EXPECT_EQ(ni.pvc_ref_counts().size(), 1u);

  // The original, which no copy shares any more, changes its own.
  ASSERT_TRUE(ni.RemovePod(*a).ok());
  EXPECT_EQ(ni.used_ports().Len(), 0u);
  EXPECT_TRUE(ni.pvc_ref_counts().empty());
  EXPECT_TRUE(copy.used_ports().CheckConflict("", "TCP", 8080));
  EXPECT_EQ(copy.pvc_ref_counts().at("default/data"), 1);

  // A pod with neither leaves a node without them as it was.
  ni.AddPod(MakePod("c").Node("n1").Obj());
  EXPECT_EQ(&ni.used_ports(), &NodeInfo(MakeNode("n2").Obj()).used_ports());
}

TEST(NodeInfoTest, EveryChangeClearsTheMemoAndCopiesKeepIt) {
  const NodeMemo::Slot slot = NodeMemo::kNodeResourcesFit;
  NodeInfo ni(MakeNode("n1").Obj());
  auto pod = MakePod("a").Req({{"cpu", "1"}}).Obj();
  // Each change, applied to a NodeInfo whose memo holds an answer.
  const std::vector<std::pair<std::string, std::function<void(NodeInfo&)>>> changes = {
      {"AddPod", [&](NodeInfo& n) { n.AddPod(pod); }},
      {"RemovePod", [&](NodeInfo& n) { ASSERT_TRUE(n.RemovePod(*pod).ok()); }},
      {"AddPodInfo", [&](NodeInfo& n) { n.AddPodInfo(std::make_shared<const PodInfo>(pod)); }},
      {"RemovePod again", [&](NodeInfo& n) { ASSERT_TRUE(n.RemovePod(*pod).ok()); }},
      {"SetNode", [](NodeInfo& n) { n.SetNode(MakeNode("n1").Capacity({{"cpu", "4"}}).Obj()); }},
      {"RemoveNode", [](NodeInfo& n) { n.RemoveNode(); }},
  };
  for (const auto& [name, change] : changes) {
    SCOPED_TRACE(name);
    ni.memo().Set(slot, 7, 0x81);
    NodeInfo copy = ni.Clone();
    EXPECT_EQ(copy.memo().Get(slot, 7), 0x81);
    change(ni);
    EXPECT_EQ(ni.memo().Get(slot, 7), 0);
    EXPECT_EQ(copy.memo().Get(slot, 7), 0x81);  // the copy's state did not change
  }
  // A failed removal changes nothing, so the memo stays.
  ni.memo().Set(slot, 7, 0x81);
  EXPECT_FALSE(ni.RemovePod(*MakePod("ghost").Obj()).ok());
  EXPECT_EQ(ni.memo().Get(slot, 7), 0x81);
  // Image states are not what memo'd plugins read.
  ni.SetImageStates(std::make_shared<ImageStates>());
  EXPECT_EQ(ni.memo().Get(slot, 7), 0x81);
}

TEST(NodeInfoTest, ImageStatesDoNotBumpGeneration) {
  NodeInfo ni(MakeNode("n1").Obj());
  int64_t g = ni.generation();
  auto states = std::make_shared<ImageStates>();
  (*states)["nginx:1"] = ImageStateSummary{100, 2};
  ni.SetImageStates(states);
  EXPECT_EQ(ni.generation(), g);
  EXPECT_EQ(ni.image_states().at("nginx:1"), (ImageStateSummary{100, 2}));
}

TEST(NodeInfoTest, StringNamesPodsAndResources) {
  NodeInfo ni(MakeNode("n1").Capacity({{"cpu", "2"}}).Obj());
  ni.AddPod(MakePod("a").Req({{"cpu", "1"}}).HostPort(80).Obj());
  std::string s = ni.String();
  EXPECT_NE(s.find("Node:n1"), std::string::npos) << s;
  EXPECT_NE(s.find("Pods:[a]"), std::string::npos) << s;
  EXPECT_NE(s.find("MilliCPU:1000"), std::string::npos) << s;
  EXPECT_NE(s.find("0.0.0.0/TCP/80"), std::string::npos) << s;
}

}  // namespace
}  // namespace ksched::scheduler::framework
