// Decodes the shared Kubernetes fixtures: the apimachinery round-trip files
// (every API field set), scheduler_perf templates and example manifests.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/api/codec.h"
#include "pkg/api/yaml.h"

namespace ksched::api {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixtures = "../shared/fixtures";
const fs::path kApiFixtures = kFixtures / "k8s-api";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Parses a fixture as JSON or YAML by its extension.
json LoadDocument(const fs::path& path) {
  const std::string text = ReadFile(path);
  auto doc = path.extension() == ".json" ? ParseJson(text) : YamlToJson(text);
  EXPECT_TRUE(doc.ok()) << path << ": " << doc.status().ToString();
  return doc.ok() ? *doc : json();
}

template <class T>
T Load(const std::string& file) {
  auto obj = FromJson<T>(LoadDocument(kApiFixtures / file));
  EXPECT_TRUE(obj.ok()) << file << ": " << obj.status().ToString();
  return obj.ok() ? *obj : T{};
}

// Re-encodes a decoded document, or returns the decode error.
using Reencoder = std::function<util::StatusOr<json>(const json&)>;

// Also checks that ToJsonText writes what ToJson encodes.
template <class T>
util::StatusOr<json> Reencode(const json& doc) {
  auto obj = FromJson<T>(doc);
  if (!obj.ok()) return obj.status();
  json encoded = ToJson(*obj);
  auto text = ParseJson(ToJsonText(*obj));
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (text.ok()) {
    EXPECT_EQ(*text, encoded);
  }
  return encoded;
}

struct FixtureKind {
  const char* prefix;  // file name prefix, up to and including the kind's trailing dot
  Reencoder reencode;  // empty: no ksched type, the file is only parsed
  // Whether our encoding uses the fixture's field names (core/v1 Events are
  // read through their events.k8s.io/v1 equivalents).
  bool same_shape;
};

const std::vector<FixtureKind>& FixtureKinds() {
  static const std::vector<FixtureKind> kinds = {
      {"coordination.k8s.io.v1.Lease.", Reencode<Lease>, true},
      {"core.v1.Binding.", Reencode<Binding>, true},
      {"core.v1.Event.", Reencode<Event>, false},
      {"core.v1.Node.", Reencode<Node>, true},
      {"core.v1.PersistentVolume.", Reencode<PersistentVolume>, true},
      {"core.v1.PersistentVolumeClaim.", Reencode<PersistentVolumeClaim>, true},
      {"core.v1.Pod.", Reencode<Pod>, true},
      {"core.v1.Service.", nullptr, true},
      {"events.k8s.io.v1.Event.", Reencode<Event>, true},
      {"policy.v1.PodDisruptionBudget.", Reencode<PodDisruptionBudget>, true},
      {"storage.k8s.io.v1.CSIDriver.", Reencode<CSIDriver>, true},
      {"storage.k8s.io.v1.CSINode.", Reencode<CSINode>, true},
      {"storage.k8s.io.v1.StorageClass.", Reencode<StorageClass>, true},
  };
  return kinds;
}

const FixtureKind* KindOf(const std::string& file_name) {
  for (const FixtureKind& kind : FixtureKinds()) {
    if (file_name.rfind(kind.prefix, 0) == 0) return &kind;
  }
  return nullptr;
}

std::vector<fs::path> ApiFixtureFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kApiFixtures)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".json" || ext == ".yaml")) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every member of `part` is in `whole` with the same value: objects
// recursively, arrays element by element. Our encoding keeps a subset of
// the API's fields, so it must be a subset of the fixture it came from.
testing::AssertionResult IsSubset(const json& part, const json& whole, const std::string& path) {
  if (part.is_object()) {
    if (!whole.is_object()) return testing::AssertionFailure() << path << ": not an object";
    for (const auto& [key, value] : part.items()) {
      if (!whole.contains(key)) return testing::AssertionFailure() << path << "." << key << ": extra";
      auto r = IsSubset(value, whole[key], path + "." + key);
      if (!r) return r;
    }
    return testing::AssertionSuccess();
  }
  if (part.is_array()) {
    if (!whole.is_array() || whole.size() != part.size()) {
      return testing::AssertionFailure() << path << ": array differs";
    }
    for (size_t i = 0; i < part.size(); ++i) {
      auto r = IsSubset(part[i], whole[i], path + "[" + std::to_string(i) + "]");
      if (!r) return r;
    }
    return testing::AssertionSuccess();
  }
  if (part != whole) {
    return testing::AssertionFailure() << path << ": " << part.dump() << " != " << whole.dump();
  }
  return testing::AssertionSuccess();
}

TEST(FixturesTest, EveryApiFixtureDecodes) {
  const auto files = ApiFixtureFiles();
  ASSERT_GE(files.size(), 27u);
  int typed = 0;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    const std::string name = path.filename().string();
    const FixtureKind* kind = KindOf(name);
    ASSERT_NE(kind, nullptr) << "no decoder chosen for " << name << ": add it to FixtureKinds()";
    const json doc = LoadDocument(path);
    ASSERT_TRUE(doc.is_object());
    if (!kind->reencode) continue;
    auto encoded = kind->reencode(doc);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    ++typed;
    if (kind->same_shape) {
      EXPECT_TRUE(IsSubset(*encoded, doc, ""));
    }
    // FromJson(ToJson(x)) == x, compared through the encoding.
    auto again = kind->reencode(*encoded);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(*again, *encoded);
  }
  EXPECT_GE(typed, 24);
}

TEST(FixturesTest, YamlAndJsonFixturesAgree) {
  int pairs = 0;
  for (const fs::path& yaml_path : ApiFixtureFiles()) {
    if (yaml_path.extension() != ".yaml") continue;
    fs::path json_path = yaml_path;
    json_path.replace_extension(".json");
    if (!fs::exists(json_path)) continue;
    SCOPED_TRACE(yaml_path.string());
    const json from_yaml = LoadDocument(yaml_path);
    const json from_json = LoadDocument(json_path);
    // The YAML converter reproduces the JSON document exactly...
    EXPECT_EQ(from_yaml, from_json);
    // ...and so both decode to the same object.
    const FixtureKind* kind = KindOf(yaml_path.filename().string());
    ASSERT_NE(kind, nullptr);
    if (kind->reencode) {
      auto a = kind->reencode(from_yaml);
      auto b = kind->reencode(from_json);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b);
    }
    ++pairs;
  }
  EXPECT_GE(pairs, 13);
}

// ---------------------------------------------------------------- values

Time TimeOf(const char* text) { return ParseTime(text).value(); }

const Quantity kZero = Quantity::MustParse("0");

TEST(FixturesTest, Pod) {
  const Pod pod = Load<Pod>("core.v1.Pod.json");
  EXPECT_EQ(pod.metadata.name, "nameValue");
  EXPECT_EQ(pod.metadata.namespace_, "namespaceValue");
  EXPECT_EQ(pod.metadata.generation, 7);
  EXPECT_EQ(pod.metadata.creation_timestamp, TimeOf("2008-01-01T01:01:01Z"));
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_EQ(pod.metadata.owner_references[0].controller, true);
  EXPECT_EQ(pod.metadata.labels.at("labelsKey"), "labelsValue");
  EXPECT_EQ(pod.metadata.finalizers, std::vector<std::string>{"finalizersValue"});

  const PodSpec& s = pod.spec;
  EXPECT_EQ(s.node_name, "nodeNameValue");
  EXPECT_EQ(s.scheduler_name, "schedulerNameValue");
  EXPECT_EQ(s.priority, 25);
  EXPECT_EQ(s.priority_class_name, "priorityClassNameValue");
  EXPECT_EQ(s.preemption_policy, "preemptionPolicyValue");
  EXPECT_EQ(s.overhead.at("overheadKey"), kZero);
  EXPECT_EQ(s.node_selector.at("nodeSelectorKey"), "nodeSelectorValue");
  EXPECT_TRUE(s.host_network);

  ASSERT_EQ(s.containers.size(), 1u);
  const Container& c = s.containers[0];
  EXPECT_EQ(c.name, "nameValue");
  EXPECT_EQ(c.image, "imageValue");
  EXPECT_EQ(c.resources.limits.at("limitsKey"), kZero);
  EXPECT_EQ(c.resources.requests.at("requestsKey"), kZero);
  ASSERT_EQ(c.ports.size(), 1u);
  EXPECT_EQ(c.ports[0].host_port, 2);
  EXPECT_EQ(c.ports[0].container_port, 3);
  EXPECT_EQ(c.ports[0].protocol, "protocolValue");
  EXPECT_EQ(c.ports[0].host_ip, "hostIPValue");
  ASSERT_EQ(s.init_containers.size(), 1u);
  EXPECT_EQ(s.init_containers[0].restart_policy, "restartPolicyValue");

  ASSERT_EQ(s.tolerations.size(), 1u);
  EXPECT_EQ(s.tolerations[0].key, "keyValue");
  EXPECT_EQ(s.tolerations[0].operator_, "operatorValue");
  EXPECT_EQ(s.tolerations[0].value, "valueValue");
  EXPECT_EQ(s.tolerations[0].effect, "effectValue");
  EXPECT_EQ(s.tolerations[0].toleration_seconds, 5);

  ASSERT_TRUE(s.affinity.has_value());
  const NodeAffinity& na = s.affinity->node_affinity.value();
  const auto& required = na.required_during_scheduling_ignored_during_execution.value();
  ASSERT_EQ(required.node_selector_terms.size(), 1u);
  EXPECT_EQ(required.node_selector_terms[0].match_expressions[0].key, "keyValue");
  EXPECT_EQ(required.node_selector_terms[0].match_fields[0].values,
            std::vector<std::string>{"valuesValue"});
  ASSERT_EQ(na.preferred_during_scheduling_ignored_during_execution.size(), 1u);
  EXPECT_EQ(na.preferred_during_scheduling_ignored_during_execution[0].weight, 1);
  const PodAffinityTerm& term =
      s.affinity->pod_affinity->required_during_scheduling_ignored_during_execution.at(0);
  EXPECT_EQ(term.topology_key, "topologyKeyValue");
  EXPECT_EQ(term.namespaces, std::vector<std::string>{"namespacesValue"});
  EXPECT_EQ(term.label_selector->match_labels.at("matchLabelsKey"), "matchLabelsValue");
  EXPECT_EQ(term.namespace_selector->match_expressions.at(0).operator_, "operatorValue");
  EXPECT_EQ(term.match_label_keys, std::vector<std::string>{"matchLabelKeysValue"});
  EXPECT_EQ(term.mismatch_label_keys, std::vector<std::string>{"mismatchLabelKeysValue"});
  ASSERT_TRUE(s.affinity->pod_anti_affinity.has_value());
  EXPECT_EQ(s.affinity->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution
                .at(0).weight,
            1);

  ASSERT_EQ(s.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& tsc = s.topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 1);
  EXPECT_EQ(tsc.topology_key, "topologyKeyValue");
  EXPECT_EQ(tsc.when_unsatisfiable, "whenUnsatisfiableValue");
  EXPECT_EQ(tsc.min_domains, 5);
  EXPECT_EQ(tsc.node_affinity_policy, "nodeAffinityPolicyValue");
  EXPECT_EQ(tsc.node_taints_policy, "nodeTaintsPolicyValue");
  EXPECT_EQ(tsc.match_label_keys, std::vector<std::string>{"matchLabelKeysValue"});
  EXPECT_EQ(tsc.label_selector->match_labels.at("matchLabelsKey"), "matchLabelsValue");

  ASSERT_EQ(s.scheduling_gates.size(), 1u);
  EXPECT_EQ(s.scheduling_gates[0].name, "nameValue");

  // The round-trip fixture fills every source of one volume.
  ASSERT_EQ(s.volumes.size(), 1u);
  const Volume& v = s.volumes[0];
  EXPECT_EQ(v.name, "nameValue");
  EXPECT_EQ(v.persistent_volume_claim->claim_name, "claimNameValue");
  EXPECT_TRUE(v.persistent_volume_claim->read_only);
  EXPECT_EQ(v.gce_persistent_disk->pd_name, "pdNameValue");
  EXPECT_EQ(v.gce_persistent_disk->partition, 3);
  EXPECT_EQ(v.aws_elastic_block_store->volume_id, "volumeIDValue");
  EXPECT_EQ(v.azure_disk->disk_name, "diskNameValue");
  EXPECT_EQ(v.azure_disk->data_disk_uri, "diskURIValue");
  EXPECT_EQ(v.azure_disk->read_only, true);
  EXPECT_EQ(v.iscsi->target_portal, "targetPortalValue");
  EXPECT_EQ(v.iscsi->iqn, "iqnValue");
  EXPECT_EQ(v.iscsi->lun, 3);
  EXPECT_EQ(v.iscsi->portals, std::vector<std::string>{"portalsValue"});
  EXPECT_EQ(v.rbd->monitors, std::vector<std::string>{"monitorsValue"});
  EXPECT_EQ(v.rbd->pool, "poolValue");
  EXPECT_EQ(v.csi->driver, "driverValue");
  EXPECT_EQ(v.csi->volume_attributes.at("volumeAttributesKey"), "volumeAttributesValue");
  const PersistentVolumeClaimTemplate& tmpl = v.ephemeral->volume_claim_template.value();
  EXPECT_EQ(tmpl.metadata.name, "nameValue");
  ASSERT_NE(tmpl.spec, nullptr);
  EXPECT_EQ(tmpl.spec->storage_class_name, "storageClassNameValue");
  EXPECT_EQ(tmpl.spec->volume_attributes_class_name, "volumeAttributesClassNameValue");
  EXPECT_EQ(tmpl.spec->resources.requests.at("requestsKey"), kZero);
  EXPECT_EQ(v.cinder->volume_id, "volumeIDValue");
  EXPECT_TRUE(v.cinder->read_only);
  EXPECT_EQ(v.portworx_volume->fs_type, "fsTypeValue");
  EXPECT_EQ(v.azure_disk->kind, "kindValue");
  // The first untyped source in key order.
  EXPECT_EQ(v.other_source, "azureFile");

  const PodStatus& st = pod.status;
  EXPECT_EQ(st.phase, "phaseValue");
  EXPECT_EQ(st.nominated_node_name, "nominatedNodeNameValue");
  EXPECT_EQ(st.start_time, TimeOf("2007-01-01T01:01:01Z"));
  ASSERT_EQ(st.conditions.size(), 1u);
  EXPECT_EQ(st.conditions[0].observed_generation, 7);
  EXPECT_EQ(st.conditions[0].last_probe_time, TimeOf("2003-01-01T01:01:01Z"));
}

TEST(FixturesTest, OlderPod) {
  const Pod pod = Load<Pod>("core.v1.Pod.v1.28.0.json");
  EXPECT_EQ(pod.spec.priority, 25);
  EXPECT_EQ(pod.spec.scheduling_gates.at(0).name, "nameValue");
  EXPECT_EQ(pod.status.nominated_node_name, "nominatedNodeNameValue");
}

TEST(FixturesTest, Node) {
  const Node node = Load<Node>("core.v1.Node.yaml");
  EXPECT_EQ(node.metadata.name, "nameValue");
  EXPECT_TRUE(node.spec.unschedulable);
  EXPECT_EQ(node.spec.pod_cidr, "podCIDRValue");
  EXPECT_EQ(node.spec.provider_id, "providerIDValue");
  ASSERT_EQ(node.spec.taints.size(), 1u);
  EXPECT_EQ(node.spec.taints[0].key, "keyValue");
  EXPECT_EQ(node.spec.taints[0].value, "valueValue");
  EXPECT_EQ(node.spec.taints[0].effect, "effectValue");
  EXPECT_EQ(node.spec.taints[0].time_added, TimeOf("2004-01-01T01:01:01Z"));
  EXPECT_EQ(node.status.allocatable->at("allocatableKey"), kZero);
  ASSERT_EQ(node.status.images.size(), 1u);
  EXPECT_EQ(node.status.images[0].names, std::vector<std::string>{"namesValue"});
  EXPECT_EQ(node.status.images[0].size_bytes, 2);
  ASSERT_EQ(node.status.conditions.size(), 1u);
  EXPECT_EQ(node.status.conditions[0].last_heartbeat_time, TimeOf("2003-01-01T01:01:01Z"));
  EXPECT_EQ(node.status.addresses.at(0).address, "addressValue");
  EXPECT_EQ(node.status.phase, "phaseValue");
}

TEST(FixturesTest, PersistentVolume) {
  const PersistentVolume pv = Load<PersistentVolume>("core.v1.PersistentVolume.json");
  const PersistentVolumeSpec& s = pv.spec;
  EXPECT_EQ(s.capacity.at("capacityKey"), kZero);
  EXPECT_EQ(s.access_modes, std::vector<std::string>{"accessModesValue"});
  EXPECT_EQ(s.volume_mode, "volumeModeValue");
  EXPECT_EQ(s.storage_class_name, "storageClassNameValue");
  EXPECT_EQ(s.persistent_volume_reclaim_policy, "persistentVolumeReclaimPolicyValue");
  EXPECT_EQ(s.mount_options, std::vector<std::string>{"mountOptionsValue"});
  ASSERT_TRUE(s.claim_ref.has_value());
  EXPECT_EQ(s.claim_ref->kind, "kindValue");
  EXPECT_EQ(s.claim_ref->namespace_, "namespaceValue");
  EXPECT_EQ(s.claim_ref->name, "nameValue");
  EXPECT_EQ(s.claim_ref->uid, "uidValue");
  EXPECT_EQ(s.claim_ref->field_path, "fieldPathValue");
  const NodeSelector& required = s.node_affinity->required.value();
  EXPECT_EQ(required.node_selector_terms.at(0).match_expressions.at(0).operator_,
            "operatorValue");
  EXPECT_EQ(required.node_selector_terms.at(0).match_fields.at(0).key, "keyValue");
  ASSERT_TRUE(s.csi.has_value());
  EXPECT_EQ(s.csi->driver, "driverValue");
  EXPECT_EQ(s.csi->volume_handle, "volumeHandleValue");
  EXPECT_EQ(s.csi->fs_type, "fsTypeValue");
  EXPECT_TRUE(s.csi->read_only);
  EXPECT_EQ(s.csi->volume_attributes.at("volumeAttributesKey"), "volumeAttributesValue");
  EXPECT_EQ(s.gce_persistent_disk->pd_name, "pdNameValue");
  EXPECT_EQ(s.aws_elastic_block_store->partition, 3);
  EXPECT_EQ(s.azure_disk->data_disk_uri, "diskURIValue");
  EXPECT_EQ(s.cinder->volume_id, "volumeIDValue");
  EXPECT_EQ(s.portworx_volume->volume_id, "volumeIDValue");
  EXPECT_EQ(s.other_source, "azureFile");
  EXPECT_EQ(pv.status.phase, "phaseValue");
  EXPECT_EQ(pv.status.reason, "reasonValue");
  EXPECT_EQ(pv.status.message, "messageValue");
}

TEST(FixturesTest, PersistentVolumeClaim) {
  const auto pvc = Load<PersistentVolumeClaim>("core.v1.PersistentVolumeClaim.yaml");
  EXPECT_EQ(pvc.spec.storage_class_name, "storageClassNameValue");
  EXPECT_EQ(pvc.spec.volume_name, "volumeNameValue");
  EXPECT_EQ(pvc.spec.volume_mode, "volumeModeValue");
  EXPECT_EQ(pvc.spec.volume_attributes_class_name, "volumeAttributesClassNameValue");
  EXPECT_EQ(pvc.spec.access_modes, std::vector<std::string>{"accessModesValue"});
  EXPECT_EQ(pvc.spec.selector->match_labels.at("matchLabelsKey"), "matchLabelsValue");
  EXPECT_EQ(pvc.spec.resources.requests.at("requestsKey"), kZero);
  EXPECT_EQ(pvc.spec.resources.limits.at("limitsKey"), kZero);
  EXPECT_EQ(pvc.status.phase, "phaseValue");
  EXPECT_EQ(pvc.status.capacity.at("capacityKey"), kZero);
  EXPECT_EQ(pvc.status.access_modes, std::vector<std::string>{"accessModesValue"});
}

TEST(FixturesTest, StorageClass) {
  const auto sc = Load<StorageClass>("storage.k8s.io.v1.StorageClass.json");
  EXPECT_EQ(sc.provisioner, "provisionerValue");
  EXPECT_EQ(sc.parameters.at("parametersKey"), "parametersValue");
  EXPECT_EQ(sc.reclaim_policy, "reclaimPolicyValue");
  EXPECT_EQ(sc.mount_options, std::vector<std::string>{"mountOptionsValue"});
  EXPECT_EQ(sc.allow_volume_expansion, true);
  EXPECT_EQ(sc.volume_binding_mode, "volumeBindingModeValue");
  ASSERT_EQ(sc.allowed_topologies.size(), 1u);
  const auto& req = sc.allowed_topologies[0].match_label_expressions.at(0);
  EXPECT_EQ(req.key, "keyValue");
  EXPECT_EQ(req.values, std::vector<std::string>{"valuesValue"});
}

TEST(FixturesTest, CSINode) {
  const auto csi_node = Load<CSINode>("storage.k8s.io.v1.CSINode.yaml");
  ASSERT_EQ(csi_node.spec.drivers.size(), 1u);
  const CSINodeDriver& d = csi_node.spec.drivers[0];
  EXPECT_EQ(d.name, "nameValue");
  EXPECT_EQ(d.node_id, "nodeIDValue");
  EXPECT_EQ(d.topology_keys, std::vector<std::string>{"topologyKeysValue"});
  ASSERT_TRUE(d.allocatable.has_value());
  EXPECT_EQ(d.allocatable->count, 1);
}

TEST(FixturesTest, CSIDriver) {
  const auto driver = Load<CSIDriver>("storage.k8s.io.v1.CSIDriver.json");
  const CSIDriverSpec& s = driver.spec;
  EXPECT_EQ(s.attach_required, true);
  EXPECT_EQ(s.pod_info_on_mount, true);
  EXPECT_EQ(s.storage_capacity, true);
  EXPECT_EQ(s.fs_group_policy, "fsGroupPolicyValue");
  EXPECT_EQ(s.requires_republish, true);
  EXPECT_EQ(s.se_linux_mount, true);
  EXPECT_EQ(s.volume_lifecycle_modes, std::vector<std::string>{"volumeLifecycleModesValue"});
  EXPECT_EQ(s.node_allocatable_update_period_seconds, 9);
}

TEST(FixturesTest, PodDisruptionBudget) {
  const auto pdb = Load<PodDisruptionBudget>("policy.v1.PodDisruptionBudget.yaml");
  ASSERT_TRUE(pdb.spec.min_available.has_value());
  EXPECT_FALSE(pdb.spec.min_available->is_int);
  EXPECT_EQ(pdb.spec.min_available->str_value, "minAvailableValue");
  EXPECT_EQ(pdb.spec.max_unavailable->str_value, "maxUnavailableValue");
  EXPECT_EQ(pdb.spec.selector->match_expressions.at(0).values,
            std::vector<std::string>{"valuesValue"});
  EXPECT_EQ(pdb.spec.unhealthy_pod_eviction_policy, "unhealthyPodEvictionPolicyValue");
  EXPECT_EQ(pdb.status.observed_generation, 1);
  ASSERT_EQ(pdb.status.disrupted_pods.count("disruptedPodsKey"), 1u);
  EXPECT_EQ(pdb.status.disruptions_allowed, 3);
  EXPECT_EQ(pdb.status.current_healthy, 4);
  EXPECT_EQ(pdb.status.desired_healthy, 5);
  EXPECT_EQ(pdb.status.expected_pods, 6);
  ASSERT_EQ(pdb.status.conditions.size(), 1u);
  EXPECT_EQ(pdb.status.conditions[0].observed_generation, 3);
  EXPECT_EQ(pdb.status.conditions[0].last_transition_time, TimeOf("2004-01-01T01:01:01Z"));
}

TEST(FixturesTest, Lease) {
  const auto lease = Load<Lease>("coordination.k8s.io.v1.Lease.json");
  EXPECT_EQ(lease.spec.holder_identity, "holderIdentityValue");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 2);
  EXPECT_EQ(lease.spec.acquire_time, TimeOf("2003-01-01T01:01:01.000003Z"));
  EXPECT_EQ(lease.spec.renew_time, TimeOf("2004-01-01T01:01:01.000004Z"));
  EXPECT_EQ(lease.spec.lease_transitions, 5);
  EXPECT_EQ(lease.spec.strategy, "strategyValue");
  EXPECT_EQ(lease.spec.preferred_holder, "preferredHolderValue");
  EXPECT_EQ(ToJson(lease)["spec"]["renewTime"], "2004-01-01T01:01:01.000004Z");
}

TEST(FixturesTest, Binding) {
  const auto binding = Load<Binding>("core.v1.Binding.json");
  EXPECT_EQ(binding.metadata.name, "nameValue");
  EXPECT_EQ(binding.target.kind, "kindValue");
  EXPECT_EQ(binding.target.name, "nameValue");
  EXPECT_EQ(binding.target.resource_version, "resourceVersionValue");
}

TEST(FixturesTest, EventsV1Event) {
  const auto event = Load<Event>("events.k8s.io.v1.Event.yaml");
  EXPECT_EQ(event.event_time, TimeOf("2002-01-01T01:01:01.000002Z"));
  ASSERT_TRUE(event.series.has_value());
  EXPECT_EQ(event.series->count, 1);
  EXPECT_EQ(event.reporting_controller, "reportingControllerValue");
  EXPECT_EQ(event.reporting_instance, "reportingInstanceValue");
  EXPECT_EQ(event.action, "actionValue");
  EXPECT_EQ(event.reason, "reasonValue");
  EXPECT_EQ(event.regarding.name, "nameValue");
  EXPECT_EQ(event.related->field_path, "fieldPathValue");
  EXPECT_EQ(event.note, "noteValue");
  EXPECT_EQ(event.type, "typeValue");
  EXPECT_EQ(event.deprecated_source_component, "componentValue");
  EXPECT_EQ(event.deprecated_source_host, "hostValue");
  EXPECT_EQ(event.deprecated_first_timestamp, TimeOf("2013-01-01T01:01:01Z"));
  EXPECT_EQ(event.deprecated_last_timestamp, TimeOf("2014-01-01T01:01:01Z"));
  EXPECT_EQ(event.deprecated_count, 15);
}

// A core/v1 Event decodes into the events.k8s.io/v1 model under the
// conversion the API server applies between the two.
TEST(FixturesTest, CoreV1Event) {
  const auto event = Load<Event>("core.v1.Event.json");
  EXPECT_EQ(event.regarding.kind, "kindValue");
  EXPECT_EQ(event.regarding.field_path, "fieldPathValue");
  EXPECT_EQ(event.note, "messageValue");
  EXPECT_EQ(event.reason, "reasonValue");
  EXPECT_EQ(event.deprecated_source_component, "componentValue");
  EXPECT_EQ(event.deprecated_source_host, "hostValue");
  EXPECT_EQ(event.deprecated_first_timestamp, TimeOf("2006-01-01T01:01:01Z"));
  EXPECT_EQ(event.deprecated_last_timestamp, TimeOf("2007-01-01T01:01:01Z"));
  EXPECT_EQ(event.deprecated_count, 8);
  EXPECT_EQ(event.type, "typeValue");
  EXPECT_EQ(event.event_time, TimeOf("2010-01-01T01:01:01.000010Z"));
  EXPECT_EQ(event.series->last_observed_time, TimeOf("2002-01-01T01:01:01.000002Z"));
  EXPECT_EQ(event.action, "actionValue");
  EXPECT_EQ(event.related->name, "nameValue");
  EXPECT_EQ(event.reporting_controller, "reportingComponentValue");
  EXPECT_EQ(event.reporting_instance, "reportingInstanceValue");
}

// ---------------------------------------------------------------- templates

// Every scheduler_perf template and example manifest document of kind Pod
// or Node decodes; returns them by file name.
std::map<std::string, std::vector<json>> DocumentsByKind(const std::string& kind) {
  std::map<std::string, std::vector<json>> out;
  for (const fs::path& dir : {kFixtures / "scheduler_perf", kFixtures / "manifests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      auto docs = YamlDocumentsToJson(ReadFile(entry.path()));
      EXPECT_TRUE(docs.ok()) << entry.path() << ": " << docs.status().ToString();
      if (!docs.ok()) continue;
      for (json& doc : *docs) {
        if (doc.is_object() && doc.value("kind", "") == kind) {
          out[entry.path().filename().string()].push_back(std::move(doc));
        }
      }
    }
  }
  return out;
}

template <class T>
std::map<std::string, std::vector<T>> DecodeAll(const std::string& kind) {
  std::map<std::string, std::vector<T>> out;
  for (const auto& [file, docs] : DocumentsByKind(kind)) {
    for (const json& doc : docs) {
      auto obj = FromJson<T>(doc);
      EXPECT_TRUE(obj.ok()) << file << ": " << obj.status().ToString();
      if (obj.ok()) out[file].push_back(std::move(*obj));
    }
  }
  return out;
}

TEST(FixturesTest, SchedulerPerfAndManifestPods) {
  const auto pods = DecodeAll<Pod>("Pod");
  EXPECT_GE(pods.size(), 25u);

  const Pod& spread = pods.at("pod-with-topology-spreading.yaml").at(0);
  EXPECT_EQ(spread.metadata.generate_name, "spreading-pod-");
  const TopologySpreadConstraint& tsc = spread.spec.topology_spread_constraints.at(0);
  EXPECT_EQ(tsc.max_skew, 5);
  EXPECT_EQ(tsc.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(tsc.when_unsatisfiable, "DoNotSchedule");
  EXPECT_EQ(tsc.label_selector->match_labels.at("color"), "blue");
  const Container& c = spread.spec.containers.at(0);
  EXPECT_EQ(c.resources.requests.at("cpu").MilliValue(), 100);
  EXPECT_EQ(c.resources.limits.at("memory"), Quantity::MustParse("500Mi"));
  EXPECT_EQ(c.ports.at(0).container_port, 80);

  // Miscased fields are unknown to the API server's case-sensitive decoder.
  const Pod& inclusion = pods.at("pod-with-node-inclusion-policy.yaml").at(0);
  EXPECT_FALSE(inclusion.spec.topology_spread_constraints.at(0).node_affinity_policy.has_value());

  const Pod& large = pods.at("pod-high-priority-large-cpu.yaml").at(0);
  EXPECT_EQ(large.spec.priority, 10);
  EXPECT_EQ(large.spec.containers.at(0).resources.requests.at("cpu").Value(), 9);  // a number

  const Pod& extended = pods.at("pod-with-extended-resource.yaml").at(0);
  EXPECT_EQ(extended.spec.containers.at(0).resources.requests.at("foo.com/bar-{{.Index}}").Value(),
            1);

  const Pod& gated = pods.at("gated-pod.yaml").at(0);
  EXPECT_EQ(gated.spec.scheduling_gates.at(0).name, "test.k8s.io/hold");

  const Pod& daemon = pods.at("daemonset-pod.yaml").at(0);
  const auto& term = daemon.spec.affinity->node_affinity
                         ->required_during_scheduling_ignored_during_execution->node_selector_terms;
  EXPECT_EQ(term.at(0).match_fields.at(0).key, "metadata.name");
  EXPECT_EQ(term.at(0).match_fields.at(0).values, std::vector<std::string>{"scheduler-perf-node"});

  const Pod& anti = pods.at("pod-with-preferred-pod-anti-affinity.yaml").at(0);
  const auto& weighted =
      anti.spec.affinity->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution;
  EXPECT_EQ(weighted.at(0).weight, 1);
  EXPECT_EQ(weighted.at(0).pod_affinity_term.namespaces,
            (std::vector<std::string>{"sched-1", "sched-0"}));

  const Pod& ns_selector = pods.at("pod-affinity-ns-selector.yaml").at(0);
  EXPECT_EQ(ns_selector.spec.affinity->pod_affinity
                ->required_during_scheduling_ignored_during_execution.at(0)
                .namespace_selector->match_labels.at("team"),
            "devops");

  const Pod& light = pods.at("light-pod.yaml").at(0);
  EXPECT_EQ(light.metadata.generate_name, "light-pod-");
  EXPECT_EQ(light.spec.containers.at(0).image, "registry.k8s.io/pause:3.10.2");

  // Flow-style manifests from the Kubernetes docs.
  const Pod& second = pods.at("website__content__en__examples__admin__sched__pod3.yaml").at(0);
  EXPECT_EQ(second.metadata.name, "annotation-second-scheduler");
  EXPECT_EQ(second.spec.scheduler_name, "my-scheduler");
  EXPECT_EQ(second.spec.containers.at(0).image, "registry.k8s.io/pause:3.8");

  const Pod& peaks = pods.at("scheduler-plugins__pkg__trimaran__peaks__deployment__test-po.yaml")
                         .at(0);
  EXPECT_EQ(peaks.metadata.namespace_, "kube-system");
  EXPECT_EQ(peaks.spec.scheduler_name, "Peaks");
}

// status.capacity of the one Node in fixture file `file`, decoded as a
// Node's allocatable.
ResourceList TemplateCapacity(const std::string& file) {
  const json capacity = DocumentsByKind("Node").at(file).at(0)["status"]["capacity"];
  auto node = FromJson<Node>(json{{"status", {{"allocatable", capacity}}}});
  EXPECT_TRUE(node.ok()) << file << ": " << node.status().ToString();
  return node.ok() ? node->status.allocatable.value_or_default() : ResourceList();
}

TEST(FixturesTest, SchedulerPerfAndManifestNodes) {
  const auto nodes = DecodeAll<Node>("Node");
  const Node& tainted = nodes.at("node-with-taint.yaml").at(0);
  ASSERT_EQ(tainted.spec.taints.size(), 1u);
  EXPECT_EQ(tainted.spec.taints[0].key, "foo");
  EXPECT_EQ(tainted.spec.taints[0].effect, "NoSchedule");
  // Capacity, which the scheduler does not keep, is all these templates
  // give: read it on its own.
  EXPECT_FALSE(tainted.status.allocatable);
  EXPECT_EQ(TemplateCapacity("node-with-taint.yaml").at("pods").Value(), 110);
  EXPECT_EQ(TemplateCapacity("node-with-taint.yaml").at("memory"), Quantity::MustParse("32Gi"));
  EXPECT_EQ(tainted.status.conditions.at(0).type, "Ready");
  EXPECT_EQ(tainted.status.conditions.at(0).status, "True");

  const Node& named = nodes.at("node-with-name.yaml").at(0);
  EXPECT_EQ(named.metadata.labels.at("kubernetes.io/hostname"), "scheduler-perf-node");
  EXPECT_EQ(TemplateCapacity("node-with-name.yaml").at("pods").Value(), 90000);

  const Node& extended = nodes.at("node-with-extended-resource.yaml").at(0);
  EXPECT_FALSE(extended.status.allocatable);
  EXPECT_EQ(TemplateCapacity("node-with-extended-resource.yaml").at("foo.com/bar-{{.Index}}").Value(), 1);

  // A multi-document manifest: nine Nodes, some with an empty spec.
  const auto& examples = nodes.at("scheduler-plugins__manifests__nodemetadata__examples__nodes.yaml");
  ASSERT_EQ(examples.size(), 9u);
  EXPECT_EQ(examples[0].metadata.name, "high-priority-node");
  EXPECT_EQ(examples[0].metadata.labels.at("node.example.com/priority"), "100");
}

TEST(FixturesTest, NamespaceTemplate) {
  auto doc = YamlToJson(ReadFile(kFixtures / "scheduler_perf/templates/namespace-with-labels.yaml"));
  ASSERT_TRUE(doc.ok());
  auto ns = FromJson<Namespace>(*doc);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ(ns->metadata.labels.at("team"), "devops");
  EXPECT_EQ(ToJson(*ns)["kind"], "Namespace");
}

}  // namespace
}  // namespace ksched::api
