#include "pkg/scheduler/plugins/nodeports/node_ports.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ksched::scheduler::plugins::nodeports {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::Code;
using framework::EventObject;
using framework::QueueingHint;

struct Port {
  std::string protocol;
  std::string ip;
  int32_t port;
};

std::shared_ptr<api::Pod> MakePod(const std::string& uid, const std::vector<Port>& ports) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.name = "pod-" + uid;
  p->metadata.namespace_ = "default";
  p->metadata.uid = uid;
  api::Container c;
  c.name = "c";
  for (const Port& port : ports) {
    api::ContainerPort cp;
    cp.protocol = port.protocol;
    cp.host_ip = port.ip;
    cp.host_port = port.port;
    cp.container_port = port.port;
    c.ports.push_back(cp);
  }
  p->spec.containers.push_back(c);
  return p;
}

std::shared_ptr<api::Pod> Assigned(std::shared_ptr<api::Pod> p) {
  p->spec.node_name = "node";
  return p;
}

framework::NodeInfo MakeNodeInfo(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  auto node = std::make_shared<api::Node>();
  node->metadata.name = "node";
  return framework::NodeInfo(node, pods);
}

framework::Status RunFilter(NodePorts& pl, const api::Pod& pod, const framework::NodeInfo& node_info, bool* skipped) {
  framework::CycleState state;
  auto [result, status] = pl.PreFilter(state, pod, {&node_info});
  EXPECT_TRUE(result.AllNodes());
  *skipped = status.IsSkip();
  if (status.IsSkip()) return framework::Status();
  EXPECT_TRUE(status.IsSuccess()) << status.ToString();
  return pl.Filter(state, pod, node_info);
}

TEST(NodePortsTest, Filter) {
  struct Case {
    const char* name;
    std::vector<Port> pod_ports;
    std::vector<Port> existing_ports;
    bool want_skip;
    Code want;
  };
  const Case cases[] = {
      {"nothing running", {}, {}, true, Code::kSuccess},
      {"other port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 9090}}, false, Code::kSuccess},
      {"same udp port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 8080}}, false, Code::kUnschedulable},
      {"same tcp port", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, false, Code::kUnschedulable},
      {"different host ip", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.2", 8080}}, false, Code::kSuccess},
      {"different protocol", {{"UDP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, false, Code::kSuccess},
      {"second udp port conflict",
       {{"UDP", "127.0.0.1", 8000}, {"UDP", "127.0.0.1", 8080}},
       {{"UDP", "127.0.0.1", 8080}},
       false,
       Code::kUnschedulable},
      {"first tcp port conflict",
       {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8080}},
       {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8081}},
       false,
       Code::kUnschedulable},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       {{"TCP", "0.0.0.0", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       false,
       Code::kUnschedulable},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       {{"TCP", "10.0.10.10", 8001}, {"TCP", "0.0.0.0", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       false,
       Code::kUnschedulable},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       {{"TCP", "127.0.0.1", 8001}},
       {{"TCP", "0.0.0.0", 8001}},
       false,
       Code::kUnschedulable},
      {"second different protocol", {{"UDP", "127.0.0.1", 8001}}, {{"TCP", "0.0.0.0", 8001}}, false, Code::kSuccess},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       {{"UDP", "127.0.0.1", 8001}},
       {{"TCP", "0.0.0.0", 8001}, {"UDP", "0.0.0.0", 8001}},
       false,
       Code::kUnschedulable},
      {"empty protocol and host ip default to TCP on 0.0.0.0",
       {{"", "", 8001}},
       {{"TCP", "127.0.0.1", 8001}},
       false,
       Code::kUnschedulable},
  };
  auto pl = New(framework::FeatureGates());
  EXPECT_EQ(pl->Name(), "NodePorts");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::NodeInfo node_info = MakeNodeInfo({Assigned(MakePod("existing", c.existing_ports))});
    bool skipped = false;
    framework::Status s = RunFilter(*pl, *MakePod("new", c.pod_ports), node_info, &skipped);
    EXPECT_EQ(skipped, c.want_skip);
    EXPECT_EQ(s.code(), c.want);
    if (c.want != Code::kSuccess) {
      ASSERT_EQ(s.reasons().size(), 1u);
      EXPECT_EQ(s.reasons()[0], "node(s) didn't have free ports for the requested pod ports");
    }
  }
}

TEST(NodePortsTest, SidecarPortsCountButInitContainerPortsDoNot) {
  auto pl = New(framework::FeatureGates());
  framework::NodeInfo node_info = MakeNodeInfo({Assigned(MakePod("existing", {{"TCP", "", 80}}))});

  auto with_init = MakePod("a", {});
  with_init->spec.init_containers = MakePod("x", {{"TCP", "", 80}})->spec.containers;
  bool skipped = false;
  EXPECT_TRUE(RunFilter(*pl, *with_init, node_info, &skipped).IsSuccess());
  EXPECT_TRUE(skipped);

  auto with_sidecar = MakePod("b", {});
  with_sidecar->spec.init_containers = MakePod("x", {{"TCP", "", 80}})->spec.containers;
  with_sidecar->spec.init_containers.Mutable()[0].restart_policy = "Always";
  EXPECT_EQ(RunFilter(*pl, *with_sidecar, node_info, &skipped).code(), Code::kUnschedulable);
  EXPECT_FALSE(skipped);
}

TEST(NodePortsTest, FilterWithoutPreFilterIsError) {
  auto pl = New(framework::FeatureGates());
  framework::CycleState state;
  framework::NodeInfo node_info = MakeNodeInfo({});
  framework::Status s = pl->Filter(state, *MakePod("p", {{"TCP", "", 80}}), node_info);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "reading \"PreFilterNodePorts\" from cycleState: not found");
}

TEST(NodePortsTest, EventsToRegister) {
  auto on = New(framework::FeatureGates())->EventsToRegister();
  ASSERT_TRUE(on.ok());
  ASSERT_EQ(on->size(), 2u);
  EXPECT_EQ((*on)[0].event, ClusterEvent(framework::resource::kPod, ActionType::kDelete));
  EXPECT_TRUE((*on)[0].queueing_hint_fn);
  EXPECT_EQ((*on)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd));
  EXPECT_FALSE((*on)[1].queueing_hint_fn);

  framework::FeatureGates gates;
  gates.scheduler_queueing_hints = false;
  auto off = New(gates)->EventsToRegister();
  ASSERT_TRUE(off.ok());
  ASSERT_EQ(off->size(), 2u);
  EXPECT_EQ((*off)[0].event, ClusterEvent(framework::resource::kPod, ActionType::kDelete));
  EXPECT_EQ((*off)[1].event, ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint |
                                                                          ActionType::kUpdateNodeLabel));
  EXPECT_FALSE((*off)[1].queueing_hint_fn);
}

TEST(NodePortsTest, IsSchedulableAfterPodDeleted) {
  auto nominated = MakePod("n", {{"TCP", "", 8080}});
  nominated->status.nominated_node_name = "node";
  struct Case {
    const char* name;
    EventObject old_obj;
    bool want_error;
    QueueingHint want;
  };
  const Case cases[] = {
      {"wrong old object", EventObject(std::make_shared<const api::Node>()), true, QueueingHint::kQueue},
      {"unscheduled pod deleted", EventObject(MakePod("d", {{"TCP", "", 8080}})), false, QueueingHint::kQueueSkip},
      {"deleted pod had no host ports", EventObject(Assigned(MakePod("d", {}))), false, QueueingHint::kQueueSkip},
      {"deleted pod had unrelated host port", EventObject(Assigned(MakePod("d", {{"TCP", "", 8081}}))), false,
       QueueingHint::kQueueSkip},
      {"deleted pod released the host port", EventObject(Assigned(MakePod("d", {{"TCP", "", 8080}}))), false,
       QueueingHint::kQueue},
      {"nominated pod released the host port", EventObject(nominated), false, QueueingHint::kQueue},
  };
  auto pod = MakePod("target", {{"TCP", "", 8080}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = NodePorts::IsSchedulableAfterPodDeleted(*pod, c.old_obj, EventObject());
    ASSERT_EQ(!got.ok(), c.want_error);
    if (got.ok()) {
      EXPECT_EQ(*got, c.want);
    }
  }
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeports
