// JSON fields of Service, ReplicationController, ReplicaSet and StatefulSet:
// metadata and the pod selector, which is all the scheduler reads of them.

#include "pkg/api/codec_fields.h"

namespace ksched::api {

template <StructOf<ServiceSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("selector", s.selector);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ServiceSpec)

template <StructOf<Service> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Service)

template <StructOf<ReplicationControllerSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("selector", s.selector);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ReplicationControllerSpec)

template <StructOf<ReplicationController> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ReplicationController)

template <StructOf<WorkloadSelectorSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("selector", s.selector);
}
KSCHED_API_DEFINE_FIELDS_CODEC(WorkloadSelectorSpec)

template <StructOf<ReplicaSet> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(ReplicaSet)

template <StructOf<StatefulSet> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(StatefulSet)

}  // namespace ksched::api
