#include "pkg/api/codec.h"
#include "pkg/api/interned.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ksched::api {
namespace {

using nlohmann::json;
using std::chrono::seconds;

json J(std::string_view text) {
  auto parsed = ParseJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString() << " in " << text;
  return parsed.ok() ? *parsed : json();
}

template <class T>
util::Status DecodeStatus(const json& j) {
  return FromJson<T>(j).status();
}

// Decodes, re-encodes and decodes again: both encodings must agree.
template <class T>
void ExpectRoundTrip(const T& obj) {
  const json first = ToJson(obj);
  auto decoded = FromJson<T>(first);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(ToJson(*decoded), first);
}

Time At(int64_t unix_seconds, int64_t nanos = 0) {
  return Time(std::chrono::duration_cast<Time::duration>(seconds(unix_seconds) +
                                                         std::chrono::nanoseconds(nanos)));
}

// ---------------------------------------------------------------- errors

struct ErrorCase {
  const char* name;
  std::function<util::Status(const json&)> decode;
  const char* input;
  const char* want;  // exact message prefix
};

class DecodeErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(DecodeErrorTest, ReportsFieldPath) {
  const ErrorCase& c = GetParam();
  util::Status status = c.decode(J(c.input));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().substr(0, std::string(c.want).size()), c.want)
      << "full message: " << status.message();
}

INSTANTIATE_TEST_SUITE_P(
    Codec, DecodeErrorTest,
    testing::Values(
        ErrorCase{"RootNotObject", DecodeStatus<Pod>, R"([1])", "expected object, got array"},
        ErrorCase{"RootNull", DecodeStatus<Node>, R"(null)", "expected object, got null"},
        ErrorCase{"MetadataNotObject", DecodeStatus<Pod>, R"({"metadata": "x"})",
                  "metadata: expected object, got string"},
        ErrorCase{"NameNumber", DecodeStatus<Pod>, R"({"metadata": {"name": 5}})",
                  "metadata.name: expected string, got number"},
        ErrorCase{"LabelValueNumber", DecodeStatus<Pod>, R"({"metadata": {"labels": {"app": 1}}})",
                  "metadata.labels.app: expected string, got number"},
        ErrorCase{"PriorityString", DecodeStatus<Pod>, R"({"spec": {"priority": "high"}})",
                  "spec.priority: expected int32, got string"},
        ErrorCase{"PriorityFloat", DecodeStatus<Pod>, R"({"spec": {"priority": 1.5}})",
                  "spec.priority: expected int32, got number 1.5"},
        ErrorCase{"PriorityOverflow", DecodeStatus<Pod>, R"({"spec": {"priority": 3000000000}})",
                  "spec.priority: value 3000000000 out of range for int32"},
        ErrorCase{"PriorityUnderflow", DecodeStatus<Pod>,
                  R"({"spec": {"priority": -2147483649}})",
                  "spec.priority: value -2147483649 out of range for int32"},
        ErrorCase{"Int64Overflow", DecodeStatus<Pod>,
                  R"({"metadata": {"generation": 9223372036854775808}})",
                  "metadata.generation: value 9223372036854775808 out of range for int64"},
        ErrorCase{"HostNetworkString", DecodeStatus<Pod>, R"({"spec": {"hostNetwork": "true"}})",
                  "spec.hostNetwork: expected boolean, got string"},
        ErrorCase{"TolerationsObject", DecodeStatus<Pod>, R"({"spec": {"tolerations": {}}})",
                  "spec.tolerations: expected array, got object"},
        ErrorCase{"TolerationNumber", DecodeStatus<Pod>, R"({"spec": {"tolerations": [{}, 5]}})",
                  "spec.tolerations[1]: expected object, got number"},
        ErrorCase{"TolerationSecondsString", DecodeStatus<Pod>,
                  R"({"spec": {"tolerations": [{"tolerationSeconds": "5"}]}})",
                  "spec.tolerations[0].tolerationSeconds: expected int64, got string"},
        ErrorCase{"BadQuantity", DecodeStatus<Pod>,
                  R"({"spec": {"containers": [{"name": "a"},
                       {"name": "b", "resources": {"requests": {"cpu": "12x"}}}]}})",
                  "spec.containers[1].resources.requests.cpu: "},
        ErrorCase{"QuantityBool", DecodeStatus<Node>,
                  R"({"status": {"allocatable": {"cpu": true}}})",
                  "status.allocatable.cpu: expected quantity (string or number), got boolean"},
        ErrorCase{"DeepSelectorValue", DecodeStatus<Pod>,
                  R"({"spec": {"affinity": {"nodeAffinity": {
                       "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                         {"matchExpressions": [{"key": "a", "operator": "In", "values": [1]}]}]}}}}})",
                  "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchExpressions[0].values[0]: expected string, got number"},
        ErrorCase{"SpreadMaxSkewString", DecodeStatus<Pod>,
                  R"({"spec": {"topologySpreadConstraints": [{"maxSkew": "1"}]}})",
                  "spec.topologySpreadConstraints[0].maxSkew: expected int32, got string"},
        ErrorCase{"BadTime", DecodeStatus<Pod>,
                  R"({"metadata": {"creationTimestamp": "yesterday"}})",
                  "metadata.creationTimestamp: invalid RFC 3339 time \"yesterday\""},
        ErrorCase{"TimeNumber", DecodeStatus<Pod>, R"({"status": {"startTime": 5}})",
                  "status.startTime: expected RFC 3339 time string, got number"},
        ErrorCase{"OtherVolumeSourceNotObject", DecodeStatus<Pod>,
                  R"({"spec": {"volumes": [{"name": "v", "emptyDir": "x"}]}})",
                  "spec.volumes[0].emptyDir: expected object, got string"},
        ErrorCase{"EphemeralTemplateSpec", DecodeStatus<Pod>,
                  R"({"spec": {"volumes": [{"name": "v", "ephemeral": {"volumeClaimTemplate":
                       {"spec": {"storageClassName": 7}}}}]}})",
                  "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.storageClassName: "
                  "expected string, got number"},
        ErrorCase{"PvOtherSourceNotObject", DecodeStatus<PersistentVolume>,
                  R"({"spec": {"nfs": []}})", "spec.nfs: expected object, got array"},
        ErrorCase{"PvcCapacity", DecodeStatus<PersistentVolumeClaim>,
                  R"({"status": {"capacity": {"storage": "1Gx"}}})", "status.capacity.storage: "},
        ErrorCase{"MinAvailableBool", DecodeStatus<PodDisruptionBudget>,
                  R"({"spec": {"minAvailable": true}})",
                  "spec.minAvailable: expected integer or string, got boolean"},
        ErrorCase{"MinAvailableOverflow", DecodeStatus<PodDisruptionBudget>,
                  R"({"spec": {"minAvailable": 5000000000}})",
                  "spec.minAvailable: value 5000000000 out of range for int32"},
        ErrorCase{"CsiCountFloat", DecodeStatus<CSINode>,
                  R"({"spec": {"drivers": [{"name": "d", "allocatable": {"count": 2.5}}]}})",
                  "spec.drivers[0].allocatable.count: expected int32, got number 2.5"},
        ErrorCase{"StorageClassParameters", DecodeStatus<StorageClass>,
                  R"({"parameters": ["a"]})", "parameters: expected object, got array"},
        ErrorCase{"LeaseDuration", DecodeStatus<Lease>,
                  R"({"spec": {"leaseDurationSeconds": 4294967296}})",
                  "spec.leaseDurationSeconds: value 4294967296 out of range for int32"},
        ErrorCase{"LeaseRenewTime", DecodeStatus<Lease>,
                  R"({"spec": {"renewTime": "2020-01-01T00:00:00"}})", "spec.renewTime: invalid"},
        ErrorCase{"CoreEventInvolvedObject", DecodeStatus<Event>,
                  R"({"involvedObject": {"name": 3}})",
                  "involvedObject.name: expected string, got number"},
        ErrorCase{"BindingTarget", DecodeStatus<Binding>, R"({"target": []})",
                  "target: expected object, got array"},
        ErrorCase{"ListItem", DecodeStatus<PodList>,
                  R"({"items": [{}, {"metadata": {"name": false}}]})",
                  "items[1].metadata.name: expected string, got boolean"},
        ErrorCase{"ListRemaining", DecodeStatus<NodeList>,
                  R"({"metadata": {"remainingItemCount": "3"}, "items": []})",
                  "metadata.remainingItemCount: expected int64, got string"}),
    [](const testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------- leniency

TEST(CodecTest, IgnoresUnknownFields) {
  auto plain = FromJson<Pod>(J(R"({"metadata": {"name": "p"}, "spec": {"nodeName": "n"}})"));
  auto noisy = FromJson<Pod>(J(R"({
      "kind": "Pod", "apiVersion": "v1", "future": {"x": [1, 2]},
      "metadata": {"name": "p", "selfLink": "/x", "managedFields": [{"manager": "m"}]},
      "spec": {"nodeName": "n", "dnsPolicy": "ClusterFirst", "os": {"name": "linux"},
               "containers": [{"name": "c", "command": ["sleep"], "livenessProbe": {}}]},
      "status": {"containerStatuses": [{"ready": true}]}})"));
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(noisy.ok()) << noisy.status().ToString();
  EXPECT_EQ(noisy->metadata.name, "p");
  EXPECT_EQ(noisy->spec.node_name, "n");
  ASSERT_EQ(noisy->spec.containers.size(), 1u);
  EXPECT_EQ(noisy->spec.containers[0].name, "c");
}

TEST(CodecTest, FieldNamesAreCaseSensitive) {
  // Like the API server's decoder (sigs.k8s.io/json), and unlike Go's
  // encoding/json, a miscased name is an unknown field.
  auto pod = FromJson<Pod>(J(R"({"spec": {"NodeName": "n", "topologySpreadConstraints": [
      {"maxSkew": 1, "NodeAffinityPolicy": "Honor"}]}})"));
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->spec.node_name, "");
  EXPECT_FALSE(pod->spec.topology_spread_constraints[0].node_affinity_policy.has_value());
}

TEST(CodecTest, NullIsAbsent) {
  auto pod = FromJson<Pod>(J(R"({
      "metadata": {"name": null, "labels": {"a": null}, "deletionTimestamp": null},
      "spec": {"priority": null, "affinity": null, "nodeSelector": null, "containers": null,
               "tolerations": [null], "volumes": [{"name": "v", "emptyDir": null,
               "configMap": {"name": "cm"}}]},
      "status": null})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->metadata.name, "");
  ASSERT_EQ(pod->metadata.labels.count("a"), 1u);  // Go keeps the key with ""
  EXPECT_EQ(pod->metadata.labels.at("a"), "");
  EXPECT_FALSE(pod->metadata.deletion_timestamp.has_value());
  EXPECT_FALSE(pod->spec.priority.has_value());
  EXPECT_FALSE(pod->spec.affinity.has_value());
  EXPECT_TRUE(pod->spec.containers.empty());
  ASSERT_EQ(pod->spec.tolerations.size(), 1u);
  EXPECT_EQ(pod->spec.tolerations[0].key, "");
  // A null source is no source: configMap is the volume's source.
  EXPECT_EQ(pod->spec.volumes[0].other_source, "configMap");
}

TEST(CodecTest, OptionalPresenceIsKept) {
  auto pvc = FromJson<PersistentVolumeClaim>(J(R"({"spec": {"storageClassName": ""}})"));
  ASSERT_TRUE(pvc.ok());
  ASSERT_TRUE(pvc->spec.storage_class_name.has_value());  // "" is not nil for PVCs
  EXPECT_EQ(*pvc->spec.storage_class_name, "");
  EXPECT_EQ(ToJson(*pvc)["spec"]["storageClassName"], "");

  auto unset = FromJson<PersistentVolumeClaim>(J(R"({"spec": {}})"));
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->spec.storage_class_name.has_value());
  EXPECT_FALSE(ToJson(*unset)["spec"].contains("storageClassName"));

  auto pdb = FromJson<PodDisruptionBudget>(J(R"({"spec": {"selector": {}}})"));
  ASSERT_TRUE(pdb.ok());
  EXPECT_TRUE(pdb->spec.selector.has_value());  // {} selects everything, nil nothing
  EXPECT_EQ(ToJson(*pdb)["spec"]["selector"], json::object());
}

TEST(CodecTest, IntegerRanges) {
  auto ok = FromJson<Pod>(J(R"({"metadata": {"generation": 9223372036854775807},
      "spec": {"priority": -2147483648},
      "status": {"conditions": [{"type": "PodScheduled", "observedGeneration": -9223372036854775808}]}})"));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->metadata.generation, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ok->spec.priority, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ok->status.conditions.at(0).observed_generation, std::numeric_limits<int64_t>::min());
  auto max32 = FromJson<Pod>(J(R"({"spec": {"priority": 2147483647}})"));
  ASSERT_TRUE(max32.ok());
  EXPECT_EQ(max32->spec.priority, std::numeric_limits<int32_t>::max());
  EXPECT_FALSE(FromJson<Pod>(J(R"({"spec": {"priority": 2147483648}})")).ok());
  EXPECT_FALSE(FromJson<Pod>(J(R"({"spec": {"priority": 2.0}})")).ok());
}

TEST(CodecTest, QuantitiesMayBeNumbers) {
  auto pod = FromJson<Pod>(J(R"({"spec": {"containers": [{"name": "c", "resources": {
      "requests": {"cpu": 2, "memory": 0.5, "example.com/gpu": 1e3, "pods": "110"},
      "limits": {"cpu": -1}}}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const auto& requests = pod->spec.containers[0].resources.requests;
  EXPECT_EQ(requests.at("cpu"), Quantity::MustParse("2"));
  EXPECT_EQ(requests.at("cpu").MilliValue(), 2000);
  EXPECT_EQ(requests.at("memory"), Quantity::MustParse("500m"));
  EXPECT_EQ(requests.at("example.com/gpu").Value(), 1000);
  EXPECT_EQ(requests.at("pods").Value(), 110);
  EXPECT_EQ(pod->spec.containers[0].resources.limits.at("cpu").Value(), -1);
  // Encoded back as canonical strings.
  EXPECT_EQ(ToJson(*pod)["spec"]["containers"][0]["resources"]["requests"]["cpu"], "2");
}

TEST(CodecTest, IntOrString) {
  auto pdb = FromJson<PodDisruptionBudget>(
      J(R"({"spec": {"minAvailable": 2, "maxUnavailable": "25%"}})"));
  ASSERT_TRUE(pdb.ok());
  ASSERT_TRUE(pdb->spec.min_available.has_value());
  EXPECT_TRUE(pdb->spec.min_available->is_int);
  EXPECT_EQ(pdb->spec.min_available->int_value, 2);
  ASSERT_TRUE(pdb->spec.max_unavailable.has_value());
  EXPECT_FALSE(pdb->spec.max_unavailable->is_int);
  EXPECT_EQ(pdb->spec.max_unavailable->str_value, "25%");
  const json encoded = ToJson(*pdb);
  EXPECT_EQ(encoded["spec"]["minAvailable"], 2);
  EXPECT_EQ(encoded["spec"]["maxUnavailable"], "25%");
}

TEST(CodecTest, DisruptedPodsKeepNullTimes) {
  auto pdb = FromJson<PodDisruptionBudget>(J(R"({"status": {"disruptedPods": {
      "a": null, "b": "2020-01-02T03:04:05Z"}}})"));
  ASSERT_TRUE(pdb.ok());
  ASSERT_EQ(pdb->status.disrupted_pods.size(), 2u);
  EXPECT_EQ(pdb->status.disrupted_pods.at("a"), Time{});
  EXPECT_EQ(FormatTime(pdb->status.disrupted_pods.at("b")), "2020-01-02T03:04:05Z");
  const json encoded = ToJson(*pdb);
  EXPECT_TRUE(encoded["status"]["disruptedPods"]["a"].is_null());
  EXPECT_EQ(encoded["status"]["disruptedPods"]["b"], "2020-01-02T03:04:05Z");
  ExpectRoundTrip(*pdb);
}

// ---------------------------------------------------------------- volumes

TEST(CodecTest, VolumeSources) {
  auto pod = FromJson<Pod>(J(R"({"spec": {"volumes": [
      {"name": "claim", "persistentVolumeClaim": {"claimName": "data", "readOnly": true}},
      {"name": "scratch", "emptyDir": {"medium": "Memory"}},
      {"name": "conf", "configMap": {"name": "cm"}},
      {"name": "gce", "gcePersistentDisk": {"pdName": "pd", "partition": 2}},
      {"name": "csi", "csi": {"driver": "d", "volumeAttributes": {"k": "v"}}},
      {"name": "eph", "ephemeral": {"volumeClaimTemplate": {
          "metadata": {"labels": {"a": "b"}},
          "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                   "resources": {"requests": {"storage": "1Gi"}}}}}},
      {"name": "model", "image": {"reference": "registry.example/model:v1", "pullPolicy": "IfNotPresent"}}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const auto& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 7u);
  ASSERT_TRUE(v[0].persistent_volume_claim.has_value());
  EXPECT_EQ(v[0].persistent_volume_claim->claim_name, "data");
  EXPECT_TRUE(v[0].persistent_volume_claim->read_only);
  EXPECT_EQ(v[0].other_source, "");
  EXPECT_EQ(v[1].other_source, "emptyDir");
  EXPECT_EQ(v[2].other_source, "configMap");
  ASSERT_TRUE(v[3].gce_persistent_disk.has_value());
  EXPECT_EQ(v[3].gce_persistent_disk->partition, 2);
  EXPECT_EQ(v[4].csi->volume_attributes.at("k"), "v");
  ASSERT_TRUE(v[5].ephemeral->volume_claim_template.has_value());
  const auto& tmpl = *v[5].ephemeral->volume_claim_template;
  EXPECT_EQ(tmpl.metadata.labels.at("a"), "b");
  ASSERT_NE(tmpl.spec, nullptr);
  EXPECT_EQ(tmpl.spec->storage_class_name, "fast");
  EXPECT_EQ(tmpl.spec->resources.requests.at("storage"), Quantity::MustParse("1Gi"));
  ASSERT_TRUE(v[6].image.has_value());
  EXPECT_EQ(v[6].image->reference, "registry.example/model:v1");
  EXPECT_EQ(v[6].image->pull_policy, "IfNotPresent");
  EXPECT_EQ(v[6].other_source, "");

  const json encoded = ToJson(*pod);
  EXPECT_EQ(encoded["spec"]["volumes"][1], J(R"({"name": "scratch", "emptyDir": {}})"));
  ExpectRoundTrip(*pod);
}

TEST(CodecTest, PersistentVolumeOtherSource) {
  auto pv = FromJson<PersistentVolume>(J(R"({"spec": {
      "local": {"path": "/mnt/disk"}, "capacity": {"storage": "10Gi"},
      "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
          {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}},
      "claimRef": {"namespace": "ns", "name": "c"}, "volumeAttributesClassName": "x"}})"));
  ASSERT_TRUE(pv.ok()) << pv.status().ToString();
  EXPECT_EQ(pv->spec.other_source, "local");  // non-source members are not sources
  ASSERT_TRUE(pv->spec.node_affinity->required.has_value());
  EXPECT_EQ(pv->spec.node_affinity->required->node_selector_terms[0].match_expressions[0].values,
            std::vector<std::string>{"n1"});
  EXPECT_EQ(pv->spec.claim_ref->name, "c");
  EXPECT_EQ(ToJson(*pv)["spec"]["local"], json::object());
  ExpectRoundTrip(*pv);
}

TEST(CodecTest, MigratableInTreeSources) {
  auto pod = FromJson<Pod>(J(R"({"spec": {"volumes": [
      {"name": "cinder", "cinder": {"volumeID": "c-1", "fsType": "ext4", "readOnly": true}},
      {"name": "px", "portworxVolume": {"volumeID": "px-1"}},
      {"name": "az", "azureDisk": {"diskName": "d", "diskURI": "/subs/d", "kind": "Shared"}},
      {"name": "vs", "vsphereVolume": {"volumePath": "[ds] vol.vmdk"}}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  const auto& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 4u);
  ASSERT_TRUE(v[0].cinder.has_value());
  EXPECT_EQ(v[0].cinder->volume_id, "c-1");
  EXPECT_TRUE(v[0].cinder->read_only);
  EXPECT_EQ(v[0].other_source, "");
  ASSERT_TRUE(v[1].portworx_volume.has_value());
  EXPECT_EQ(v[1].portworx_volume->volume_id, "px-1");
  EXPECT_EQ(v[2].azure_disk->kind, "Shared");
  EXPECT_EQ(v[3].other_source, "vsphereVolume");
  ExpectRoundTrip(*pod);

  auto pv = FromJson<PersistentVolume>(J(R"({"spec": {"cinder": {"volumeID": "c-2"}}})"));
  ASSERT_TRUE(pv.ok()) << pv.status().ToString();
  ASSERT_TRUE(pv->spec.cinder.has_value());
  EXPECT_EQ(pv->spec.cinder->volume_id, "c-2");
  EXPECT_EQ(pv->spec.other_source, "");
  auto px = FromJson<PersistentVolume>(J(R"({"spec": {"portworxVolume": {"volumeID": "px-2"}}})"));
  ASSERT_TRUE(px.ok());
  EXPECT_EQ(px->spec.portworx_volume->volume_id, "px-2");
  ExpectRoundTrip(*pv);
}

TEST(CodecTest, CSIStorageCapacity) {
  const std::string text = R"({"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
      "metadata": {"name": "csisc-1", "namespace": "topolvm-system"},
      "storageClassName": "topolvm-provisioner",
      "nodeTopology": {"matchLabels": {"topology.topolvm.io/node": "n1"}},
      "capacity": "100Gi", "maximumVolumeSize": "30Gi"})";
  for (const auto& c : {FromJson<CSIStorageCapacity>(J(text)), FromJsonText<CSIStorageCapacity>(text)}) {
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->metadata.namespace_, "topolvm-system");
    EXPECT_EQ(c->storage_class_name, "topolvm-provisioner");
    ASSERT_TRUE(c->node_topology.has_value());
    EXPECT_EQ(c->node_topology->match_labels.at("topology.topolvm.io/node"), "n1");
    EXPECT_EQ(c->capacity, Quantity::MustParse("100Gi"));
    EXPECT_EQ(c->maximum_volume_size, Quantity::MustParse("30Gi"));
    ExpectRoundTrip(*c);
  }
  // Unset topology and sizes stay unset (they mean "no node", "no limit").
  auto bare = FromJson<CSIStorageCapacity>(J(R"({"storageClassName": "sc"})"));
  ASSERT_TRUE(bare.ok());
  EXPECT_FALSE(bare->node_topology.has_value());
  EXPECT_FALSE(bare->capacity.has_value());
  EXPECT_FALSE(bare->maximum_volume_size.has_value());
  EXPECT_FALSE(FromJson<CSIStorageCapacity>(J(R"({"capacity": "lots"})")).ok());
}

TEST(CodecTest, VolumeAttachment) {
  auto va = FromJson<VolumeAttachment>(J(R"({"metadata": {"name": "csi-123"},
      "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv-1"}},
      "status": {"attached": true}})"));
  ASSERT_TRUE(va.ok()) << va.status().ToString();
  EXPECT_EQ(va->spec.attacher, "ebs.csi.aws.com");
  EXPECT_EQ(va->spec.node_name, "n1");
  EXPECT_EQ(va->spec.source.persistent_volume_name, "pv-1");
  EXPECT_TRUE(va->status.attached);
  ExpectRoundTrip(*va);
  auto inline_spec = FromJson<VolumeAttachment>(J(R"({"spec": {"attacher": "a", "nodeName": "n",
      "source": {"inlineVolumeSpec": {"awsElasticBlockStore": {"volumeID": "vol-1"}}}}})"));
  ASSERT_TRUE(inline_spec.ok());
  EXPECT_FALSE(inline_spec->spec.source.persistent_volume_name.has_value());
}

// ---------------------------------------------------------------- events

TEST(CodecTest, CoreEventMapsOntoEventsV1) {
  auto event = FromJson<Event>(J(R"({"apiVersion": "v1", "kind": "Event",
      "metadata": {"name": "e", "namespace": "ns"},
      "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "Scheduled",
      "message": "assigned", "source": {"component": "sched", "host": "h"},
      "firstTimestamp": "2020-01-01T00:00:00Z", "lastTimestamp": "2020-01-01T00:00:09Z",
      "count": 3, "type": "Normal", "reportingComponent": "ksched",
      "reportingInstance": "ksched-1"})"));
  ASSERT_TRUE(event.ok()) << event.status().ToString();
  EXPECT_EQ(event->regarding.kind, "Pod");
  EXPECT_EQ(event->regarding.name, "p");
  EXPECT_EQ(event->note, "assigned");
  EXPECT_EQ(event->deprecated_source_component, "sched");
  EXPECT_EQ(event->deprecated_source_host, "h");
  EXPECT_EQ(event->deprecated_count, 3);
  EXPECT_EQ(FormatTime(*event->deprecated_last_timestamp), "2020-01-01T00:00:09Z");
  EXPECT_EQ(event->reporting_controller, "ksched");
  EXPECT_EQ(event->reporting_instance, "ksched-1");

  const json encoded = ToJson(*event);
  EXPECT_EQ(encoded["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(encoded["regarding"]["name"], "p");
  EXPECT_EQ(encoded["note"], "assigned");
  EXPECT_EQ(encoded["deprecatedSource"], J(R"({"component": "sched", "host": "h"})"));
  EXPECT_FALSE(encoded.contains("involvedObject"));
  ExpectRoundTrip(*event);
}

TEST(CodecTest, EventsV1NamesWinOverCoreNames) {
  auto event = FromJson<Event>(J(R"({"regarding": {"name": "new"},
      "involvedObject": {"name": "old"}, "note": "n", "message": "m",
      "deprecatedCount": 2, "count": 9})"));
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->regarding.name, "new");
  EXPECT_EQ(event->note, "n");
  EXPECT_EQ(event->deprecated_count, 2);
}

TEST(CodecTest, MicroTimeFields) {
  Lease lease;
  lease.metadata.name = "ksched";
  lease.spec.holder_identity = "me";
  lease.spec.acquire_time = At(1577836800, 123456789);
  lease.spec.renew_time = At(1577836801);
  lease.spec.lease_duration_seconds = 15;
  const json encoded = ToJson(lease);
  EXPECT_EQ(encoded["spec"]["acquireTime"], "2020-01-01T00:00:00.123456Z");
  EXPECT_EQ(encoded["spec"]["renewTime"], "2020-01-01T00:00:01.000000Z");
  EXPECT_EQ(encoded["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(encoded["kind"], "Lease");

  Event event;
  event.event_time = At(1577836800, 5000);
  event.series = EventSeries{2, At(1577836800, 7000)};
  const json e = ToJson(event);
  EXPECT_EQ(e["eventTime"], "2020-01-01T00:00:00.000005Z");
  EXPECT_EQ(e["series"], J(R"({"count": 2, "lastObservedTime": "2020-01-01T00:00:00.000007Z"})"));
}

// ---------------------------------------------------------------- encoding

TEST(CodecTest, OmitsEmptyFields) {
  Pod pod;
  pod.metadata.name = "p";
  pod.spec.containers.push_back(Container{"c"});
  const json encoded = ToJson(pod);
  EXPECT_EQ(encoded, J(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c", "resources": {}}]}, "status": {}})"));
}

TEST(CodecTest, KeepsRequiredZeroValues) {
  PodDisruptionBudget pdb;
  const json status = ToJson(pdb)["status"];
  EXPECT_EQ(status, J(R"({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                          "expectedPods": 0})"));
  Taint taint;
  Node node;
  node.spec.taints.push_back(taint);
  EXPECT_EQ(ToJson(node)["spec"]["taints"][0], J(R"({"key": "", "effect": ""})"));
  CSINode csi_node;
  EXPECT_EQ(ToJson(csi_node)["spec"], J(R"({"drivers": []})"));
}

TEST(CodecTest, ListsCarryKindAndItems) {
  PodList list;
  list.metadata.resource_version = "42";
  list.metadata.continue_ = "token";
  list.metadata.remaining_item_count = 7;
  Pod pod;
  pod.metadata.name = "a";
  list.items.push_back(pod);
  const json encoded = ToJson(list);
  EXPECT_EQ(encoded["kind"], "PodList");
  EXPECT_EQ(encoded["apiVersion"], "v1");
  EXPECT_EQ(encoded["metadata"], J(R"({"resourceVersion": "42", "continue": "token",
                                       "remainingItemCount": 7})"));
  ASSERT_EQ(encoded["items"].size(), 1u);
  EXPECT_FALSE(encoded["items"][0].contains("kind"));
  ExpectRoundTrip(list);

  EXPECT_EQ(ToJson(StorageClassList{})["kind"], "StorageClassList");
  EXPECT_EQ(ToJson(StorageClassList{})["apiVersion"], "storage.k8s.io/v1");
  EXPECT_EQ(ToJson(StorageClassList{})["items"], json::array());
  EXPECT_EQ(ToJson(PodDisruptionBudgetList{})["apiVersion"], "policy/v1");
}

TEST(CodecTest, BindingEncoding) {
  Binding binding;
  binding.metadata.name = "p";
  binding.metadata.namespace_ = "ns";
  binding.metadata.uid = "u";
  binding.target.kind = "Node";
  binding.target.name = "n1";
  EXPECT_EQ(ToJson(binding), J(R"({"apiVersion": "v1", "kind": "Binding",
      "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
      "target": {"kind": "Node", "name": "n1"}})"));
}

// A Pod with every modelled field set: the exact encoding pins each JSON
// name, and decoding it back must reproduce it.
TEST(CodecTest, FullPodEncodingAndRoundTrip) {
  Pod pod;
  ObjectMeta& m = pod.metadata;
  m.name = "web-0";
  m.generate_name = "web-";
  m.namespace_ = "prod";
  m.uid = "uid-1";
  m.resource_version = "99";
  m.generation = 3;
  m.labels = {{"app", "web"}};
  m.annotations = {{"note", "x"}};
  m.owner_references = {OwnerReference{"apps/v1", "StatefulSet", "web", "uid-0", true, false}};
  m.finalizers = {"f"};
  m.creation_timestamp = At(1577836800);
  m.deletion_timestamp = At(1577836860);

  PodSpec& s = pod.spec;
  s.node_name = "node-1";
  s.scheduler_name = "ksched";
  s.priority = 100;
  s.priority_class_name = "high";
  s.preemption_policy = "Never";
  Container sidecar{"log", "busybox"};
  sidecar.restart_policy = "Always";
  s.init_containers = {sidecar};
  Container main{"app", "nginx"};
  main.ports = {ContainerPort{"http", 8080, 80, "TCP", "0.0.0.0"}};
  main.resources.requests = {{"cpu", Quantity::MustParse("100m")},
                             {"memory", Quantity::MustParse("1Gi")}};
  main.resources.limits = {{"cpu", Quantity::MustParse("1")}};
  s.containers = {main};
  s.overhead = {{"cpu", Quantity::MustParse("10m")}};
  s.node_selector = {{"disk", "ssd"}};
  NodeSelectorTerm term;
  term.match_expressions = {NodeSelectorRequirement{"zone", "In", {"a", "b"}}};
  term.match_fields = {NodeSelectorRequirement{"metadata.name", "In", {"node-1"}}};
  NodeAffinity node_affinity;
  node_affinity.required_during_scheduling_ignored_during_execution = NodeSelector{{term}};
  node_affinity.preferred_during_scheduling_ignored_during_execution = {
      PreferredSchedulingTerm{5, term}};
  LabelSelector selector;
  selector.match_labels = {{"app", "web"}};
  selector.match_expressions = {LabelSelectorRequirement{"tier", "Exists", {}}};
  PodAffinityTerm affinity_term;
  affinity_term.label_selector = selector;
  affinity_term.namespaces = {"prod"};
  affinity_term.topology_key = "kubernetes.io/hostname";
  affinity_term.namespace_selector = LabelSelector{};
  affinity_term.match_label_keys = {"pod-template-hash"};
  affinity_term.mismatch_label_keys = {"tenant"};
  PodAffinity pod_affinity;
  pod_affinity.required_during_scheduling_ignored_during_execution = {affinity_term};
  pod_affinity.preferred_during_scheduling_ignored_during_execution = {
      WeightedPodAffinityTerm{10, affinity_term}};
  s.affinity = Affinity{node_affinity, pod_affinity, pod_affinity};
  s.tolerations = {Toleration{"k", "Equal", "v", "NoExecute", 60}};
  TopologySpreadConstraint spread;
  spread.max_skew = 1;
  spread.topology_key = "zone";
  spread.when_unsatisfiable = "DoNotSchedule";
  spread.label_selector = selector;
  spread.min_domains = 2;
  spread.node_affinity_policy = "Honor";
  spread.node_taints_policy = "Ignore";
  spread.match_label_keys = {"rev"};
  s.topology_spread_constraints = {spread};
  Volume volume;
  volume.name = "data";
  volume.persistent_volume_claim = PersistentVolumeClaimVolumeSource{"data-web-0", true};
  Volume scratch;
  scratch.name = "tmp";
  scratch.other_source = "emptyDir";
  s.volumes = {volume, scratch};
  s.scheduling_gates = {PodSchedulingGate{"wait"}};
  s.host_network = true;

  PodStatus& st = pod.status;
  st.phase = "Pending";
  PodCondition condition{"PodScheduled", "False", "Unschedulable", "0/3 nodes"};
  condition.last_probe_time = At(1577836801);
  condition.last_transition_time = At(1577836802);
  condition.observed_generation = 3;
  st.conditions = {condition};
  st.nominated_node_name = "node-2";
  st.start_time = At(1577836803);

  const json want = J(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {
      "name": "web-0", "generateName": "web-", "namespace": "prod", "uid": "uid-1",
      "resourceVersion": "99", "generation": 3, "labels": {"app": "web"},
      "annotations": {"note": "x"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
                           "uid": "uid-0", "controller": true, "blockOwnerDeletion": false}],
      "finalizers": ["f"], "creationTimestamp": "2020-01-01T00:00:00Z",
      "deletionTimestamp": "2020-01-01T00:01:00Z"},
    "spec": {
      "nodeName": "node-1", "schedulerName": "ksched", "priority": 100,
      "priorityClassName": "high", "preemptionPolicy": "Never",
      "initContainers": [{"name": "log", "image": "busybox", "resources": {},
                          "restartPolicy": "Always"}],
      "containers": [{"name": "app", "image": "nginx",
                      "ports": [{"name": "http", "hostPort": 8080, "containerPort": 80,
                                 "protocol": "TCP", "hostIP": "0.0.0.0"}],
                      "resources": {"limits": {"cpu": "1"},
                                    "requests": {"cpu": "100m", "memory": "1Gi"}}}],
      "overhead": {"cpu": "10m"},
      "nodeSelector": {"disk": "ssd"},
      "affinity": {
        "nodeAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
             "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]},
          "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "preference":
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
             "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}}]},
        "podAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "web"},
                              "matchExpressions": [{"key": "tier", "operator": "Exists"}]},
            "namespaces": ["prod"], "topologyKey": "kubernetes.io/hostname",
            "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"],
            "mismatchLabelKeys": ["tenant"]}],
          "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "web"},
                              "matchExpressions": [{"key": "tier", "operator": "Exists"}]},
            "namespaces": ["prod"], "topologyKey": "kubernetes.io/hostname",
            "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"],
            "mismatchLabelKeys": ["tenant"]}}]},
        "podAntiAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "web"},
                              "matchExpressions": [{"key": "tier", "operator": "Exists"}]},
            "namespaces": ["prod"], "topologyKey": "kubernetes.io/hostname",
            "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"],
            "mismatchLabelKeys": ["tenant"]}],
          "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
            "labelSelector": {"matchLabels": {"app": "web"},
                              "matchExpressions": [{"key": "tier", "operator": "Exists"}]},
            "namespaces": ["prod"], "topologyKey": "kubernetes.io/hostname",
            "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"],
            "mismatchLabelKeys": ["tenant"]}}]}},
      "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute",
                       "tolerationSeconds": 60}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"},
                          "matchExpressions": [{"key": "tier", "operator": "Exists"}]},
        "minDomains": 2, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore",
        "matchLabelKeys": ["rev"]}],
      "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0",
                                                              "readOnly": true}},
                  {"name": "tmp", "emptyDir": {}}],
      "schedulingGates": [{"name": "wait"}],
      "hostNetwork": true},
    "status": {
      "phase": "Pending",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "0/3 nodes", "lastProbeTime": "2020-01-01T00:00:01Z",
                      "lastTransitionTime": "2020-01-01T00:00:02Z", "observedGeneration": 3}],
      "nominatedNodeName": "node-2", "startTime": "2020-01-01T00:00:03Z"}
  })");
  const json got = ToJson(pod);
  EXPECT_EQ(got, want) << "got:\n" << got.dump(2);
  ExpectRoundTrip(pod);

  auto decoded = FromJson<Pod>(want);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->metadata.creation_timestamp, m.creation_timestamp);
  EXPECT_EQ(decoded->spec.containers[0].resources.requests, main.resources.requests);
  EXPECT_EQ(decoded->spec.affinity->pod_anti_affinity
                ->preferred_during_scheduling_ignored_during_execution[0]
                .pod_affinity_term.mismatch_label_keys,
            std::vector<std::string>{"tenant"});
}

// No scheduler code reads the kubelet's conditions; the rest keep their order.
TEST(CodecTest, PodConditionsDecodeWithoutTheKubeletsOwn) {
  constexpr std::string_view kText = R"({"metadata": {"name": "p"}, "status": {"conditions": [
    {"type": "PodReadyToStartContainers", "status": "True"}, {"type": "Initialized", "status": "True"},
    {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False", "reason": "x"},
    {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"},
    {"type": "ContainersReady", "status": "False"}, {"type": "example.com/gate", "status": "True"}]}})";
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "FromJsonText" : "FromJson");
    util::StatusOr<Pod> pod = fast ? FromJsonText<Pod>(kText) : FromJson<Pod>(J(kText));
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    const std::vector<PodCondition>& got = pod->status.conditions;
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].type, "PodScheduled");
    EXPECT_EQ(got[1].type, "DisruptionTarget");
    EXPECT_EQ(got[1].reason, "PreemptionByScheduler");
    EXPECT_EQ(got[2].type, "example.com/gate");
    EXPECT_EQ(got.capacity(), got.size());
  }
}

TEST(CodecTest, PodFieldsNoSchedulerCodeReadsAreSkipped) {
  constexpr std::string_view kText = R"({"metadata": {"name": "p", "deletionGracePeriodSeconds": 30},
    "spec": {"restartPolicy": "Always", "serviceAccountName": "sa", "terminationGracePeriodSeconds": 0,
             "runtimeClassName": "gvisor", "hostNetwork": true, "schedulerName": "ksched"}})";
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "FromJsonText" : "FromJson");
    util::StatusOr<Pod> pod = fast ? FromJsonText<Pod>(kText) : FromJson<Pod>(J(kText));
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    EXPECT_EQ(ToJson(*pod), J(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                  "spec": {"containers": [], "schedulerName": "ksched", "hostNetwork": true},
                                  "status": {}})"));
  }
}

// Pods of one template share their containers, tolerations, spread
// constraints and affinity, whichever decode path read them; each pod's own service
// account token mount is not kept, so it does not tell them apart.
TEST(CodecTest, PodsOfOneTemplateShareTheirLists) {
  auto text = [](const std::string& name, const std::string& image) {
    return R"({"metadata": {"name": ")" + name + R"(", "labels": {"app": "web"}}, "spec": {
      "containers": [{"name": "c", "image": ")" + image + R"(", "resources": {"requests": {"cpu": "1"}},
                      "env": [{"name": "POD", "value": ")" + name + R"("}],
                      "volumeMounts": [{"name": "kube-api-access-)" + name + R"(", "mountPath": "/var/run"}]}],
      "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
      "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}},
      "status": {"conditions": [{"type": "Ready", "status": "False"},
          {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-06T07:00:00Z"}]}})";
  };
  util::StatusOr<Pod> a = FromJsonText<Pod>(text("a", "pause"));
  util::StatusOr<Pod> b = FromJson<Pod>(J(text("b", "pause")));
  util::StatusOr<Pod> other = FromJsonText<Pod>(text("c", "nginx"));
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_TRUE(a->spec.containers.SharesWith(b->spec.containers));
  EXPECT_TRUE(a->spec.tolerations.SharesWith(b->spec.tolerations));
  EXPECT_TRUE(a->spec.topology_spread_constraints.SharesWith(b->spec.topology_spread_constraints));
  EXPECT_TRUE(a->spec.affinity.SharesWith(b->spec.affinity));
  EXPECT_TRUE(a->spec.affinity.SharesWith(other->spec.affinity));
  EXPECT_FALSE(a->spec.containers.SharesWith(other->spec.containers));
  EXPECT_TRUE(a->spec.tolerations.SharesWith(other->spec.tolerations));
  EXPECT_EQ(other->spec.containers[0].image, "nginx");
  EXPECT_TRUE(a->spec.containers[0].volume_mounts.empty());
  EXPECT_TRUE(a->status.conditions.SharesWith(b->status.conditions));
  EXPECT_TRUE(a->metadata.labels.SharesWith(other->metadata.labels));
  ASSERT_EQ(a->status.conditions.size(), 1u);  // Ready is the kubelet's
  EXPECT_EQ(a->status.conditions[0].type, "PodScheduled");
  ExpectRoundTrip(*a);
  // Writing one pod's list leaves the other's alone.
  b->spec.containers.Mutable()[0].image = "changed";
  EXPECT_EQ(a->spec.containers[0].image, "pause");
  b->spec.affinity.Mutable().pod_anti_affinity.reset();
  EXPECT_TRUE(a->spec.affinity->pod_anti_affinity.has_value());
  b->metadata.labels["app"] = "db";
  EXPECT_EQ(a->metadata.labels.at("app"), "web");
}

// The fast decoder looks a list's text up before decoding it: a text is
// remembered once its value is held twice, and forgotten with the value.
TEST(CodecTest, ARepeatedListIsFoundByItsText) {
  const std::string containers = R"([{"name":"c","image":"text-interned-test","resources":{"requests":{"cpu":"1"}}}])";
  const std::string pod_text = R"({"metadata":{"name":"p"},"spec":{"containers":)" + containers + "}}";
  using Text = TextInterned<std::vector<Container>>;
  const size_t hash = Text::Hash(containers);
  std::optional<util::StatusOr<Pod>> a(FromJsonText<Pod>(pod_text));
  ASSERT_TRUE(a->ok());
  EXPECT_EQ(Text::Find(hash, containers), nullptr);  // held once
  std::optional<util::StatusOr<Pod>> b(FromJsonText<Pod>(pod_text));
  ASSERT_TRUE(b->ok());
  ASSERT_NE(Text::Find(hash, containers), nullptr);
  EXPECT_TRUE((*a)->spec.containers.SharesWith((*b)->spec.containers));
  std::optional<util::StatusOr<Pod>> c(FromJsonText<Pod>(pod_text));  // found by its text
  ASSERT_TRUE(c->ok());
  EXPECT_TRUE((*c)->spec.containers.SharesWith((*a)->spec.containers));
  EXPECT_EQ((*c)->spec.containers[0].image, "text-interned-test");
  EXPECT_EQ((*c)->spec.containers[0].resources.requests.at("cpu"), Quantity::MustParse("1"));
  // Another text of an equal list shares the value too.
  std::optional<util::StatusOr<Pod>> spaced(FromJsonText<Pod>(R"({"spec": {"containers": [ {"image":
      "text-interned-test", "name": "c", "resources": {"requests": {"cpu": "1"}}} ]}})"));
  ASSERT_TRUE(spaced->ok());
  EXPECT_TRUE((*spaced)->spec.containers.SharesWith((*c)->spec.containers));
  // Once no pod holds the list, its text finds nothing.
  a.reset();
  b.reset();
  c.reset();
  spaced.reset();
  EXPECT_EQ(Text::Find(hash, containers), nullptr);
}

TEST(CodecTest, NodesOfOneShapeShareTheirAllocatable) {
  auto text = [](const std::string& name, const std::string& cpu) {
    return R"({"metadata": {"name": ")" + name + R"("}, "status": {
      "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
      "allocatable": {"cpu": ")" + cpu + R"(", "memory": "32Gi", "pods": "110"}}})";
  };
  util::StatusOr<Node> a = FromJsonText<Node>(text("a", "4"));
  util::StatusOr<Node> b = FromJson<Node>(J(text("b", "4")));
  util::StatusOr<Node> other = FromJsonText<Node>(text("c", "2"));
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_TRUE(a->status.allocatable.SharesWith(b->status.allocatable));
  EXPECT_FALSE(a->status.allocatable.SharesWith(other->status.allocatable));
  EXPECT_EQ(other->status.allocatable->at("cpu"), Quantity::MustParse("2"));
  // Capacity is not kept.
  EXPECT_FALSE(ToJson(*a)["status"].contains("capacity"));
  ExpectRoundTrip(*a);
  b->status.allocatable.Mutable()["cpu"] = Quantity::MustParse("1");
  EXPECT_EQ(a->status.allocatable->at("cpu"), Quantity::MustParse("4"));
}

TEST(CodecTest, AMountWithBindOptionsIsKept) {
  constexpr std::string_view kText = R"({"spec": {"containers": [{"name": "c", "volumeMounts": [
      {"name": "token", "mountPath": "/t"}, {"name": "data", "mountPath": "/d", "bindMountOptions": ["rbind"]}]}]}})";
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "FromJsonText" : "FromJson");
    util::StatusOr<Pod> pod = fast ? FromJsonText<Pod>(kText) : FromJson<Pod>(J(kText));
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    ASSERT_EQ(pod->spec.containers[0].volume_mounts.size(), 1u);
    EXPECT_EQ(pod->spec.containers[0].volume_mounts[0].name, "data");
    EXPECT_EQ(pod->spec.containers[0].volume_mounts[0].bind_mount_options, std::vector<std::string>{"rbind"});
  }
}

TEST(CodecTest, PodLevelResourcesAndResizeStatus) {
  const char* text = R"({"metadata": {"name": "p"},
    "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
             "initContainers": [{"name": "sc", "restartPolicy": "Always"}],
             "resources": {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}},
    "status": {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
               "containerStatuses": [{"name": "c", "ready": true, "allocatedResources": {"cpu": "1500m"},
                                      "resources": {"requests": {"cpu": "3"}, "limits": {"cpu": "4"}}}],
               "initContainerStatuses": [{"name": "sc"}],
               "resources": {"requests": {"cpu": "2500m"}, "limits": {"memory": "3Gi"}},
               "allocatedResources": {"cpu": "2", "memory": "1Gi"}}})";
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "FromJsonText" : "FromJson");
    util::StatusOr<Pod> pod = fast ? FromJsonText<Pod>(text) : FromJson<Pod>(J(text));
    ASSERT_TRUE(pod.ok()) << pod.status().ToString();
    ASSERT_TRUE(pod->spec.resources.has_value());
    EXPECT_EQ(pod->spec.resources->requests.at("cpu").MilliValue(), 2000);
    EXPECT_EQ(pod->spec.resources->limits.at("memory").Value(), int64_t{2} << 30);
    ASSERT_EQ(pod->status.container_statuses.size(), 1u);
    const ContainerStatus& cs = pod->status.container_statuses[0];
    EXPECT_EQ(cs.name, "c");
    EXPECT_EQ(cs.allocated_resources.at("cpu").MilliValue(), 1500);
    ASSERT_TRUE(cs.resources.has_value());
    EXPECT_EQ(cs.resources->requests.at("cpu").MilliValue(), 3000);
    ASSERT_EQ(pod->status.init_container_statuses.size(), 1u);
    EXPECT_FALSE(pod->status.init_container_statuses[0].resources.has_value());
    EXPECT_EQ(pod->status.conditions[0].reason, "Infeasible");
    ASSERT_TRUE(pod->status.resources.has_value());
    EXPECT_EQ(pod->status.resources->requests.at("cpu").MilliValue(), 2500);
    EXPECT_EQ(pod->status.resources->limits.at("memory").Value(), int64_t{3} << 30);
    EXPECT_EQ(pod->status.allocated_resources.at("memory").Value(), int64_t{1} << 30);
    ExpectRoundTrip(*pod);
  }
  // A container without spec.resources at pod level keeps it unset.
  util::StatusOr<Pod> plain = FromJson<Pod>(J(R"({"spec": {"containers": []}})"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->spec.resources.has_value());
  EXPECT_FALSE(plain->status.resources.has_value());
  EXPECT_EQ(DecodeStatus<Pod>(J(R"({"status": {"containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "x"}}]}})"))
                .message()
                .substr(0, 49),
            "status.containerStatuses[0].allocatedResources.cp");
}

TEST(CodecTest, WorkloadSelectors) {
  util::StatusOr<Service> headless = FromJson<Service>(J(R"({"metadata": {"name": "s"}, "spec": {"clusterIP": "None"}})"));
  ASSERT_TRUE(headless.ok());
  EXPECT_FALSE(headless->spec.selector.has_value());
  util::StatusOr<Service> svc = FromJsonText<Service>(R"({"metadata": {"name": "s", "namespace": "n"},
      "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})");
  ASSERT_TRUE(svc.ok()) << svc.status().ToString();
  EXPECT_EQ(*svc->spec.selector, (StringMap{{"app", "web"}}));
  EXPECT_EQ(ToJson(*svc)["kind"], "Service");
  util::StatusOr<ReplicationController> rc =
      FromJson<ReplicationController>(J(R"({"metadata": {"name": "r"}, "spec": {"selector": {"a": "b"}}})"));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(rc->spec.selector, (StringMap{{"a", "b"}}));
  util::StatusOr<ReplicaSet> rs = FromJsonText<ReplicaSet>(
      R"({"metadata": {"name": "r"}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}}})");
  ASSERT_TRUE(rs.ok());
  EXPECT_EQ(rs->spec.selector->match_labels, (StringMap{{"app", "web"}}));
  EXPECT_EQ(ToJson(*rs)["apiVersion"], "apps/v1");
  util::StatusOr<StatefulSetList> sts = FromJson<StatefulSetList>(J(
      R"({"metadata": {"resourceVersion": "7"}, "items": [{"metadata": {"name": "db"},
         "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]}}}]})"));
  ASSERT_TRUE(sts.ok());
  ASSERT_EQ(sts->items.size(), 1u);
  EXPECT_EQ(sts->items[0].spec.selector->match_expressions[0].key, "app");
  EXPECT_EQ(DecodeStatus<ReplicaSet>(J(R"({"spec": {"selector": 3}})")).message().substr(0, 14), "spec.selector:");
}

// ---------------------------------------------------------------- ParseJson

TEST(CodecTest, ParseJsonReportsByteOffset) {
  auto bad = ParseJson(R"({"a": [1, 2,, 3]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("invalid JSON at byte 13: ", 0), 0u)
      << bad.status().message();
  EXPECT_FALSE(ParseJson("").ok());
  EXPECT_FALSE(ParseJson("{} x").ok());
  auto good = ParseJson(R"({"a": 1})");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)["a"], 1);
}

// ---------------------------------------------------------------- time

struct TimeCase {
  const char* text;
  int64_t unix_seconds;
  int64_t nanos;
};

class ParseTimeTest : public testing::TestWithParam<TimeCase> {};

TEST_P(ParseTimeTest, Parses) {
  const TimeCase& c = GetParam();
  auto t = ParseTime(c.text);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, At(c.unix_seconds, c.nanos)) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Codec, ParseTimeTest,
    testing::Values(TimeCase{"1970-01-01T00:00:00Z", 0, 0},
                    TimeCase{"2008-01-01T01:01:01Z", 1199149261, 0},
                    TimeCase{"2008-01-01T02:01:01+01:00", 1199149261, 0},
                    TimeCase{"2007-12-31T19:31:01-05:30", 1199149261, 0},
                    TimeCase{"2008-01-01T01:01:01.5Z", 1199149261, 500000000},
                    TimeCase{"2008-01-01T01:01:01.000003Z", 1199149261, 3000},
                    TimeCase{"2008-01-01T01:01:01.123456789Z", 1199149261, 123456789},
                    TimeCase{"2008-01-01T01:01:01.1234567891234Z", 1199149261, 123456789},
                    TimeCase{"2024-02-29T12:00:00Z", 1709208000, 0},
                    TimeCase{"1969-12-31T23:59:59.25Z", -1, 250000000}));

TEST(TimeTest, RejectsInvalid) {
  for (const char* text :
       {"", "yesterday", "2008-01-01", "2008-01-01 01:01:01Z", "2008-01-01t01:01:01Z",
        "2008-01-01T01:01:01z", "2008-01-01T01:01:01", "2008-01-01T01:01:01+0100",
        "2008-01-01T01:01:01+01", "2008-01-01T01:01:01.Z", "2008-01-01T01:01:01Zjunk",
        "2008-13-01T01:01:01Z", "2008-00-01T01:01:01Z", "2007-02-29T01:01:01Z",
        "2008-04-31T01:01:01Z", "2008-01-01T24:00:00Z", "2008-01-01T01:60:00Z",
        "2008-01-01T01:01:60Z", "2008-01-01T01:01:01+24:00", "2008-1-01T01:01:01Z",
        "20080101T010101Z"}) {
    auto t = ParseTime(text);
    EXPECT_FALSE(t.ok()) << text;
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), util::StatusCode::kInvalidArgument);
      EXPECT_NE(t.status().message().find(text), std::string::npos) << t.status().message();
    }
  }
}

TEST(TimeTest, SaturatesOutsideRepresentableRange) {
  auto early = ParseTime("0001-01-01T00:00:00Z");
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(*early, Time(Time::duration::min()));
  auto late = ParseTime("9999-12-31T23:59:59Z");
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(*late, Time(Time::duration::max()));
  // The extremes format without overflowing and parse back to themselves
  // (or, for the maximum, to within the second it was truncated to).
  EXPECT_EQ(FormatTime(Time(Time::duration::min())), "1677-09-21T00:12:43Z");
  EXPECT_EQ(FormatMicroTime(Time(Time::duration::min())), "1677-09-21T00:12:43.145224Z");
  EXPECT_EQ(FormatTime(Time(Time::duration::max())), "2262-04-11T23:47:16Z");
  EXPECT_EQ(ParseTime(FormatTime(Time(Time::duration::min()))).value(),
            Time(Time::duration::min()));
}

TEST(TimeTest, Formats) {
  EXPECT_EQ(FormatTime(At(0)), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(At(1199149261, 999999999)), "2008-01-01T01:01:01Z");  // truncates
  EXPECT_EQ(FormatMicroTime(At(1199149261, 999999999)), "2008-01-01T01:01:01.999999Z");
  EXPECT_EQ(FormatMicroTime(At(1199149261)), "2008-01-01T01:01:01.000000Z");
  EXPECT_EQ(FormatMicroTime(At(1199149261, 7000)), "2008-01-01T01:01:01.000007Z");
  EXPECT_EQ(FormatTime(At(1700000000)), "2023-11-14T22:13:20Z");
  EXPECT_EQ(FormatTime(At(-1, 500000000)), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatMicroTime(At(-1, 500000000)), "1969-12-31T23:59:59.500000Z");
  EXPECT_EQ(FormatTime(At(1709208000)), "2024-02-29T12:00:00Z");
  for (int64_t s : {int64_t{0}, int64_t{951782400}, int64_t{4102444799}, int64_t{-86400 * 365}}) {
    auto back = ParseTime(FormatTime(At(s)));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, At(s));
    auto micro = ParseTime(FormatMicroTime(At(s, 123456000)));
    ASSERT_TRUE(micro.ok());
    EXPECT_EQ(*micro, At(s, 123456000));
  }
}

TEST(TimeFormatTest, SecondsAndMicroseconds) {
  using namespace std::chrono;
  Time t = Time(seconds(1767225600)) + hours(13) + minutes(4) + seconds(5) +
           microseconds(123456) + nanoseconds(789);
  EXPECT_EQ(FormatTime(t), "2026-01-01T13:04:05Z");
  EXPECT_EQ(FormatMicroTime(t), "2026-01-01T13:04:05.123456Z");
  EXPECT_EQ(FormatMicroTime(Time(seconds(0))), "1970-01-01T00:00:00.000000Z");
  // Before the epoch: truncated towards the past, as Go formats it (the API writer relies on it).
  EXPECT_EQ(FormatMicroTime(Time(seconds(0)) - microseconds(1)),
            "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace ksched::api
