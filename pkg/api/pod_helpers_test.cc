#include "pkg/api/pod_helpers.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

ContainerPort Port(int32_t host_port, std::string protocol = "", std::string host_ip = "", int32_t container_port = 80) {
  ContainerPort p;
  p.host_port = host_port;
  p.container_port = container_port;
  p.protocol = std::move(protocol);
  p.host_ip = std::move(host_ip);
  return p;
}

TEST(PodHelpersTest, PriorityKeyAndState) {
  Pod pod;
  EXPECT_EQ(PodPriority(pod), 0);
  pod.spec.priority = 1000;
  EXPECT_EQ(PodPriority(pod), 1000);
  pod.spec.priority = -5;
  EXPECT_EQ(PodPriority(pod), -5);

  pod.metadata.namespace_ = "default";
  pod.metadata.name = "web-0";
  EXPECT_EQ(PodKey(pod), "default/web-0");

  EXPECT_FALSE(IsScheduled(pod));
  pod.spec.node_name = "node-1";
  EXPECT_TRUE(IsScheduled(pod));

  for (const char* phase : {"", "Pending", "Running", "Unknown"}) {
    pod.status.phase = phase;
    EXPECT_FALSE(IsPodTerminal(pod)) << phase;
  }
  for (const char* phase : {"Succeeded", "Failed"}) {
    pod.status.phase = phase;
    EXPECT_TRUE(IsPodTerminal(pod)) << phase;
  }
}

TEST(PodHelpersTest, RestartableInitContainer) {
  Container c;
  EXPECT_FALSE(IsRestartableInitContainer(c));
  c.restart_policy = "OnFailure";
  EXPECT_FALSE(IsRestartableInitContainer(c));
  c.restart_policy = "Always";
  EXPECT_TRUE(IsRestartableInitContainer(c));
}

TEST(PodHelpersTest, GetPodCondition) {
  PodStatus status;
  EXPECT_EQ(GetPodCondition(status, "PodScheduled"), nullptr);
  status.conditions = {{"Ready", "False"}, {"PodScheduled", "True", "Scheduled"}};
  const PodCondition* c = GetPodCondition(status, "PodScheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c, &status.conditions[1]);
  EXPECT_EQ(GetPodCondition(status, "podscheduled"), nullptr);
}

TEST(PodHelpersTest, GetClaimStatus) {
  PodStatus status;
  EXPECT_EQ(GetClaimStatus(status, "gpu"), nullptr);
  status.resource_claim_statuses = {{"nic", "pod-nic-x1"}, {"gpu", std::nullopt}};
  const PodResourceClaimStatus* gpu = GetClaimStatus(status, "gpu");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu, &status.resource_claim_statuses[1]);
  EXPECT_FALSE(gpu->resource_claim_name);  // recorded as not needed
  EXPECT_EQ(GetClaimStatus(status, "nic")->resource_claim_name, "pod-nic-x1");
}

TEST(PodHelpersTest, HostPorts) {
  Pod pod;
  Container app;
  app.ports = {Port(8080), Port(0), Port(53, "UDP", "10.0.0.1")};
  Container sidecar;
  sidecar.restart_policy = "Always";
  sidecar.ports = {Port(9090, "SCTP")};
  Container init;  // ordinary init containers finish before the pod runs
  init.ports = {Port(7070)};
  pod.spec.containers = {app};
  pod.spec.init_containers = {init, sidecar};

  const std::vector<HostPort> want = {
      {"0.0.0.0", "SCTP", 9090},
      {"0.0.0.0", "TCP", 8080},
      {"10.0.0.1", "UDP", 53},
  };
  EXPECT_EQ(PodHostPorts(pod), want);
  EXPECT_TRUE(PodHostPorts(Pod{}).empty());
}

struct NameCase {
  const char* name;
  bool native;
  bool extended;
  bool hugepage;
  bool scalar;
};

TEST(PodHelpersTest, ResourceNames) {
  EXPECT_EQ(kResourceCPU, "cpu");
  EXPECT_EQ(kResourceMemory, "memory");
  EXPECT_EQ(kResourceEphemeralStorage, "ephemeral-storage");
  EXPECT_EQ(kResourcePods, "pods");
  const NameCase cases[] = {
      {"cpu", true, false, false, false},
      {"memory", true, false, false, false},
      {"ephemeral-storage", true, false, false, false},
      {"pods", true, false, false, false},
      {"nvidia.com/gpu", false, true, false, true},
      {"example.com/dongle", false, true, false, true},
      {"kubernetes.io/batch-cpu", true, false, false, true},
      {"scheduling.kubernetes.io/foo", true, false, false, true},
      {"hugepages-2Mi", true, false, true, true},
      {"hugepages-1Gi", true, false, true, true},
      {"attachable-volumes-aws-ebs", true, false, false, true},
      {"requests.example.com/x", false, false, false, false},
      {"example.com/", false, false, false, false},
      {"Example.com/x", false, false, false, false},
      {"example.com/bad name", false, false, false, false},
      {"a/b/c", false, false, false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsNativeResourceName(c.name), c.native) << c.name;
    EXPECT_EQ(IsExtendedResourceName(c.name), c.extended) << c.name;
    EXPECT_EQ(IsHugePageResourceName(c.name), c.hugepage) << c.name;
    EXPECT_EQ(IsScalarResourceName(c.name), c.scalar) << c.name;
  }
  EXPECT_TRUE(IsPrefixedNativeResourceName("kubernetes.io/x"));
  EXPECT_FALSE(IsPrefixedNativeResourceName("cpu"));
  EXPECT_TRUE(IsAttachableVolumeResourceName("attachable-volumes-csi-x"));
}

}  // namespace
}  // namespace ksched::api
