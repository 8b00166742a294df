#include "pkg/scheduler/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/nodedeclaredfeatures/feature_registry.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {
namespace {

using framework::Code;
using framework::QueueingHint;

std::shared_ptr<const api::Node> Node(const std::string& name, std::vector<std::string> declared) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  n->status.declared_features = std::move(declared);
  return n;
}

api::Pod RestartAllPod() {
  api::Pod p;
  p.metadata.name = "p";
  api::Container c;
  c.name = "main";
  c.restart_policy_rules.push_back({"RestartAllContainers"});
  p.spec.containers.push_back(c);
  return p;
}

api::Pod UserNamespaceHostNetworkPod() {
  api::Pod p;
  p.metadata.name = "p";
  p.spec.host_network = true;
  p.spec.host_users = false;
  p.spec.containers.emplace_back();
  return p;
}

api::Pod BindMountPod() {
  api::Pod p;
  p.metadata.name = "p";
  api::Container c;
  c.volume_mounts.push_back({"data", {"nosuid"}});
  p.spec.init_containers.push_back(c);
  p.spec.containers.emplace_back();
  return p;
}

TEST(FeatureRegistryTest, WhatAPodNeedsDependsOnTheMinor) {
  EXPECT_TRUE(RequiredFeatures(api::Pod(), 37).empty());
  EXPECT_EQ(RequiredFeatures(RestartAllPod(), 35), std::vector<std::string_view>{"RestartAllContainersOnContainerExits"});
  EXPECT_TRUE(RequiredFeatures(UserNamespaceHostNetworkPod(), 35).empty());
  EXPECT_EQ(RequiredFeatures(UserNamespaceHostNetworkPod(), 36),
            std::vector<std::string_view>{"UserNamespacesHostNetworkSupport"});
  EXPECT_TRUE(RequiredFeatures(BindMountPod(), 36).empty());
  EXPECT_EQ(RequiredFeatures(BindMountPod(), 37), std::vector<std::string_view>{"VolumeBindMountOptions"});
  api::Pod host_users = UserNamespaceHostNetworkPod();
  host_users.spec.host_users = true;
  EXPECT_TRUE(RequiredFeatures(host_users, 37).empty());
}

// As kube's TryMap: unknown names are skipped; the list is read as sorted.
TEST(FeatureRegistryTest, DeclaresReadsTheSortedListAsKube) {
  const std::vector<std::string_view> need = {"RestartAllContainersOnContainerExits"};
  EXPECT_TRUE(Declares({"ExtendWebSocketsToKubelet", "RestartAllContainersOnContainerExits", "Zzz"}, need, 37));
  EXPECT_TRUE(Declares({"Aaa", "RestartAllContainersOnContainerExits"}, need, 37));
  EXPECT_FALSE(Declares({"ExtendWebSocketsToKubelet"}, need, 37));
  EXPECT_FALSE(Declares({}, need, 37));
  EXPECT_TRUE(Declares({}, {}, 37));
  // Out of order, the merge passes the feature before it is reached.
  EXPECT_FALSE(Declares({"UserNamespacesHostNetworkSupport", "RestartAllContainersOnContainerExits"}, need, 37));
}

TEST(NodeDeclaredFeaturesTest, FiltersNodesThatDoNotDeclareTheFeature) {
  auto pl = New(framework::FeatureGates::ForMinor(37));
  EXPECT_EQ(pl->Name(), "NodeDeclaredFeatures");
  framework::NodeInfo with(Node("with", {"RestartAllContainersOnContainerExits"}));
  framework::NodeInfo without(Node("without", {}));
  framework::CycleState state;
  api::Pod pod = RestartAllPod();
  auto [result, pre] = pl->PreFilter(state, pod, {&with, &without});
  ASSERT_TRUE(pre.IsSuccess()) << pre.Message();
  EXPECT_TRUE(result.AllNodes());
  EXPECT_TRUE(pl->Filter(state, pod, with).IsSuccess());
  framework::Status s = pl->Filter(state, pod, without);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't match Pod's required features");
}

TEST(NodeDeclaredFeaturesTest, SkipsPodsThatNeedNothingAndWhenTheGateIsOff) {
  framework::CycleState state;
  auto on = New(framework::FeatureGates::ForMinor(37));
  EXPECT_EQ(on->PreFilter(state, api::Pod(), {}).second.code(), Code::kSkip);
  auto off = New(framework::FeatureGates::ForMinor(35));
  EXPECT_EQ(off->PreFilter(state, RestartAllPod(), {}).second.code(), Code::kSkip);
  EXPECT_TRUE(off->EventsToRegister()->empty());
  // Filter without PreFilter's state is an error, as kube's.
  EXPECT_EQ(on->Filter(state, RestartAllPod(), framework::NodeInfo(Node("n", {}))).code(), Code::kError);
}

TEST(NodeDeclaredFeaturesTest, QueuesOnNewNodesAndChangedDeclarations) {
  auto pl = New(framework::FeatureGates::ForMinor(37));
  auto events = pl->EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event.resource, "Node");
  EXPECT_EQ((*events)[0].event.action_type,
            framework::ActionType::kAdd | framework::ActionType::kUpdateNodeDeclaredFeature);
  api::Pod pod = RestartAllPod();
  auto old_node = framework::EventObject(Node("n", {"A"}));
  EXPECT_EQ(NodeDeclaredFeatures::IsSchedulableAfterNodeChange(pod, {}, old_node).value(), QueueingHint::kQueue);
  EXPECT_EQ(NodeDeclaredFeatures::IsSchedulableAfterNodeChange(pod, old_node, framework::EventObject(Node("n", {"A"})))
                .value(),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(
      NodeDeclaredFeatures::IsSchedulableAfterNodeChange(pod, old_node, framework::EventObject(Node("n", {"A", "B"})))
          .value(),
      QueueingHint::kQueue);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
