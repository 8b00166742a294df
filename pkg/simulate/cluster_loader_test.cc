#include "pkg/simulate/cluster_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ksched::simulate {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeAndPodList[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
    namespace: shop
  spec:
    containers:
    - name: c
      image: nginx
metadata:
  resourceVersion: ""
)";

TEST(ClusterLoaderTest, ReadsAListWithItems) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText(kNodeAndPodList, "snap.yaml").ok());
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(c.nodes[0]->metadata.name, "n1");
  ASSERT_EQ(c.pods.size(), 1u);
  EXPECT_EQ(c.pods[0]->metadata.namespace_, "shop");
  EXPECT_EQ(c.pods[0]->spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(c.pods[0]->metadata.uid, "pod/shop/web");
  EXPECT_TRUE(l.warnings().empty());
}

TEST(ClusterLoaderTest, TypedListItemsTakeTheListKind) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText("apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n",
                        "nodes.yaml")
                  .ok());
  EXPECT_EQ(l.Finish().nodes.size(), 2u);
}

TEST(ClusterLoaderTest, ReadsMultiDocumentYaml) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText("---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: "
                        "Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
                        "multi.yaml")
                  .ok());
  ClusterObjects c = l.Finish();
  EXPECT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(c.namespaces.size(), 1u);
  ASSERT_EQ(c.pods.size(), 1u);
  EXPECT_EQ(c.pods[0]->metadata.namespace_, "default");
}

TEST(ClusterLoaderTest, ReadsJsonFiles) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText(R"({"kind":"List","apiVersion":"v1","items":[{"kind":"Node","apiVersion":"v1",
                            "metadata":{"name":"j1"}}]})",
                        "snap.json")
                  .ok());
  EXPECT_EQ(l.Finish().nodes.size(), 1u);
}

TEST(ClusterLoaderTest, ReadsFoldersRecursivelyInNameOrder) {
  const fs::path dir = fs::temp_directory_path() / ("ksched_loader_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "b.yaml") << "apiVersion: v1\nkind: Node\nmetadata: {name: second}\n";
  std::ofstream(dir / "a.json") << R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"first"}})";
  std::ofstream(dir / "sub" / "c.yml") << "apiVersion: v1\nkind: Node\nmetadata: {name: third}\n";
  std::ofstream(dir / "notes.txt") << "not: [a manifest";
  ClusterLoader l;
  util::Status s = l.AddPath(dir.string());
  fs::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.message();
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.nodes.size(), 3u);
  EXPECT_EQ(c.nodes[0]->metadata.name, "first");
  EXPECT_EQ(c.nodes[1]->metadata.name, "second");
  EXPECT_EQ(c.nodes[2]->metadata.name, "third");
}

TEST(ClusterLoaderTest, MissingPathIsAnError) {
  ClusterLoader l;
  util::Status s = l.AddPath("/nonexistent/ksched-snapshot.yaml");
  EXPECT_EQ(s.code(), util::StatusCode::kNotFound);
}

TEST(ClusterLoaderTest, UnknownKindsAreSkippedWithAWarningNamingFileAndLine) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\n"
                        "metadata: {name: web, namespace: shop}\n---\napiVersion: apps/v1\nkind: Deployment\n"
                        "metadata: {name: d1}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d2}\n",
                        "snap.yaml")
                  .ok());
  ASSERT_EQ(l.warnings().size(), 2u);
  EXPECT_EQ(l.warnings()[0], "snap.yaml:5: skipping ConfigMap shop/web: kind not read by the scheduler");
  EXPECT_EQ(l.warnings()[1], "snap.yaml:9: skipping 2 objects of kind Deployment: kind not read by the scheduler");
  EXPECT_EQ(l.Finish().nodes.size(), 1u);
}

TEST(ClusterLoaderTest, KeepsWhatSelectsPodsForDefaultSpreading) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
                        "spec: {selector: {app: web}}\n---\n"
                        "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\n"
                        "spec: {selector: {app: old}}\n---\n"
                        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: shop}\n"
                        "spec: {selector: {matchLabels: {app: web}}}\n---\n"
                        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"
                        "spec: {selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}}\n",
                        "snap.yaml")
                  .ok());
  EXPECT_TRUE(l.warnings().empty());
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.services.size(), 1u);
  EXPECT_EQ(c.services[0]->metadata.namespace_, "shop");
  EXPECT_EQ(*c.services[0]->spec.selector, (api::StringMap{{"app", "web"}}));
  ASSERT_EQ(c.replication_controllers.size(), 1u);
  EXPECT_EQ(c.replication_controllers[0]->metadata.namespace_, "default");
  EXPECT_EQ(c.replication_controllers[0]->spec.selector, (api::StringMap{{"app", "old"}}));
  ASSERT_EQ(c.replica_sets.size(), 1u);
  EXPECT_EQ(c.replica_sets[0]->spec.selector->match_labels, (api::StringMap{{"app", "web"}}));
  ASSERT_EQ(c.stateful_sets.size(), 1u);
  EXPECT_EQ(c.stateful_sets[0]->spec.selector->match_expressions.size(), 1u);
  // A bad selector is an error naming the field's line.
  ClusterLoader bad;
  util::Status s = bad.AddText("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs}\nspec:\n  selector: 3\n",
                               "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().substr(0, 26), "bad.yaml:5: ReplicaSet rs:") << s.message();
}

TEST(ClusterLoaderTest, ReadsSchedulerPluginsPodGroupsOnly) {
  // kubectl get podgroups -A -o yaml; Volcano's PodGroup shares the kind.
  ClusterLoader l;
  ASSERT_TRUE(l.AddText(R"(apiVersion: v1
kind: List
items:
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: trio, namespace: ml}
  spec: {minMember: 3, scheduleTimeoutSeconds: 30, minResources: {cpu: "3"}}
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: PodGroup
  metadata: {name: other, namespace: ml}
  spec: {minMember: 2, queue: default}
)",
                        "groups.yaml")
                  .ok());
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.pod_groups.size(), 1u);
  EXPECT_EQ(c.pod_groups[0]->metadata.namespace_, "ml");
  EXPECT_EQ(c.pod_groups[0]->metadata.uid, "podgroup/ml/trio");
  EXPECT_EQ(c.pod_groups[0]->spec.min_member, 3);
  EXPECT_EQ(c.pod_groups[0]->spec.schedule_timeout_seconds, 30);
  ASSERT_EQ(l.warnings().size(), 1u);
  EXPECT_EQ(l.warnings()[0],
            "groups.yaml:8: skipping scheduling.volcano.sh/v1beta1 PodGroup ml/other: kind not read by the scheduler");

  ClusterLoader bad;
  util::Status s = bad.AddText(
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec:\n  minMember: many\n",
      "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.yaml:5: PodGroup g: spec.minMember"), std::string::npos) << s.message();
}

TEST(ClusterLoaderTest, MalformedFieldIsAnErrorWithFileLineAndField) {
  ClusterLoader l;
  util::Status s = l.AddText(kNodeAndPodList, "snap.yaml");
  ASSERT_TRUE(s.ok());
  s = l.AddText(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: web
  spec:
    containers:
    - name: c
      resources:
        requests:
          cpu: lots
)",
                "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("bad.yaml:13: Pod web: spec.containers[0].resources.requests.cpu: ", 0), 0u)
      << s.message();
}

TEST(ClusterLoaderTest, YamlSyntaxErrorNamesTheLine) {
  ClusterLoader l;
  util::Status s = l.AddText("apiVersion: v1\nkind: Node\nmetadata:\n  name: [a\n", "broken.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("broken.yaml:", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("yaml: line"), std::string::npos) << s.message();
}

TEST(ClusterLoaderTest, JsonSyntaxErrorNamesTheLine) {
  ClusterLoader l;
  util::Status s = l.AddText("{\n  \"kind\": \"Node\",\n  \"metadata\": {\"name\": }\n}\n", "broken.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("broken.json:3: invalid JSON", 0), 0u) << s.message();
}

TEST(ClusterLoaderTest, PriorityClassesFillMissingPriorities) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText(R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {priorityClassName: high}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {priority: 5, priorityClassName: high}
---
apiVersion: v1
kind: Pod
metadata: {name: done}
status: {phase: Succeeded}
)",
                        "pc.yaml")
                  .ok());
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.pods.size(), 3u);  // the Succeeded pod is dropped
  EXPECT_EQ(c.pods[0]->spec.priority, 1000);
  EXPECT_EQ(c.pods[1]->spec.priority, 10);
  EXPECT_EQ(c.pods[2]->spec.priority, 5);
}

TEST(ClusterLoaderTest, DuplicatesKeepTheLaterCopyWithAWarning) {
  ClusterLoader l;
  ASSERT_TRUE(l.AddText("kind: Node\nmetadata: {name: a, labels: {v: '1'}}\n---\nkind: Node\nmetadata: {name: a, "
                        "labels: {v: '2'}}\n",
                        "dup.yaml")
                  .ok());
  ASSERT_EQ(l.warnings().size(), 1u);
  EXPECT_EQ(l.warnings()[0], "dup.yaml:4: Node /a appears again; the later copy is kept");
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.nodes.size(), 1u);
  EXPECT_EQ(c.nodes[0]->metadata.labels.at("v"), "2");
}

constexpr char kDraObjects[] = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  nodeName: n1
  devices:
  - name: gpu-0
    attributes:
      gpu.example.com/model: {string: h100}
    capacity:
      gpu.example.com/memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
    - name: all
      exactly: {deviceClassName: gpu, allocationMode: All}
    - name: pick
      firstAvailable:
      - {name: big, deviceClassName: gpu, count: 2}
      - {name: small, deviceClassName: gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: tpl}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu}
)";

TEST(ClusterLoaderTest, ReadsDraObjectsAndDefaultsTheirRequests) {
  ClusterLoader l;
  util::Status s = l.AddText(kDraObjects, "dra.yaml");
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(l.warnings().empty()) << l.warnings().front();
  ClusterObjects c = l.Finish();
  ASSERT_EQ(c.device_classes.size(), 1u);
  ASSERT_EQ(c.device_classes[0]->spec.selectors.size(), 1u);
  EXPECT_EQ(c.device_classes[0]->spec.selectors[0].cel->expression, "device.driver == \"gpu.example.com\"");
  ASSERT_EQ(c.resource_slices.size(), 1u);
  EXPECT_EQ(c.resource_slices[0]->spec.node_name, "n1");
  ASSERT_EQ(c.resource_slices[0]->spec.devices.size(), 1u);
  EXPECT_EQ(c.resource_slices[0]->spec.devices[0].capacity.at("gpu.example.com/memory").value, "80Gi");
  EXPECT_EQ(c.resource_slices[0]->metadata.uid, "resourceslice//n1-gpu");

  ASSERT_EQ(c.resource_claims.size(), 1u);
  const api::ResourceClaim& claim = *c.resource_claims[0];
  EXPECT_EQ(claim.metadata.namespace_, "ml");
  EXPECT_EQ(claim.metadata.uid, "resourceclaim/ml/one");
  ASSERT_EQ(claim.spec.devices.requests.size(), 3u);
  // As the API server defaults them: ExactCount of 1; All keeps count 0.
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->allocation_mode, "ExactCount");
  EXPECT_EQ(claim.spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(claim.spec.devices.requests[1].exactly->allocation_mode, "All");
  EXPECT_EQ(claim.spec.devices.requests[1].exactly->count, 0);
  const auto& subs = claim.spec.devices.requests[2].first_available;
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].allocation_mode, "ExactCount");
  EXPECT_EQ(subs[0].count, 2);
  EXPECT_EQ(subs[1].count, 1);

  ASSERT_EQ(c.resource_claim_templates.size(), 1u);
  EXPECT_EQ(c.resource_claim_templates[0]->metadata.namespace_, "default");
  EXPECT_EQ(c.resource_claim_templates[0]->spec.spec.devices.requests[0].exactly->count, 1);
}

TEST(ClusterLoaderTest, BadDeviceCapacityNamesTheLine) {
  ClusterLoader l;
  util::Status s = l.AddText(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: x\n"
      "    capacity:\n      d/memory: {value: lots}\n",
      "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bad.yaml:11: ResourceSlice s: "), std::string::npos) << s.message();
}

TEST(ClusterLoaderTest, LineOfPathFindsNestedFieldsAndDottedKeys) {
  constexpr char kText[] = "a: 1\n---\nmetadata:\n  labels:\n    app.kubernetes.io/name: x\nitems:\n- b: 1\n- b: 2\n";
  EXPECT_EQ(LineOfPath(kText, 1, "metadata.labels.app.kubernetes.io/name"), 5);
  EXPECT_EQ(LineOfPath(kText, 1, "items[1].b"), 8);
  EXPECT_EQ(LineOfPath(kText, 1, "items[1].missing"), 8);
  EXPECT_EQ(LineOfPath(kText, 0, "a"), 1);
}

}  // namespace
}  // namespace ksched::simulate
