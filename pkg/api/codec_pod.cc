// JSON fields of Pod and what it contains: containers, affinity, taints and
// tolerations, topology spread constraints. Volumes live in codec_volume.cc.

#include "pkg/api/codec_fields.h"

namespace ksched::api {
namespace {

// A list decoded without the elements `drop` selects, its spare capacity
// given back: the object keeps it for its life.
template <class T>
void DropDecoded(std::vector<T>* out, bool (*drop)(const T&)) {
  const size_t before = out->size();
  std::erase_if(*out, drop);
  if (out->size() != before) out->shrink_to_fit();
}

template <class T>
util::Status DecodeDropping(const Decoder& d, std::vector<T>* out, bool (*drop)(const T&)) {
  KSCHED_API_RETURN_IF_ERROR(Decode<T>(d, out));
  DropDecoded(out, drop);
  return util::Status::Ok();
}

template <class T>
bool ReadFastDropping(JsonReader& r, std::vector<T>* out, bool (*drop)(const T&)) {
  if (!ReadFast<T>(r, out)) return false;
  DropDecoded(out, drop);
  return true;
}

}  // namespace

// ---------------------------------------------------------------- affinity

template <StructOf<PreferredSchedulingTerm> S, class V>
void VisitFields(S& s, V& v) {
  v("weight", s.weight, kKeepEmpty);
  v("preference", s.preference);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PreferredSchedulingTerm)

template <StructOf<NodeAffinity> S, class V>
void VisitFields(S& s, V& v) {
  v("requiredDuringSchedulingIgnoredDuringExecution",
    s.required_during_scheduling_ignored_during_execution);
  v("preferredDuringSchedulingIgnoredDuringExecution",
    s.preferred_during_scheduling_ignored_during_execution);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeAffinity)

template <StructOf<PodAffinityTerm> S, class V>
void VisitFields(S& s, V& v) {
  v("labelSelector", s.label_selector);
  v("namespaces", s.namespaces);
  v("topologyKey", s.topology_key, kKeepEmpty);
  v("namespaceSelector", s.namespace_selector);
  v("matchLabelKeys", s.match_label_keys);
  v("mismatchLabelKeys", s.mismatch_label_keys);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodAffinityTerm)

template <StructOf<WeightedPodAffinityTerm> S, class V>
void VisitFields(S& s, V& v) {
  v("weight", s.weight, kKeepEmpty);
  v("podAffinityTerm", s.pod_affinity_term);
}
KSCHED_API_DEFINE_FIELDS_CODEC(WeightedPodAffinityTerm)

template <StructOf<PodAffinity> S, class V>
void VisitFields(S& s, V& v) {
  v("requiredDuringSchedulingIgnoredDuringExecution",
    s.required_during_scheduling_ignored_during_execution);
  v("preferredDuringSchedulingIgnoredDuringExecution",
    s.preferred_during_scheduling_ignored_during_execution);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodAffinity)

template <StructOf<Affinity> S, class V>
void VisitFields(S& s, V& v) {
  v("nodeAffinity", s.node_affinity);
  v("podAffinity", s.pod_affinity);
  v("podAntiAffinity", s.pod_anti_affinity);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Affinity)

// ---------------------------------------------------------------- taints

template <StructOf<Taint> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key, kKeepEmpty);
  v("value", s.value);
  v("effect", s.effect, kKeepEmpty);
  v("timeAdded", s.time_added);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Taint)

template <StructOf<Toleration> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key);
  v("operator", s.operator_);
  v("value", s.value);
  v("effect", s.effect);
  v("tolerationSeconds", s.toleration_seconds);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Toleration)

template <StructOf<TopologySpreadConstraint> S, class V>
void VisitFields(S& s, V& v) {
  v("maxSkew", s.max_skew, kKeepEmpty);
  v("topologyKey", s.topology_key, kKeepEmpty);
  v("whenUnsatisfiable", s.when_unsatisfiable, kKeepEmpty);
  v("labelSelector", s.label_selector);
  v("minDomains", s.min_domains);
  v("nodeAffinityPolicy", s.node_affinity_policy);
  v("nodeTaintsPolicy", s.node_taints_policy);
  v("matchLabelKeys", s.match_label_keys);
}
KSCHED_API_DEFINE_FIELDS_CODEC(TopologySpreadConstraint)

// ---------------------------------------------------------------- containers

template <StructOf<ContainerPort> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name);
  v("hostPort", s.host_port);
  v("containerPort", s.container_port, kKeepEmpty);
  v("protocol", s.protocol);
  v("hostIP", s.host_ip);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ContainerPort)

template <StructOf<ResourceRequirements> S, class V>
void VisitFields(S& s, V& v) {
  v("limits", s.limits);
  v("requests", s.requests);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ResourceRequirements)

template <StructOf<ContainerRestartRule> S, class V>
void VisitFields(S& s, V& v) {
  v("action", s.action);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ContainerRestartRule)

template <StructOf<VolumeMount> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("bindMountOptions", s.bind_mount_options);
}
KSCHED_API_DEFINE_FIELDS_CODEC(VolumeMount)

namespace {

// Mounts without bind options, nearly all of them, tell the scheduler
// nothing; dropping them makes the containers of one template's pods equal
// (each pod mounts its own service account token volume) so they share.
bool IsPlainMount(const VolumeMount& m) { return m.bind_mount_options.empty(); }

}  // namespace

util::Status Decode(const Decoder& d, std::vector<VolumeMount>* out) {
  return DecodeDropping(d, out, IsPlainMount);
}

bool ReadFast(JsonReader& r, std::vector<VolumeMount>* out) { return ReadFastDropping(r, out, IsPlainMount); }

template <StructOf<Container> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("image", s.image);
  v("ports", s.ports);
  v("resources", s.resources);
  v("restartPolicy", s.restart_policy);
  v("restartPolicyRules", s.restart_policy_rules);
  v("volumeMounts", s.volume_mounts);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Container)

template <StructOf<ContainerStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("resources", s.resources);
  v("allocatedResources", s.allocated_resources);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ContainerStatus)

// ---------------------------------------------------------------- pod

template <StructOf<PodSchedulingGate> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodSchedulingGate)

template <StructOf<PodResourceClaim> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("resourceClaimName", s.resource_claim_name);
  v("resourceClaimTemplateName", s.resource_claim_template_name);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodResourceClaim)

template <StructOf<PodResourceClaimStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name, kKeepEmpty);
  v("resourceClaimName", s.resource_claim_name);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodResourceClaimStatus)

template <StructOf<ContainerExtendedResourceRequest> S, class V>
void VisitFields(S& s, V& v) {
  v("containerName", s.container_name, kKeepEmpty);
  v("resourceName", s.resource_name, kKeepEmpty);
  v("requestName", s.request_name, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ContainerExtendedResourceRequest)

template <StructOf<PodExtendedResourceClaimStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("requestMappings", s.request_mappings, kKeepEmpty);
  v("resourceClaimName", s.resource_claim_name, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodExtendedResourceClaimStatus)

template <StructOf<PodSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("nodeName", s.node_name);
  v("schedulerName", s.scheduler_name);
  v("priority", s.priority);
  v("priorityClassName", s.priority_class_name);
  v("preemptionPolicy", s.preemption_policy);
  v("initContainers", s.init_containers);
  v("containers", s.containers, kKeepEmpty);
  v("resources", s.resources);
  v("overhead", s.overhead);
  v("nodeSelector", s.node_selector);
  v("affinity", s.affinity);
  v("tolerations", s.tolerations);
  v("topologySpreadConstraints", s.topology_spread_constraints);
  v("volumes", s.volumes);
  v("schedulingGates", s.scheduling_gates);
  v("resourceClaims", s.resource_claims);
  v("hostNetwork", s.host_network);
  v("hostUsers", s.host_users);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodSpec)

template <StructOf<PodCondition> S, class V>
void VisitFields(S& s, V& v) {
  v("type", s.type, kKeepEmpty);
  v("status", s.status, kKeepEmpty);
  v("reason", s.reason);
  v("message", s.message);
  v("lastProbeTime", s.last_probe_time);
  v("lastTransitionTime", s.last_transition_time);
  v("observedGeneration", s.observed_generation);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodCondition)

namespace {

bool IsKubeletOwned(const PodCondition& c) {
  return c.type == "Ready" || c.type == "Initialized" || c.type == "ContainersReady" ||
         c.type == "PodReadyToStartContainers";
}

}  // namespace

util::Status Decode(const Decoder& d, std::vector<PodCondition>* out) {
  return DecodeDropping(d, out, IsKubeletOwned);
}

bool ReadFast(JsonReader& r, std::vector<PodCondition>* out) { return ReadFastDropping(r, out, IsKubeletOwned); }

template <StructOf<PodStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("phase", s.phase);
  v("conditions", s.conditions);
  v("initContainerStatuses", s.init_container_statuses);
  v("containerStatuses", s.container_statuses);
  v("nominatedNodeName", s.nominated_node_name);
  v("startTime", s.start_time);
  v("resourceClaimStatuses", s.resource_claim_statuses);
  v("extendedResourceClaimStatus", s.extended_resource_claim_status);
  v("resources", s.resources);
  v("allocatedResources", s.allocated_resources);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodStatus)

template <StructOf<Pod> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Pod)

}  // namespace ksched::api
