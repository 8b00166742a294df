#include "pkg/simulate/simulation.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/config/load.h"
#include "pkg/simulate/cluster_loader.h"
#include "pkg/simulate/report.h"
#include "pkg/simulate/simulation_test_util.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::simulate {
namespace {

using namespace testutil;  // NOLINT: the shared simulate test helpers

TEST(SimulationTest, PlacementsAreAppliedInQueueOrder) {
  // Room for two 1-CPU pods: the two oldest of equal priority get it, and
  // the higher-priority pod goes first whatever its age.
  ClusterObjects c = Load(Node("n1", "2", "8Gi") + Pod("old", "1", 1) + Pod("young", "1", 3) + Pod("mid", "1", 2) +
                          Pod("vip", "1", 9, 10));
  SimulationOptions o = Options();
  o.config.profiles[0].plugins.post_filter.disabled.push_back({"DefaultPreemption", std::nullopt, ""});
  SimulationResult r = RunSim(c, o);
  ASSERT_EQ(r.pods.size(), 4u);
  EXPECT_EQ(r.pods[0].name, "vip");
  EXPECT_EQ(r.pods[1].name, "old");
  EXPECT_EQ(r.pods[2].name, "mid");
  EXPECT_EQ(r.pods[3].name, "young");
  EXPECT_EQ(r.pods[0].node, "n1");
  EXPECT_EQ(r.pods[1].node, "n1");
  EXPECT_EQ(r.pods[2].node, "");
  EXPECT_EQ(r.pods[3].node, "");
  EXPECT_EQ(r.pods[1].attempts, 1);
}

TEST(SimulationTest, ExplainSaysNotEvaluatedBesideAFeasibleNominatedNode) {
  // vip preempts low-1 on n1 (lowest name), is nominated there, and its
  // next cycle tries n1 alone: n2 was not evaluated (not "rejected").
  ClusterObjects c = Load(Node("n1", "2") + Node("n2", "2") + Pod("low-1", "2", 1, 0, "n1") +
                          Pod("low-2", "2", 2, 0, "n2") + Pod("vip", "1", 3, 10));
  SimulationResult r = RunSim(c, Options(TieBreak::kLowestName, /*explain=*/true));
  const PodOutcome* vip = Find(r, "vip");
  ASSERT_NE(vip, nullptr);
  ASSERT_EQ(vip->node, "n1");
  ASSERT_TRUE(vip->explain.has_value());
  EXPECT_EQ(vip->explain->filter.at("n1").kind, FilterVerdict::Kind::kFeasible);
  EXPECT_EQ(vip->explain->filter.at("n2").kind, FilterVerdict::Kind::kNotEvaluated);
}

TEST(SimulationTest, ExplainKeepsPreFilterResultRejections) {
  // NodeAffinity's PreFilter narrows the pod to n2: n1 is rejected with
  // the absent-nodes status's reason, not "not evaluated".
  const std::string affinity =
      "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
      "        nodeSelectorTerms:\n        - matchFields: [{key: metadata.name, operator: In, values: [n2]}]\n";
  ClusterObjects c = Load(Node("n1", "2") + Node("n2", "2") + Pod("p", "1", 1) + affinity);
  SimulationResult r = RunSim(c, Options(TieBreak::kLowestName, /*explain=*/true));
  const PodOutcome* p = Find(r, "p");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->node, "n2");
  ASSERT_TRUE(p->explain.has_value());
  const FilterVerdict& n1 = p->explain->filter.at("n1");
  EXPECT_EQ(n1.kind, FilterVerdict::Kind::kRejected);
  ASSERT_EQ(n1.reasons.size(), 1u);
  EXPECT_EQ(n1.reasons[0], "node(s) didn't satisfy plugin(s) [NodeAffinity]");
}

TEST(SimulationTest, ClaimsAreBoundAndProvisionedForThePodsPlaced) {
  // VolumeBinding's PreBind polls for the bindings it writes, on a clock
  // that passes the poll at once (on the simulation's it waited forever).
  const std::string storage =
      "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\n"
      "provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
      "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: dyn}\n"
      "provisioner: x.csi.example.com\nvolumeBindingMode: WaitForFirstConsumer\n"
      "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-n2, resourceVersion: \"1\"}\n"
      "spec:\n  capacity: {storage: 5Gi}\n  accessModes: [ReadWriteOnce]\n  storageClassName: local\n"
      "  local: {path: /mnt/a}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n"
      "      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n2]}]\n"
      "status: {phase: Available}\n";
  auto claim = [](const std::string& name, const std::string& cls) {
    return "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
           ", namespace: default, uid: uid-" + name + ", resourceVersion: \"1\"}\nspec:\n  accessModes: [ReadWriteOnce]\n"
           "  storageClassName: " + cls + "\n  resources: {requests: {storage: 1Gi}}\n";
  };
  auto with_claim = [](std::string pod, const std::string& claim_name) {
    return pod + "  volumes:\n  - name: v\n    persistentVolumeClaim: {claimName: " + claim_name + "}\n";
  };
  // n1 attaches one volume of the dynamic class's driver.
  const std::string csi_node =
      "---\napiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: n1}\nspec:\n  drivers:\n"
      "  - {name: x.csi.example.com, nodeID: n1, allocatable: {count: 1}}\n";
  ClusterObjects c = Load(Node("n1", "2", "8Gi") + Node("n2", "2", "8Gi") + storage + csi_node +
                          claim("static", "local") + claim("dynamic", "dyn") + claim("dynamic-2", "dyn") +
                          with_claim(Pod("a", "1", 1), "static") + with_claim(Pod("b", "1", 2), "dynamic") +
                          with_claim(Pod("c", "500m", 3), "dynamic-2"));
  SimulationResult r = RunSim(c, Options());
  const PodOutcome* a = Find(r, "a");
  const PodOutcome* b = Find(r, "b");
  const PodOutcome* pc = Find(r, "c");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(a->node, "n2");  // where its only matching PV is
  EXPECT_EQ(a->attempts, 1);
  EXPECT_EQ(b->node, "n1");  // n2 is fuller now
  EXPECT_EQ(b->attempts, 1);
  // b's provisioned volume is the driver's and fills n1's one attachment
  // (the nodes tie otherwise, and n1 would win).
  EXPECT_EQ(pc->node, "n2");
}

TEST(SimulationTest, APodThatFitsNowhereGetsTheFitErrorText) {
  // n1 is too small whatever runs there and n2's taint is not tolerated:
  // both rejections are unresolvable, so preemption cannot help.
  const std::string taint = "taints: [{key: gpu, value: \"true\", effect: NoSchedule}]";
  ClusterObjects c = Load(Node("n1", "1", "8Gi") + Node("n2", "2", "8Gi", taint) + Pod("big", "2", 1));
  SimulationResult r = RunSim(c, Options());
  const PodOutcome* p = Find(r, "big");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->node, "");
  ASSERT_TRUE(p->fit_error.has_value());
  EXPECT_EQ(*p->fit_error,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). no new claims to "
            "deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

// A snapshot's CSIStorageCapacity objects decide where a claim of a
// capacity-tracking driver can be provisioned: only n2's segment has room,
// so n1 is rejected for storage and n2 gets as far as InterPodAffinity
// (after VolumeBinding in the filter order), which a running pod's
// anti-affinity makes fail. Without the capacity both would lack storage.
TEST(SimulationTest, StorageCapacityAndVolumeAttachmentsAreRead) {
  const std::string storage = R"(---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: topolvm.io}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: lvm}
provisioner: topolvm.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: lvm-n2, namespace: topolvm-system}
storageClassName: lvm
nodeTopology: {matchLabels: {kubernetes.io/hostname: n2}}
capacity: 10Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  storageClassName: lvm
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-1}
spec: {attacher: ebs.csi.aws.com, nodeName: n1, source: {persistentVolumeName: pv-1}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  nodeName: n2
  containers: [{name: c, image: pause}]
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: default}
spec:
  containers: [{name: c, image: pause}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
)";
  ClusterObjects c = Load(Node("n1", "4", "8Gi") + Node("n2", "4", "8Gi") + storage);
  ASSERT_EQ(c.csi_storage_capacities.size(), 1u);
  EXPECT_EQ(c.csi_storage_capacities[0]->metadata.namespace_, "topolvm-system");
  ASSERT_EQ(c.volume_attachments.size(), 1u);
  EXPECT_EQ(c.volume_attachments[0]->spec.node_name, "n1");
  SimulationResult r = RunSim(c, Options());
  const PodOutcome* p = Find(r, "app");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->node, "");
  ASSERT_TRUE(p->fit_error.has_value());
  EXPECT_NE(p->fit_error->find("0/2 nodes are available: 1 node(s) did not have enough free storage, 1 node(s) "
                               "didn't match pod anti-affinity rules."),
            std::string::npos)
      << *p->fit_error;
}

TEST(SimulationTest, PreemptionReportsVictimsAndPlacesThePreemptor) {
  for (int minor : {34, 35}) {
    SCOPED_TRACE(minor);
    ClusterObjects c = Load(Node("n1", "2", "8Gi") + Pod("low", "2", 1, 0, "n1") + Pod("high", "1", 2, 100));
    SimulationOptions o = Options();
    o.features = scheduler::framework::FeatureGates::ForMinor(minor);
    SimulationResult r = RunSim(c, o);
    const PodOutcome* p = Find(r, "high");
    ASSERT_NE(p, nullptr);
    // From 1.35 the API server clears the nomination when it binds the pod.
    EXPECT_EQ(p->nominated_node, minor >= 35 ? "" : "n1");
    ASSERT_EQ(p->victims.size(), 1u);
    EXPECT_EQ(p->victims[0].name, "low");
    EXPECT_EQ(p->victims[0].node, "n1");
    EXPECT_EQ(p->node, "n1");
    EXPECT_EQ(p->attempts, 2);
    EXPECT_FALSE(p->fit_error.has_value());
  }
}

TEST(SimulationTest, ExplainGivesEveryNodesVerdictAndScores) {
  constexpr char kConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: "*"}]
      enabled: [{name: NodeResourcesFit, weight: 2}]
)";
  config::LoadResult cfg = config::LoadConfig(kConfig, "config.yaml", scheduler::plugins::InTreePlugins());
  ASSERT_TRUE(cfg.config.has_value());
  SimulationOptions o = Options();
  o.config = *cfg.config;
  o.explain = true;
  ClusterObjects c = Load(Node("n1", "2", "4Gi") + Node("n2", "4", "8Gi") +
                          Node("n3", "8", "8Gi", "taints: [{key: gpu, value: \"true\", effect: NoSchedule}]") +
                          Pod("p", "1", 1));
  SimulationResult r = RunSim(c, o);
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].node, "n2");
  nlohmann::ordered_json j = ReportJson(r)["pods"][0];
  EXPECT_EQ(j["filter"].dump(),
            R"({"n1":"feasible","n2":"feasible","n3":{"plugin":"TaintToleration",)"
            R"x("code":"UnschedulableAndUnresolvable","reason":"node(s) had untolerated taint(s)",)x"
            R"x("reasons":["node(s) had untolerated taint(s)"]}})x");
  // LeastAllocated: n1 (50 cpu + 75 memory) / 2 = 62; n2 (75 + 87) / 2 = 81.
  EXPECT_EQ(j["scores"].dump(),
            R"({"n1":{"plugins":{"NodeResourcesFit":{"raw":62,"normalized":62,"weight":2,"weighted":124}},)"
            R"("total":124},)"
            R"("n2":{"plugins":{"NodeResourcesFit":{"raw":81,"normalized":81,"weight":2,"weighted":162}},)"
            R"("total":162}})");
}

TEST(SimulationTest, ASeedMakesRandomTieBreaksReproducible) {
  std::string yaml;
  for (int i = 0; i < 8; ++i) yaml += Node("n" + std::to_string(i), "64", "256Gi");
  for (int i = 0; i < 20; ++i) yaml += Pod("p" + std::to_string(i), "10m", i);
  ClusterObjects c = Load(yaml);
  SimulationOptions o = Options(TieBreak::kRandom);
  o.seed = 42;
  const std::string first = ReportJson(RunSim(c, o)).dump();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ReportJson(RunSim(c, o)).dump(), first);
  EXPECT_NE(first.find("\"tieBreak\":\"seeded\""), std::string::npos);
}

TEST(SimulationTest, LowestNameBreaksTiesByNodeName) {
  ClusterObjects c = Load(Node("node-b", "4", "8Gi") + Node("node-c", "4", "8Gi") + Node("node-a", "4", "8Gi") +
                          Pod("first", "1", 1) + Pod("second", "1", 2));
  SimulationResult r = RunSim(c, Options(TieBreak::kLowestName));
  ASSERT_EQ(r.pods.size(), 2u);
  EXPECT_EQ(r.pods[0].node, "node-a");
  // node-a is now fuller, so it scores lower: the tie is between b and c.
  EXPECT_EQ(r.pods[1].node, "node-b");
}

TEST(SimulationTest, PodsOfOtherSchedulersAndBoundPodsAreNotScheduled) {
  std::string other = Pod("other", "1", 1);
  other.replace(other.find("spec:\n"), 6, "spec:\n  schedulerName: someone-else\n");
  ClusterObjects c = Load(Node("n1", "4", "8Gi") + Pod("bound", "1", 1, 0, "n1") + other + Pod("mine", "1", 2));
  SimulationResult r = RunSim(c, Options());
  ASSERT_EQ(r.pods.size(), 1u);
  EXPECT_EQ(r.pods[0].name, "mine");
}

// ---- Gangs: Coscheduling with the profile ksched ships (config/ksched-gang.yaml).

constexpr char kGangConfig[] = "config/ksched-gang.yaml";

// PodGroup `name` created at second `created` of 2024-01-01; `extra_spec`
// adds spec fields ("scheduleTimeoutSeconds: 10").
std::string Group(const std::string& name, int min_member, int created, const std::string& extra_spec = "") {
  std::string ts = std::to_string(created);
  if (ts.size() < 2) ts = "0" + ts;
  return "---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  creationTimestamp: \"2024-01-01T00:00:" + ts + "Z\"\nspec:\n  minMember: " +
         std::to_string(min_member) + (extra_spec.empty() ? "" : "\n  " + extra_spec) + "\n";
}

// A 1-CPU member of `group` for the gang profile; `extra_spec` adds spec
// fields.
std::string Member(const std::string& name, const std::string& group, int created,
                   const std::string& extra_spec = "") {
  std::string pod = Pod(name, "1", created);
  pod.replace(pod.find("  uid: "), 0, "  labels: {scheduling.x-k8s.io/pod-group: " + group + "}\n");
  pod.replace(pod.find("spec:\n") + 6, 0, "  schedulerName: ksched-gang\n" + extra_spec);
  return pod;
}

// PodGroup "trio" (minMember 3, created at second 1) and its members trio-0,
// trio-1 and trio-2 (seconds 2 to 4); `group_spec` adds to the group's spec,
// `last_member_spec` to trio-2's.
std::string Trio(const std::string& group_spec = "", const std::string& last_member_spec = "") {
  return Group("trio", 3, 1, group_spec) + Member("trio-0", "trio", 2) + Member("trio-1", "trio", 3) +
         Member("trio-2", "trio", 4, last_member_spec);
}

SimulationOptions GangOptions(const std::string& args = "") {
  SimulationOptions o = Options();
  util::StatusOr<config::KubeSchedulerConfiguration> cfg =
      config::LoadConfigFile(kGangConfig, scheduler::plugins::InTreePlugins());
  EXPECT_TRUE(cfg.ok()) << cfg.status().message();
  if (cfg.ok()) o.config = *cfg;
  if (!args.empty()) {
    // The shipped file with other CoschedulingArgs.
    std::ifstream in(kGangConfig);
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    const size_t at = yaml.find("      permitWaitingTimeSeconds");
    EXPECT_NE(at, std::string::npos);
    yaml = yaml.substr(0, at) + args;
    config::LoadResult r = config::LoadConfig(yaml, kGangConfig, scheduler::plugins::InTreePlugins());
    EXPECT_TRUE(r.config.has_value()) << r.errors.size();
    if (r.config) o.config = *r.config;
  }
  return o;
}

TEST(SimulationGangTest, AGangWithRoomForAllBindsTogether) {
  ClusterObjects c = Load(Node("n1", "3", "8Gi") + Trio());
  ASSERT_EQ(c.pod_groups.size(), 1u);
  SimulationOptions o = GangOptions();
  o.explain = true;
  SimulationResult r = RunSim(c, o);
  EXPECT_TRUE(r.settled);
  ASSERT_EQ(r.pods.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const PodOutcome& p = r.pods[i];
    EXPECT_EQ(p.name, "trio-" + std::to_string(i));
    EXPECT_EQ(p.node, "n1") << p.name;
    EXPECT_EQ(p.attempts, 1) << p.name;
    EXPECT_FALSE(p.fit_error.has_value()) << p.name;
    ASSERT_TRUE(p.explain.has_value()) << p.name;
  }
  // The first two waited at Permit for the third, whose Permit let all in.
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(r.pods[i].explain->permit.has_value()) << r.pods[i].name;
    EXPECT_EQ(r.pods[i].explain->permit->node, "n1");
    EXPECT_EQ(r.pods[i].explain->permit->plugins, std::vector<std::string>{"Coscheduling"});
    EXPECT_EQ(r.pods[i].explain->permit->outcome, "allowed");
  }
  EXPECT_FALSE(r.pods[2].explain->permit.has_value());
  EXPECT_EQ(ReportJson(r)["pods"][0]["permit"].dump(),
            R"({"node":"n1","waitedFor":["Coscheduling"],"outcome":"allowed","message":null})");
}

TEST(SimulationGangTest, AGangWithRoomForTwoOfThreeBindsNoneAndSaysWhy) {
  // Two members fit and wait; the third fits nowhere and its PostFilter
  // rejects them; their release frees room, which requeues the third, which
  // then fits and waits... as in the daemon, for ever: the run stops at the
  // retry horizon with no member bound.
  ClusterObjects c = Load(Node("n1", "2", "8Gi") + Trio());
  SimulationOptions o = GangOptions();
  o.explain = true;
  SimulationResult r = RunSim(c, o);
  EXPECT_FALSE(r.settled);
  ASSERT_EQ(r.pods.size(), 3u);
  for (const PodOutcome& p : r.pods) {
    EXPECT_EQ(p.node, "") << p.name;
    ASSERT_TRUE(p.fit_error.has_value()) << p.name;
    // Coscheduling's reason: the member that did not fit rejected the group,
    // the member was rejected with it, or it waited for the others in vain.
    const bool gang_reason = p.fit_error->find("PodGroup default/trio gets rejected") != std::string::npos ||
                             p.fit_error->find("rejection in PostFilter") != std::string::npos ||
                             p.fit_error->find("at plugin Coscheduling") != std::string::npos ||
                             p.fit_error->find("rejection in Unreserve") != std::string::npos;
    EXPECT_TRUE(gang_reason) << p.name << ": " << *p.fit_error;
    EXPECT_GT(p.attempts, 1) << p.name;
  }
  EXPECT_NE(ReportTable(r).find("Stopped with pods still retrying"), std::string::npos);
}

TEST(SimulationGangTest, ALargerGangWithRoomForHalfAlsoEnds) {
  // Four members, room for two: whichever member fits first wakes its
  // siblings past their backoff, so the members can keep rejecting each
  // other without the clock moving; the run still ends, none bound.
  std::string yaml = Node("n1", "2", "8Gi") + Group("quad", 4, 1);
  for (int i = 0; i < 4; ++i) yaml += Member("quad-" + std::to_string(i), "quad", 2 + i);
  SimulationResult r = RunSim(Load(yaml), GangOptions());
  EXPECT_FALSE(r.settled);
  ASSERT_EQ(r.pods.size(), 4u);
  for (const PodOutcome& p : r.pods) {
    EXPECT_EQ(p.node, "") << p.name;
    EXPECT_TRUE(p.fit_error.has_value()) << p.name;
  }
}

TEST(SimulationGangTest, TwoGangsThatCannotBothFitOlderBindsWholeNewerNone) {
  // Room for four 1-CPU pods; two gangs of three created interleaved: the
  // queue order (the group's creation time) keeps each gang together.
  ClusterObjects c = Load(Node("n1", "2", "8Gi") + Node("n2", "2", "8Gi") + Group("older", 3, 1) +
                          Group("newer", 3, 2) + Member("newer-0", "newer", 3) + Member("older-0", "older", 4) +
                          Member("newer-1", "newer", 5) + Member("older-1", "older", 6) +
                          Member("newer-2", "newer", 7) + Member("older-2", "older", 8));
  SimulationOptions o = GangOptions();
  o.seed = 7;
  SimulationResult r = RunSim(c, o);
  for (const std::string name : {"older-0", "older-1", "older-2"}) {
    const PodOutcome* p = Find(r, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_NE(p->node, "") << name;
    EXPECT_EQ(p->attempts, 1) << name;
  }
  for (const std::string name : {"newer-0", "newer-1", "newer-2"}) {
    const PodOutcome* p = Find(r, name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->node, "") << name;
    EXPECT_TRUE(p->fit_error.has_value()) << name;
  }
  // Cycles released together run on several threads; the report does not
  // depend on their timing.
  const std::string first = ReportJson(r).dump();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ReportJson(RunSim(c, o)).dump(), first);
}

TEST(SimulationGangTest, MembersWaitingForAGatedSiblingAreRejectedAtTheTimeout) {
  // The third member is held by a scheduling gate: the other two wait at
  // Permit until the PodGroup's scheduleTimeoutSeconds, then go back to the
  // queue, where nothing moves them again.
  const std::string gate = "  schedulingGates: [{name: example.com/hold}]\n";
  ClusterObjects c = Load(Node("n1", "8", "8Gi") + Trio("scheduleTimeoutSeconds: 10", gate));
  SimulationOptions o = GangOptions();
  o.explain = true;
  SimulationResult r = RunSim(c, o);
  EXPECT_TRUE(r.settled);
  ASSERT_EQ(r.pods.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    const PodOutcome& p = r.pods[i];
    EXPECT_EQ(p.name, "trio-" + std::to_string(i));
    EXPECT_EQ(p.node, "");
    EXPECT_EQ(p.attempts, 1);
    EXPECT_EQ(p.fit_error.value_or(""),
              "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Coscheduling.");
    ASSERT_TRUE(p.explain && p.explain->permit);
    EXPECT_EQ(p.explain->permit->outcome, "rejected");
    EXPECT_EQ(p.explain->permit->message, *p.fit_error);
  }
  EXPECT_EQ(r.pods[2].name, "trio-2");
  EXPECT_EQ(r.pods[2].gated_by, "SchedulingGates");
  EXPECT_EQ(r.pods[2].attempts, 0);

  // Without a group timeout the profile's permitWaitingTimeSeconds applies.
  ClusterObjects plain = Load(Node("n1", "8", "8Gi") + Trio("", gate));
  SimulationResult r2 = RunSim(plain, GangOptions("      permitWaitingTimeSeconds: 30\n"));
  ASSERT_EQ(r2.pods.size(), 3u);
  EXPECT_EQ(r2.pods[0].fit_error.value_or(""),
            "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Coscheduling.");
}

TEST(SimulationTest, ZeroSeedIsRejected) {
  SimulationOptions o = Options();
  o.seed = 0;
  EXPECT_FALSE(Simulate(ClusterObjects{}, o).ok());
}

}  // namespace
}  // namespace ksched::simulate
