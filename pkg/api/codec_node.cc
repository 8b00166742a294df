// JSON fields of Node.

#include "pkg/api/codec_fields.h"

namespace ksched::api {

template <StructOf<NodeSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("podCIDR", s.pod_cidr);
  v("providerID", s.provider_id);
  v("unschedulable", s.unschedulable);
  v("taints", s.taints);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeSpec)

template <StructOf<NodeCondition> S, class V>
void VisitFields(S& s, V& v) {
  v("type", s.type, kKeepEmpty);
  v("status", s.status, kKeepEmpty);
  v("lastHeartbeatTime", s.last_heartbeat_time);
  v("lastTransitionTime", s.last_transition_time);
  v("reason", s.reason);
  v("message", s.message);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeCondition)

template <StructOf<ContainerImage> S, class V>
void VisitFields(S& s, V& v) {
  v("names", s.names);
  v("sizeBytes", s.size_bytes);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ContainerImage)

template <StructOf<NodeAddress> S, class V>
void VisitFields(S& s, V& v) {
  v("type", s.type, kKeepEmpty);
  v("address", s.address, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeAddress)

template <StructOf<NodeStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("allocatable", s.allocatable);
  v("phase", s.phase);
  v("conditions", s.conditions);
  v("addresses", s.addresses);
  v("images", s.images);
  v("declaredFeatures", s.declared_features);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeStatus)

template <StructOf<Node> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Node)

}  // namespace ksched::api
