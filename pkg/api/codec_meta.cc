// JSON fields of metadata, references, selectors and metav1.Condition.

#include "pkg/api/codec_fields.h"

namespace ksched::api {

template <StructOf<OwnerReference> S, class V>
void VisitFields(S& s, V& v) {
  v("apiVersion", s.api_version, kKeepEmpty);
  v("kind", s.kind, kKeepEmpty);
  v("name", s.name, kKeepEmpty);
  v("uid", s.uid, kKeepEmpty);
  v("controller", s.controller);
  v("blockOwnerDeletion", s.block_owner_deletion);
}
KSCHED_API_DEFINE_FIELDS_CODEC(OwnerReference)

template <StructOf<ObjectMeta> S, class V>
void VisitFields(S& s, V& v) {
  v("name", s.name);
  v("generateName", s.generate_name);
  v("namespace", s.namespace_);
  v("uid", s.uid);
  v("resourceVersion", s.resource_version);
  v("generation", s.generation);
  v("labels", s.labels);
  v("annotations", s.annotations);
  v("ownerReferences", s.owner_references);
  v("finalizers", s.finalizers);
  v("creationTimestamp", s.creation_timestamp);
  v("deletionTimestamp", s.deletion_timestamp);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ObjectMeta)

template <StructOf<ListMeta> S, class V>
void VisitFields(S& s, V& v) {
  v("resourceVersion", s.resource_version);
  v("continue", s.continue_);
  v("remainingItemCount", s.remaining_item_count);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ListMeta)

template <StructOf<ObjectReference> S, class V>
void VisitFields(S& s, V& v) {
  v("kind", s.kind);
  v("namespace", s.namespace_);
  v("name", s.name);
  v("uid", s.uid);
  v("apiVersion", s.api_version);
  v("resourceVersion", s.resource_version);
  v("fieldPath", s.field_path);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ObjectReference)

template <StructOf<LabelSelectorRequirement> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key, kKeepEmpty);
  v("operator", s.operator_, kKeepEmpty);
  v("values", s.values);
}
KSCHED_API_DEFINE_FIELDS_CODEC(LabelSelectorRequirement)

template <StructOf<LabelSelector> S, class V>
void VisitFields(S& s, V& v) {
  v("matchLabels", s.match_labels);
  v("matchExpressions", s.match_expressions);
}
KSCHED_API_DEFINE_FIELDS_CODEC(LabelSelector)

template <StructOf<NodeSelectorRequirement> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key, kKeepEmpty);
  v("operator", s.operator_, kKeepEmpty);
  v("values", s.values);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeSelectorRequirement)

template <StructOf<NodeSelectorTerm> S, class V>
void VisitFields(S& s, V& v) {
  v("matchExpressions", s.match_expressions);
  v("matchFields", s.match_fields);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeSelectorTerm)

template <StructOf<NodeSelector> S, class V>
void VisitFields(S& s, V& v) {
  v("nodeSelectorTerms", s.node_selector_terms, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NodeSelector)

template <StructOf<TopologySelectorLabelRequirement> S, class V>
void VisitFields(S& s, V& v) {
  v("key", s.key, kKeepEmpty);
  v("values", s.values, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(TopologySelectorLabelRequirement)

template <StructOf<TopologySelectorTerm> S, class V>
void VisitFields(S& s, V& v) {
  v("matchLabelExpressions", s.match_label_expressions);
}
KSCHED_API_DEFINE_FIELDS_CODEC(TopologySelectorTerm)

template <StructOf<Condition> S, class V>
void VisitFields(S& s, V& v) {
  v("type", s.type, kKeepEmpty);
  v("status", s.status, kKeepEmpty);
  v("observedGeneration", s.observed_generation);
  v("lastTransitionTime", s.last_transition_time);
  v("reason", s.reason, kKeepEmpty);
  v("message", s.message, kKeepEmpty);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Condition)

}  // namespace ksched::api
