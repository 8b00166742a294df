// The Kubernetes object model as ksched reads and writes it.
//
// Plain structs mirroring the Kubernetes API (core/v1, apps/v1,
// storage.k8s.io/v1, policy/v1, events.k8s.io/v1, coordination.k8s.io/v1),
// limited to the fields a scheduler reads or writes. Field names are the API's JSON names in
// snake_case; a `std::optional` marks a field the API leaves unset (nil)
// distinctly from its zero value. JSON conversion lives in codec.h.
//
// Ownership: objects decoded from the API are shared as
// `std::shared_ptr<const T>` (architecture decision 1); an update replaces the
// pointer and never mutates a shared object.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/boxed.h"
#include "pkg/api/quantity.h"
#include "pkg/api/resource_list.h"
#include "pkg/api/shared_box.h"
#include "pkg/api/shared_list.h"
#include "pkg/api/shared_map.h"

namespace ksched::api {

// metav1.Time (RFC 3339, second precision) and metav1.MicroTime (microsecond
// precision) both decode to a wall-clock time point.
using Time = std::chrono::system_clock::time_point;

using StringMap = std::map<std::string, std::string>;
// Labels: equal on the pods of one template, so held once.
using SharedStringMap = SharedMap<std::string, std::string>;

// intstr.IntOrString, e.g. PDB minAvailable "50%" or 2.
struct IntOrString {
  bool is_int = true;
  int32_t int_value = 0;
  std::string str_value;
};

// ---------------------------------------------------------------- metadata

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;  // "namespace" is a keyword
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  SharedStringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  // deletionGracePeriodSeconds, which no scheduler code reads, is skipped
  // when decoding.
};

struct ListMeta {
  std::string resource_version;
  std::string continue_;
  std::optional<int64_t> remaining_item_count;
};

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;
  std::string field_path;
};

// ---------------------------------------------------------------- selectors

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  StringMap match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool operator==(const LabelSelector&) const = default;
};

struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;

  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;  // only metadata.name

  bool operator==(const NodeSelectorTerm&) const = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;  // ORed

  bool operator==(const NodeSelector&) const = default;
};

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;
};

struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> match_label_expressions;
};

// ---------------------------------------------------------------- affinity

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;

  bool operator==(const PreferredSchedulingTerm&) const = default;
};

struct NodeAffinity {
  std::optional<NodeSelector> required_during_scheduling_ignored_during_execution;
  std::vector<PreferredSchedulingTerm> preferred_during_scheduling_ignored_during_execution;

  bool operator==(const NodeAffinity&) const = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;

  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm pod_affinity_term;

  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

struct PodAffinity {
  std::vector<PodAffinityTerm> required_during_scheduling_ignored_during_execution;
  std::vector<WeightedPodAffinityTerm> preferred_during_scheduling_ignored_during_execution;

  bool operator==(const PodAffinity&) const = default;
};

using PodAntiAffinity = PodAffinity;  // same shape in the API

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAntiAffinity> pod_anti_affinity;

  bool operator==(const Affinity&) const = default;
};

// ---------------------------------------------------------------- taints

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
  std::optional<Time> time_added;
};

struct Toleration {
  std::string key;
  std::string operator_;  // Equal (default when empty) or Exists
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> toleration_seconds;

  bool operator==(const Toleration&) const = default;
};

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;  // DoNotSchedule, ScheduleAnyway
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;  // Honor, Ignore
  std::optional<std::string> node_taints_policy;    // Honor, Ignore
  std::vector<std::string> match_label_keys;

  bool operator==(const TopologySpreadConstraint&) const = default;
};

// ---------------------------------------------------------------- containers

struct ContainerPort {
  std::string name;
  int32_t host_port = 0;
  int32_t container_port = 0;
  std::string protocol;  // TCP (default when empty), UDP, SCTP
  std::string host_ip;

  bool operator==(const ContainerPort&) const = default;
};

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;

  bool operator==(const ResourceRequirements&) const = default;
};

// What the scheduler reads of a container's restart rules: the action
// ("Restart", "RestartAllContainers"), for NodeDeclaredFeatures.
struct ContainerRestartRule {
  std::string action;

  bool operator==(const ContainerRestartRule&) const = default;
};

// What the scheduler reads of a volume mount: the bind mount options, which
// need a node that declares VolumeBindMountOptions (NodeDeclaredFeatures).
// Mounts without them are not kept when decoding.
struct VolumeMount {
  std::string name;
  std::vector<std::string> bind_mount_options;

  bool operator==(const VolumeMount&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  ResourceRequirements resources;
  // "Always" on an init container makes it a sidecar (restartable init
  // container), whose requests add to the regular containers'.
  std::optional<std::string> restart_policy;
  std::vector<ContainerRestartRule> restart_policy_rules;
  std::vector<VolumeMount> volume_mounts;

  bool operator==(const Container&) const = default;
};

// ---------------------------------------------------------------- volumes

struct PersistentVolumeClaimVolumeSource {
  std::string claim_name;
  bool read_only = false;
};

struct PersistentVolumeClaimSpec;  // below

struct PersistentVolumeClaimTemplate {
  ObjectMeta metadata;
  std::shared_ptr<const PersistentVolumeClaimSpec> spec;  // shared: the type is incomplete here
};

struct EphemeralVolumeSource {
  std::optional<PersistentVolumeClaimTemplate> volume_claim_template;
};

struct GCEPersistentDiskVolumeSource {
  std::string pd_name;
  std::string fs_type;
  int32_t partition = 0;
  bool read_only = false;
};

struct AWSElasticBlockStoreVolumeSource {
  std::string volume_id;
  std::string fs_type;
  int32_t partition = 0;
  bool read_only = false;
};

struct AzureDiskVolumeSource {
  std::string disk_name;
  std::string data_disk_uri;
  std::optional<bool> read_only;
  std::optional<std::string> kind;  // Shared, Dedicated, Managed; unset means Managed for CSI migration
};

struct CinderVolumeSource {
  std::string volume_id;
  std::string fs_type;
  bool read_only = false;
};

struct PortworxVolumeSource {
  std::string volume_id;
  std::string fs_type;
  bool read_only = false;
};

struct ISCSIVolumeSource {
  std::string target_portal;
  std::string iqn;
  int32_t lun = 0;
  std::vector<std::string> portals;
  bool read_only = false;
};

struct RBDVolumeSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool;
  bool read_only = false;
};

struct CSIVolumeSource {
  std::string driver;
  std::optional<bool> read_only;
  StringMap volume_attributes;
};

// An OCI image or artifact mounted as a volume (ImageVolume); ImageLocality
// counts it from kube 1.36.
struct ImageVolumeSource {
  std::string reference;
  std::string pull_policy;
};

// A pod volume: `name` plus at most one source. Sources the scheduler does
// not inspect (emptyDir, configMap, secret, hostPath, ...) are recorded by
// their JSON key in `other_source` so nothing pretends they are absent.
// At most one source is set; all but the small, common PVC reference are
// boxed, so a volume costs a few pointers rather than every source's size.
struct Volume {
  std::string name;
  std::optional<PersistentVolumeClaimVolumeSource> persistent_volume_claim;
  Boxed<EphemeralVolumeSource> ephemeral;
  Boxed<GCEPersistentDiskVolumeSource> gce_persistent_disk;
  Boxed<AWSElasticBlockStoreVolumeSource> aws_elastic_block_store;
  Boxed<AzureDiskVolumeSource> azure_disk;
  Boxed<CinderVolumeSource> cinder;
  Boxed<PortworxVolumeSource> portworx_volume;
  Boxed<ISCSIVolumeSource> iscsi;
  Boxed<RBDVolumeSource> rbd;
  Boxed<CSIVolumeSource> csi;
  Boxed<ImageVolumeSource> image;
  std::string other_source;
};

// ---------------------------------------------------------------- pod

struct PodSchedulingGate {
  std::string name;
};

// A pod's reference to a DRA ResourceClaim (resource.k8s.io): exactly one of
// the two sources is set. A template reference makes the resource-claim
// controller create a claim for the pod, named in PodStatus.
struct PodResourceClaim {
  std::string name;  // unique within the pod
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
};

// The claim generated for a template reference; unset name: none is needed.
struct PodResourceClaimStatus {
  std::string name;  // PodResourceClaim.name
  std::optional<std::string> resource_claim_name;
};

// One container's extended resource served by DRA: which request of the
// pod's extended-resource claim serves it (DRAExtendedResource).
struct ContainerExtendedResourceRequest {
  std::string container_name;
  std::string resource_name;
  std::string request_name;
};

// The ResourceClaim the scheduler created for the pod's extended resources
// backed by DRA, and which of its requests serves which container.
struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  std::string resource_claim_name;
};

struct PodSpec {
  std::string node_name;
  std::string scheduler_name;  // defaulted to "default-scheduler" by the API server
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<std::string> preemption_policy;  // PreemptLowerPriority, Never
  // SharedList and SharedBox: equal in the pods of one template, so held
  // once.
  SharedList<Container> init_containers;
  SharedList<Container> containers;
  // Pod-level requests and limits (PodLevelResources): cpu, memory and
  // hugepages-* set here replace the containers' sum for that resource.
  Boxed<ResourceRequirements> resources;
  ResourceList overhead;
  StringMap node_selector;
  SharedBox<Affinity> affinity;
  SharedList<Toleration> tolerations;
  SharedList<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<Volume> volumes;
  std::vector<PodSchedulingGate> scheduling_gates;
  std::vector<PodResourceClaim> resource_claims;
  bool host_network = false;
  // False: the pod runs in a user namespace.
  std::optional<bool> host_users;
  // The rest (restartPolicy, serviceAccountName, runtimeClassName,
  // terminationGracePeriodSeconds, ...), which no scheduler code reads, is
  // skipped when decoding: every pod of the cluster is held, and a cycle's
  // assumed copy of a Pod this small stays within malloc's small bins.
};

struct PodCondition {
  std::string type;    // PodScheduled, Ready, ...
  std::string status;  // True, False, Unknown
  std::string reason;
  std::string message;
  std::optional<Time> last_probe_time;
  std::optional<Time> last_transition_time;
  std::optional<int64_t> observed_generation;

  bool operator==(const PodCondition&) const = default;
};

// What the kubelet reports of one container; the scheduler reads the
// resources of an in-place resize: `resources` (configured on the running
// container) and `allocated_resources` (what the node admitted).
struct ContainerStatus {
  std::string name;
  Boxed<ResourceRequirements> resources;
  ResourceList allocated_resources;
};

// What the scheduler reads of a pod's status; the rest (hostIP, podIP,
// qosClass, ...) is skipped when decoding.
struct PodStatus {
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  // PodResizePending (reason Infeasible or Deferred) and PodResizeInProgress
  // report an in-place resize.
  // Shared: pods bound in the same second hold equal PodScheduled
  // conditions (kubelet-owned conditions are not kept).
  SharedList<PodCondition> conditions;
  std::vector<ContainerStatus> init_container_statuses;
  std::vector<ContainerStatus> container_statuses;
  std::string nominated_node_name;
  std::optional<Time> start_time;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  Boxed<PodExtendedResourceClaimStatus> extended_resource_claim_status;
  // The pod-level resources the kubelet actuated and admitted, with
  // spec.resources set (InPlacePodLevelResourcesVerticalScaling). An empty
  // list stands for Go's nil: the kubelet never reports one empty.
  Boxed<ResourceRequirements> resources;
  ResourceList allocated_resources;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

// ---------------------------------------------------------------- node

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string pod_cidr;
  std::string provider_id;
};

struct NodeCondition {
  std::string type;  // Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
  std::string status;
  std::string reason;
  std::string message;
  std::optional<Time> last_heartbeat_time;
  std::optional<Time> last_transition_time;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

struct NodeAddress {
  std::string type;
  std::string address;
};

struct NodeStatus {
  // Equal on the nodes of one shape, so held once. capacity, which no
  // scheduler code reads (Filter and Score use allocatable), is skipped when
  // decoding.
  SharedBox<ResourceList> allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<ContainerImage> images;
  std::vector<NodeAddress> addresses;
  std::string phase;
  // The features the kubelet declares (NodeDeclaredFeatures), sorted.
  std::vector<std::string> declared_features;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

// ---------------------------------------------------------------- storage

struct VolumeNodeAffinity {
  std::optional<NodeSelector> required;
};

struct CSIPersistentVolumeSource {
  std::string driver;
  std::string volume_handle;
  std::string fs_type;
  bool read_only = false;
  StringMap volume_attributes;
};

struct PersistentVolumeSpec {
  ResourceList capacity;
  std::vector<std::string> access_modes;  // ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod
  std::optional<std::string> volume_mode;  // Filesystem (default), Block
  std::string storage_class_name;
  std::optional<ObjectReference> claim_ref;
  std::optional<VolumeNodeAffinity> node_affinity;
  std::string persistent_volume_reclaim_policy;
  std::vector<std::string> mount_options;
  std::optional<CSIPersistentVolumeSource> csi;
  std::optional<GCEPersistentDiskVolumeSource> gce_persistent_disk;
  std::optional<AWSElasticBlockStoreVolumeSource> aws_elastic_block_store;
  std::optional<AzureDiskVolumeSource> azure_disk;
  std::optional<CinderVolumeSource> cinder;
  std::optional<PortworxVolumeSource> portworx_volume;
  std::string other_source;
};

struct PersistentVolumeStatus {
  std::string phase;  // Pending, Available, Bound, Released, Failed
  std::string message;
  std::string reason;
};

struct PersistentVolume {
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  PersistentVolumeStatus status;
};

struct VolumeResourceRequirements {
  ResourceList limits;
  ResourceList requests;
};

struct PersistentVolumeClaimSpec {
  std::vector<std::string> access_modes;
  std::optional<LabelSelector> selector;
  VolumeResourceRequirements resources;
  std::string volume_name;
  std::optional<std::string> storage_class_name;  // nil and "" differ in the API
  std::optional<std::string> volume_mode;
  std::optional<std::string> volume_attributes_class_name;
};

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending, Bound, Lost
  std::vector<std::string> access_modes;
  ResourceList capacity;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  StringMap parameters;
  std::optional<std::string> reclaim_policy;
  std::vector<std::string> mount_options;
  std::optional<bool> allow_volume_expansion;
  std::optional<std::string> volume_binding_mode;  // Immediate (default), WaitForFirstConsumer
  std::vector<TopologySelectorTerm> allowed_topologies;
};

struct VolumeNodeResources {
  std::optional<int32_t> count;
};

struct CSINodeDriver {
  std::string name;
  std::string node_id;
  std::vector<std::string> topology_keys;
  std::optional<VolumeNodeResources> allocatable;
};

struct CSINodeSpec {
  std::vector<CSINodeDriver> drivers;
};

struct CSINode {
  ObjectMeta metadata;
  CSINodeSpec spec;
};

struct CSIDriverSpec {
  std::optional<bool> attach_required;
  std::optional<bool> pod_info_on_mount;
  std::optional<bool> storage_capacity;
  std::optional<std::string> fs_group_policy;
  std::optional<bool> requires_republish;
  std::optional<bool> se_linux_mount;
  std::vector<std::string> volume_lifecycle_modes;
  std::optional<int32_t> node_allocatable_update_period_seconds;
  std::optional<bool> prevent_pod_scheduling_if_missing;  // VolumeLimitScaling (1.37)
};

struct CSIDriver {
  ObjectMeta metadata;
  CSIDriverSpec spec;
};

// Storage a CSI driver reports free for one class in one topology segment
// (namespaced, like the driver that publishes it).
struct CSIStorageCapacity {
  ObjectMeta metadata;
  std::optional<LabelSelector> node_topology;  // unset: reachable from no node
  std::string storage_class_name;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximum_volume_size;
};

// Only the PV name is modelled; an inline volume spec (migrated in-tree
// volumes) is not read by the scheduler.
struct VolumeAttachmentSource {
  std::optional<std::string> persistent_volume_name;
};

struct VolumeAttachmentSpec {
  std::string attacher;  // the CSI driver name
  VolumeAttachmentSource source;
  std::string node_name;
};

struct VolumeAttachmentStatus {
  bool attached = false;
};

struct VolumeAttachment {
  ObjectMeta metadata;
  VolumeAttachmentSpec spec;
  VolumeAttachmentStatus status;
};

// ---------------------------------------------------------------- workloads
// Only their selectors: PodTopologySpread's default constraints select the
// pods that the Services and controllers selecting a pod select.

struct ServiceSpec {
  // Unset selects no pods (a Service without selector); {} every pod.
  std::optional<StringMap> selector;
};

struct Service {
  ObjectMeta metadata;
  ServiceSpec spec;
};

struct ReplicationControllerSpec {
  StringMap selector;
};

struct ReplicationController {
  ObjectMeta metadata;
  ReplicationControllerSpec spec;
};

// apps/v1 ReplicaSetSpec and StatefulSetSpec share this shape here.
struct WorkloadSelectorSpec {
  std::optional<LabelSelector> selector;
};

struct ReplicaSet {
  ObjectMeta metadata;
  WorkloadSelectorSpec spec;
};

struct StatefulSet {
  ObjectMeta metadata;
  WorkloadSelectorSpec spec;
};

// ---------------------------------------------------------------- others

struct NamespaceStatus {
  std::string phase;  // Active, Terminating
};

struct Namespace {
  ObjectMeta metadata;
  NamespaceStatus status;
};

struct Condition {  // metav1.Condition
  std::string type;
  std::string status;
  int64_t observed_generation = 0;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
};

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  std::optional<LabelSelector> selector;  // nil selects nothing; {} selects everything
  std::optional<std::string> unhealthy_pod_eviction_policy;
};

struct PodDisruptionBudgetStatus {
  int64_t observed_generation = 0;
  std::map<std::string, Time> disrupted_pods;
  int32_t disruptions_allowed = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
  int32_t expected_pods = 0;
  std::vector<Condition> conditions;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
};

// POSTed to pods/NAME/binding.
struct Binding {
  ObjectMeta metadata;
  ObjectReference target;  // kind Node, name = node name
};

struct EventSeries {
  int32_t count = 0;
  std::optional<Time> last_observed_time;  // MicroTime
};

// events.k8s.io/v1 Event.
struct Event {
  ObjectMeta metadata;
  std::optional<Time> event_time;  // MicroTime
  std::optional<EventSeries> series;
  std::string reporting_controller;
  std::string reporting_instance;
  std::string action;
  std::string reason;
  ObjectReference regarding;
  std::optional<ObjectReference> related;
  std::string note;
  std::string type;  // Normal, Warning
  // deprecated* fields, kept for core/v1 Event compatibility.
  int32_t deprecated_count = 0;
  std::optional<Time> deprecated_first_timestamp;
  std::optional<Time> deprecated_last_timestamp;
  std::string deprecated_source_component;
  std::string deprecated_source_host;
};

struct LeaseSpec {
  std::optional<std::string> holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<Time> acquire_time;  // MicroTime
  std::optional<Time> renew_time;    // MicroTime
  std::optional<int32_t> lease_transitions;
  std::optional<std::string> strategy;
  std::optional<std::string> preferred_holder;
};

struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;
};

// A list response: `items` in server order plus paging metadata.
template <class T>
struct List {
  ListMeta metadata;
  std::vector<T> items;
};

using PodList = List<Pod>;
using NodeList = List<Node>;
using PersistentVolumeList = List<PersistentVolume>;
using PersistentVolumeClaimList = List<PersistentVolumeClaim>;
using StorageClassList = List<StorageClass>;
using CSINodeList = List<CSINode>;
using CSIDriverList = List<CSIDriver>;
using CSIStorageCapacityList = List<CSIStorageCapacity>;
using VolumeAttachmentList = List<VolumeAttachment>;
using NamespaceList = List<Namespace>;
using PodDisruptionBudgetList = List<PodDisruptionBudget>;
using EventList = List<Event>;
using LeaseList = List<Lease>;
using ServiceList = List<Service>;
using ReplicationControllerList = List<ReplicationController>;
using ReplicaSetList = List<ReplicaSet>;
using StatefulSetList = List<StatefulSet>;

// "namespace/name", or "name" for cluster-scoped objects: the key used by
// stores, queues and logs. Built with one allocation (`ns + "/" + name`
// would grow its temporary: a reallocation and copy on every queue Add).
inline std::string KeyOf(std::string_view namespace_, std::string_view name) {
  if (namespace_.empty()) return std::string(name);
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}
inline std::string KeyOf(const ObjectMeta& m) { return KeyOf(m.namespace_, m.name); }

}  // namespace ksched::api
