// JSON fields of scheduler-plugins' PodGroup (podgroup.h).

#include "pkg/api/codec_fields.h"
#include "pkg/api/podgroup.h"

namespace ksched::api {

template <StructOf<PodGroupSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("minMember", s.min_member);
  v("minResources", s.min_resources);
  v("scheduleTimeoutSeconds", s.schedule_timeout_seconds);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodGroupSpec)

template <StructOf<PodGroupStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("phase", s.phase);
  v("occupiedBy", s.occupied_by);
  v("scheduled", s.scheduled);
  v("running", s.running);
  v("succeeded", s.succeeded);
  v("failed", s.failed);
  v("scheduleStartTime", s.schedule_start_time);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodGroupStatus)

template <StructOf<PodGroup> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodGroup)

std::string_view PodGroupNameOf(const Pod& pod) {
  auto it = pod.metadata.labels.find(std::string(kPodGroupLabel));
  return it == pod.metadata.labels.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace ksched::api
