#include "pkg/scheduler/apiwriter/scheduler_events.h"

namespace ksched::scheduler::apiwriter {

std::string TruncateMessage(std::string_view message) {
  if (message.size() <= kNoteLengthLimit) return std::string(message);
  constexpr std::string_view kSuffix = " ...";
  size_t cut = kNoteLengthLimit - kSuffix.size();
  // Back up over UTF-8 continuation bytes (10xxxxxx) so the cut falls on a
  // character boundary.
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;
  std::string out(message.substr(0, cut));
  out += kSuffix;
  return out;
}

api::ObjectReference PodReference(const api::Pod& pod) {
  api::ObjectReference ref;
  ref.kind = "Pod";
  ref.api_version = "v1";
  ref.namespace_ = pod.metadata.namespace_;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  ref.resource_version = pod.metadata.resource_version;
  return ref;
}

EventRecord FailedSchedulingEvent(const api::Pod& pod, std::string_view scheduler_name,
                                  std::string_view message) {
  EventRecord r;
  r.regarding = PodReference(pod);
  r.type = kEventTypeWarning;
  r.reason = kReasonFailedScheduling;
  r.action = kActionScheduling;
  r.note = TruncateMessage(message);
  r.reporting_controller = std::string(scheduler_name);
  return r;
}

EventRecord ScheduledEvent(const api::Pod& pod, std::string_view scheduler_name,
                           std::string_view node_name) {
  EventRecord r;
  r.regarding = PodReference(pod);
  r.type = kEventTypeNormal;
  r.reason = kReasonScheduled;
  r.action = kActionBinding;
  r.note = "Successfully assigned " + pod.metadata.namespace_ + "/" + pod.metadata.name + " to " +
           std::string(node_name);
  r.reporting_controller = std::string(scheduler_name);
  return r;
}

EventRecord PreemptedEvent(const api::Pod& victim, const api::Pod& preemptor, std::string_view scheduler_name,
                           std::string_view node_name, bool in_memory) {
  EventRecord r;
  r.regarding = PodReference(victim);
  r.related = PodReference(preemptor);
  r.type = kEventTypeNormal;
  r.reason = kReasonPreempted;
  r.action = kActionPreempting;
  r.note = "Preempted by pod " + preemptor.metadata.uid + " on node " + std::string(node_name);
  if (in_memory) r.note += " (in kube-scheduler memory).";
  r.reporting_controller = std::string(scheduler_name);
  return r;
}

}  // namespace ksched::scheduler::apiwriter
