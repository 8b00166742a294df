#include "pkg/scheduler/framework/pod_signature.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

api::Container WithPorts(std::vector<int32_t> host_ports) {
  api::Container c;
  for (int32_t p : host_ports) {
    api::ContainerPort port;
    port.host_port = p;
    port.container_port = 80;
    c.ports.push_back(port);
  }
  return c;
}

// kube's signers: order and repeats that do not change a Filter or Score
// outcome do not change the signature.
TEST(PodSignatureTest, HostPortsCountInitContainersSortedAndOnce) {
  api::Pod a;
  a.spec.containers = {WithPorts({8080, 0, 80})};
  a.spec.init_containers = {WithPorts({443, 80})};
  api::Pod b;
  b.spec.containers = {WithPorts({443}), WithPorts({80, 8080})};
  EXPECT_EQ(HostPortsSignature(a), HostPortsSignature(b));
  api::Pod c;
  c.spec.containers = {WithPorts({443, 80})};
  EXPECT_NE(HostPortsSignature(a), HostPortsSignature(c));
}

api::Toleration Tol(std::string key, std::string value, std::string effect = "") {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = "Equal";
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

TEST(PodSignatureTest, TolerationsSortedByKeyAndValue) {
  api::Pod a;
  a.spec.tolerations = {Tol("b", "1"), Tol("a", "2"), Tol("a", "1")};
  api::Pod b;
  b.spec.tolerations = {Tol("a", "1"), Tol("b", "1"), Tol("a", "2")};
  EXPECT_EQ(TolerationsSignature(a), TolerationsSignature(b));
  b.spec.tolerations.Mutable()[1].effect = "NoSchedule";
  EXPECT_NE(TolerationsSignature(a), TolerationsSignature(b));
  b.spec.tolerations.Mutable()[1].effect = "";
  b.spec.tolerations.Mutable()[1].toleration_seconds = 30;
  EXPECT_NE(TolerationsSignature(a), TolerationsSignature(b));
}

api::Volume Claim(std::string volume, std::string claim) {
  api::Volume v;
  v.name = std::move(volume);
  v.persistent_volume_claim = api::PersistentVolumeClaimVolumeSource{std::move(claim), false};
  return v;
}

api::Volume Other(std::string volume, std::string kind) {
  api::Volume v;
  v.name = std::move(volume);
  v.other_source = std::move(kind);
  return v;
}

TEST(PodSignatureTest, VolumesLeaveOutConfigMapsSecretsAndNames) {
  api::Pod a;
  a.spec.volumes = {Claim("data", "pvc-1"), Other("config", "configMap"), Other("token", "secret")};
  api::Pod b;
  b.spec.volumes = {Claim("other-name", "pvc-1")};
  EXPECT_EQ(VolumesSignature(a), VolumesSignature(b));
  api::Pod c;
  c.spec.volumes = {Claim("data", "pvc-2")};
  EXPECT_NE(VolumesSignature(a), VolumesSignature(c));
  api::Pod d;
  d.spec.volumes = {Claim("data", "pvc-1"), Other("scratch", "emptyDir")};
  EXPECT_NE(VolumesSignature(a), VolumesSignature(d));
  EXPECT_EQ(VolumesSignature(api::Pod{}), "");
}

api::NodeSelectorRequirement Req(std::string key, std::vector<std::string> values) {
  return api::NodeSelectorRequirement{std::move(key), "In", std::move(values)};
}

TEST(PodSignatureTest, NodeAffinityIgnoresTheOrderOfValuesRequirementsAndTerms) {
  auto with = [](std::vector<api::NodeSelectorTerm> terms, std::vector<api::PreferredSchedulingTerm> preferred) {
    api::Pod p;
    p.spec.affinity.emplace();
    p.spec.affinity.Mutable().node_affinity.emplace();
    if (!terms.empty()) p.spec.affinity.Mutable().node_affinity->required_during_scheduling_ignored_during_execution =
        api::NodeSelector{std::move(terms)};
    p.spec.affinity.Mutable().node_affinity->preferred_during_scheduling_ignored_during_execution = std::move(preferred);
    return p;
  };
  api::NodeSelectorTerm t1{{Req("zone", {"a", "b"}), Req("disk", {"ssd"})}, {}};
  api::NodeSelectorTerm t1_shuffled{{Req("disk", {"ssd"}), Req("zone", {"b", "a"})}, {}};
  api::NodeSelectorTerm t2{{Req("arch", {"arm64"})}, {}};
  const api::Pod a = with({t1, t2}, {{5, t2}});
  const api::Pod b = with({t2, t1_shuffled}, {{5, t2}});
  EXPECT_EQ(NodeAffinitySignature(a), NodeAffinitySignature(b));
  EXPECT_NE(NodeAffinitySignature(a), NodeAffinitySignature(with({t1, t2}, {{6, t2}})));
  EXPECT_NE(NodeAffinitySignature(a), NodeAffinitySignature(with({t1}, {{5, t2}})));
  // No affinity at all differs from an empty one, as kube's null and {}.
  EXPECT_NE(NodeAffinitySignature(api::Pod{}), NodeAffinitySignature(with({}, {})));
}

class Fixed final : public SignPlugin {
 public:
  Fixed(std::string_view key, std::string value, Code code = Code::kSuccess)
      : key_(key), value_(std::move(value)), code_(code) {}
  Status SignPod(const api::Pod&, std::vector<SignFragment>& out) const override {
    if (code_ != Code::kSuccess) return Status(code_, "cannot sign");
    out.push_back({key_, value_});
    return Status();
  }

 private:
  std::string_view key_;
  std::string value_;
  Code code_;
};

TEST(PodSignerTest, SignsTheSchedulerNameAndEachKeyOnce) {
  Fixed ports(signer::kHostPorts, "80,");
  Fixed volumes(signer::kVolumes, "v");
  Fixed volumes_again(signer::kVolumes, "v");
  PodSigner signer({{"NodePorts", &ports}, {"VolumeBinding", &volumes}, {"VolumeZone", &volumes_again},
                    {"NodePorts", &ports}});
  ASSERT_TRUE(signer.Enabled());
  api::Pod a;
  a.spec.scheduler_name = "ksched";
  std::optional<std::string> sa = signer.Sign(a);
  ASSERT_TRUE(sa.has_value());
  api::Pod b = a;
  b.metadata.name = "another";  // not a signed part
  EXPECT_EQ(signer.Sign(b), sa);
  b.spec.scheduler_name = "default-scheduler";
  EXPECT_NE(signer.Sign(b), sa);
}

TEST(PodSignerTest, APluginThatCannotSignOrDoesNotImplementSigning) {
  Fixed ok(signer::kNodeName, "");
  Fixed refuses(signer::kLabels, "", Code::kUnschedulable);
  EXPECT_FALSE(PodSigner({{"NodeName", &ok}, {"InterPodAffinity", &refuses}}).Sign(api::Pod{}).has_value());
  PodSigner without({{"NodeName", &ok}, {"OutOfTree", nullptr}});
  EXPECT_FALSE(without.Enabled());
  EXPECT_FALSE(without.Sign(api::Pod{}).has_value());
  class Never final : public SignPlugin {
   public:
    Status SignPod(const api::Pod&, std::vector<SignFragment>&) const override { return Status(); }
    bool NeverSigns() const override { return true; }
  } never;
  EXPECT_FALSE(PodSigner({{"NodeName", &ok}, {"PodTopologySpread", &never}}).Enabled());
}

TEST(PodSignatureTest, ResourceRequestsCountEveryField) {
  Resource a;
  a.milli_cpu = 500;
  a.memory = 1 << 20;
  a.SetScalar("example.com/gpu", 1);
  Resource b = a;
  EXPECT_EQ(ResourceRequestSignature(a), ResourceRequestSignature(b));
  b.SetScalar("example.com/gpu", 2);
  EXPECT_NE(ResourceRequestSignature(a), ResourceRequestSignature(b));
  b = a;
  b.ephemeral_storage = 1;
  EXPECT_NE(ResourceRequestSignature(a), ResourceRequestSignature(b));
}

}  // namespace
}  // namespace ksched::scheduler::framework
