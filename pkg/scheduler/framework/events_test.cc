#include "pkg/scheduler/framework/events.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

api::Pod PodWithCpu(const char* cpu) {
  api::Pod p;
  p.metadata.name = "p";
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = api::Quantity::MustParse(cpu);
  p.spec.containers.push_back(c);
  return p;
}

std::vector<ClusterEvent> Events(std::initializer_list<std::pair<std::string_view, ActionType>> l) {
  std::vector<ClusterEvent> out;
  for (auto& [r, a] : l) out.emplace_back(r, a);
  return out;
}

TEST(PodSchedulingPropertiesChangeTest, NothingRelevantIsGenericUpdate) {
  api::Pod old_pod = PodWithCpu("1");
  api::Pod new_pod = old_pod;
  new_pod.metadata.annotations["a"] = "b";
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod),
            Events({{resource::kUnschedulablePod, ActionType::kUpdate}}));
  new_pod.spec.node_name = "n1";
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod), Events({{resource::kAssignedPod, ActionType::kUpdate}}));
}

TEST(PodSchedulingPropertiesChangeTest, EachFacetInOrder) {
  api::Pod old_pod = PodWithCpu("1");
  old_pod.spec.scheduling_gates.push_back({"gate"});
  api::Pod new_pod = PodWithCpu("500m");
  new_pod.metadata.labels["app"] = "x";
  new_pod.spec.tolerations.push_back(api::Toleration{"k", "Exists", "", "", std::nullopt});
  new_pod.status.resource_claim_statuses.push_back({"gpu", "pod-gpu-abcde"});
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod),
            Events({{resource::kUnschedulablePod, ActionType::kUpdatePodLabel},
                    {resource::kUnschedulablePod, ActionType::kUpdatePodScaleDown},
                    {resource::kUnschedulablePod, ActionType::kUpdatePodSchedulingGatesEliminated},
                    {resource::kUnschedulablePod, ActionType::kUpdatePodToleration},
                    {resource::kUnschedulablePod, ActionType::kUpdatePodGeneratedResourceClaim}}));
}

TEST(PodSchedulingPropertiesChangeTest, GeneratedResourceClaim) {
  api::Pod old_pod = PodWithCpu("1");
  old_pod.status.resource_claim_statuses.push_back({"gpu", std::nullopt});
  api::Pod new_pod = old_pod;
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod),
            Events({{resource::kUnschedulablePod, ActionType::kUpdate}}));
  // The controller filled in the generated claim's name.
  new_pod.status.resource_claim_statuses[0].resource_claim_name = "pod-gpu-abcde";
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod),
            Events({{resource::kUnschedulablePod, ActionType::kUpdatePodGeneratedResourceClaim}}));
}

TEST(PodSchedulingPropertiesChangeTest, ScaleDownRules) {
  api::Pod one = PodWithCpu("1");
  // Scale up is not an event.
  EXPECT_EQ(PodSchedulingPropertiesChange(PodWithCpu("2"), one),
            Events({{resource::kUnschedulablePod, ActionType::kUpdate}}));
  // Removing a request is a scale down.
  api::Pod none = one;
  none.spec.containers.Mutable()[0].resources.requests.clear();
  EXPECT_EQ(PodSchedulingPropertiesChange(none, one),
            Events({{resource::kUnschedulablePod, ActionType::kUpdatePodScaleDown}}));
  // Adding a new resource is not.
  api::Pod more = one;
  more.spec.containers.Mutable()[0].resources.requests["memory"] = api::Quantity::MustParse("1Gi");
  EXPECT_EQ(PodSchedulingPropertiesChange(more, one), Events({{resource::kUnschedulablePod, ActionType::kUpdate}}));
}

// An applied resize down shows only in the container status (the spec was
// lowered before); a pod-level request lowered is a scale down too.
TEST(PodSchedulingPropertiesChangeTest, ScaleDownOfAResizeOrPodLevelRequests) {
  api::Pod holding = PodWithCpu("1");
  holding.spec.node_name = "n1";
  api::ContainerStatus cs;
  cs.name = holding.spec.containers[0].name;
  cs.resources.emplace();
  cs.resources->requests["cpu"] = api::Quantity::MustParse("3");
  holding.status.container_statuses.push_back(cs);
  api::Pod applied = holding;
  applied.status.container_statuses[0].resources->requests["cpu"] = api::Quantity::MustParse("1");
  EXPECT_EQ(PodSchedulingPropertiesChange(applied, holding),
            Events({{resource::kAssignedPod, ActionType::kUpdatePodScaleDown}}));
  EXPECT_EQ(PodSchedulingPropertiesChange(holding, applied), Events({{resource::kAssignedPod, ActionType::kUpdate}}));

  api::Pod pod_level = PodWithCpu("1");
  pod_level.spec.resources.emplace();
  pod_level.spec.resources->requests["cpu"] = api::Quantity::MustParse("4");
  api::Pod lowered = pod_level;
  lowered.spec.resources->requests["cpu"] = api::Quantity::MustParse("2");
  EXPECT_EQ(PodSchedulingPropertiesChange(lowered, pod_level),
            Events({{resource::kUnschedulablePod, ActionType::kUpdatePodScaleDown}}));
}

TEST(PodSchedulingPropertiesChangeTest, GatesOnlyWhenAllRemoved) {
  api::Pod old_pod;
  old_pod.spec.scheduling_gates = {{"a"}, {"b"}};
  api::Pod new_pod;
  new_pod.spec.scheduling_gates = {{"a"}};
  EXPECT_EQ(PodSchedulingPropertiesChange(new_pod, old_pod),
            Events({{resource::kUnschedulablePod, ActionType::kUpdate}}));
}

api::Node BaseNode() {
  api::Node n;
  n.metadata.name = "n";
  n.status.allocatable.Mutable()["cpu"] = api::Quantity::MustParse("4");
  n.status.conditions.push_back(api::NodeCondition{"Ready", "True", "KubeletReady", "", std::nullopt, std::nullopt});
  return n;
}

TEST(NodeSchedulingPropertiesChangeTest, NoChange) {
  api::Node a = BaseNode();
  api::Node b = a;
  b.status.conditions[0].reason = "Other";  // reasons and times are ignored
  b.status.allocatable.Mutable()["cpu"] = api::Quantity::MustParse("4000m");  // same quantity
  EXPECT_TRUE(NodeSchedulingPropertiesChange(b, a).empty());
}

TEST(NodeSchedulingPropertiesChangeTest, EachFacetInOrder) {
  api::Node old_node = BaseNode();
  old_node.spec.unschedulable = true;
  api::Node new_node = BaseNode();
  new_node.status.allocatable.Mutable()["cpu"] = api::Quantity::MustParse("8");
  new_node.metadata.labels["zone"] = "a";
  new_node.spec.taints.push_back(api::Taint{"k", "v", "NoSchedule", std::nullopt});
  new_node.status.conditions[0].status = "False";
  new_node.metadata.annotations["x"] = "y";
  EXPECT_EQ(NodeSchedulingPropertiesChange(new_node, old_node),
            Events({{resource::kNode, ActionType::kUpdateNodeTaint},
                    {resource::kNode, ActionType::kUpdateNodeAllocatable},
                    {resource::kNode, ActionType::kUpdateNodeLabel},
                    {resource::kNode, ActionType::kUpdateNodeTaint},
                    {resource::kNode, ActionType::kUpdateNodeCondition},
                    {resource::kNode, ActionType::kUpdateNodeAnnotation}}));
}

TEST(NodeSchedulingPropertiesChangeTest, BecomingUnschedulableIsNoEvent) {
  api::Node old_node = BaseNode();
  api::Node new_node = BaseNode();
  new_node.spec.unschedulable = true;
  EXPECT_TRUE(NodeSchedulingPropertiesChange(new_node, old_node).empty());
}

TEST(NodeSchedulingPropertiesChangeTest, ConditionAddedOrRemoved) {
  api::Node old_node = BaseNode();
  api::Node new_node = BaseNode();
  new_node.status.conditions.push_back(
      api::NodeCondition{"MemoryPressure", "False", "", "", std::nullopt, std::nullopt});
  EXPECT_EQ(NodeSchedulingPropertiesChange(new_node, old_node),
            Events({{resource::kNode, ActionType::kUpdateNodeCondition}}));
}

}  // namespace
}  // namespace ksched::scheduler::framework
