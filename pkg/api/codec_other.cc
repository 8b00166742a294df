// JSON fields of Namespace, PodDisruptionBudget, Binding, Event and Lease.

#include <algorithm>
#include <iterator>
#include <string>

#include "pkg/api/codec_fields.h"

namespace ksched::api {

template <StructOf<NamespaceStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("phase", s.phase);
}
KSCHED_API_DEFINE_FIELDS_CODEC(NamespaceStatus)

template <StructOf<Namespace> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Namespace)

// ---------------------------------------------------------------- PDB

template <StructOf<PodDisruptionBudgetSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("minAvailable", s.min_available);
  v("selector", s.selector);
  v("maxUnavailable", s.max_unavailable);
  v("unhealthyPodEvictionPolicy", s.unhealthy_pod_eviction_policy);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodDisruptionBudgetSpec)

template <StructOf<PodDisruptionBudgetStatus> S, class V>
void VisitFields(S& s, V& v) {
  v("observedGeneration", s.observed_generation);
  // A null time still records the pod as disrupted: the key is what counts.
  // (Encode below writes Time{} back as null.)
  v("disruptedPods", s.disrupted_pods);
  v("disruptionsAllowed", s.disruptions_allowed, kKeepEmpty);
  v("currentHealthy", s.current_healthy, kKeepEmpty);
  v("desiredHealthy", s.desired_healthy, kKeepEmpty);
  v("expectedPods", s.expected_pods, kKeepEmpty);
  v("conditions", s.conditions);
}

util::Status Decode(const Decoder& d, PodDisruptionBudgetStatus* out) {
  return DecodeFields(d, out);
}

// Go writes a zero metav1.Time as null, and a null decodes to the zero
// Time{} here, so the zero value goes back out as null.
void Encode(const PodDisruptionBudgetStatus& in, nlohmann::json* out) {
  EncodeFields(in, out);
  auto it = out->find("disruptedPods");
  if (it == out->end()) return;
  for (const auto& [pod, time] : in.disrupted_pods) {
    if (time == Time{}) (*it)[pod] = nullptr;
  }
}

template <StructOf<PodDisruptionBudget> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}
KSCHED_API_DEFINE_FIELDS_CODEC(PodDisruptionBudget)

// ---------------------------------------------------------------- Binding

template <StructOf<Binding> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("target", s.target);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Binding)

// ---------------------------------------------------------------- Event

template <StructOf<EventSeries> S, class V>
void VisitFields(S& s, V& v) {
  v("count", s.count, kKeepEmpty);
  v("lastObservedTime", s.last_observed_time, kMicroTime);
}
KSCHED_API_DEFINE_FIELDS_CODEC(EventSeries)

namespace {

// core/v1 EventSource, which events.k8s.io/v1 keeps as deprecatedSource.
struct EventSource {
  std::string component;
  std::string host;
};

template <StructOf<EventSource> S, class V>
void VisitFields(S& s, V& v) {
  v("component", s.component);
  v("host", s.host);
}

util::Status Decode(const Decoder& d, EventSource* out) { return DecodeFields(d, out); }

}  // namespace

// The events.k8s.io/v1 members; deprecatedSource is nested, so handled by
// Decode/Encode below.
template <StructOf<Event> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("eventTime", s.event_time, kMicroTime);
  v("series", s.series);
  v("reportingController", s.reporting_controller);
  v("reportingInstance", s.reporting_instance);
  v("action", s.action);
  v("reason", s.reason);
  v("regarding", s.regarding);
  v("related", s.related);
  v("note", s.note);
  v("type", s.type);
  v("deprecatedCount", s.deprecated_count);
  v("deprecatedFirstTimestamp", s.deprecated_first_timestamp);
  v("deprecatedLastTimestamp", s.deprecated_last_timestamp);
}

// Reads an events.k8s.io/v1 Event, and also a core/v1 Event: the API server
// serves the same objects under both groups, and the core names
// (involvedObject, message, source, count, firstTimestamp, lastTimestamp,
// reportingComponent) map one to one onto the new ones. A new name wins when
// both are present.
util::Status Decode(const Decoder& d, Event* out) {
  KSCHED_API_RETURN_IF_ERROR(d.RequireObject());
  if (d.IsAbsent()) return util::Status::Ok();
  DecodeFieldVisitor v(d);
  VisitFields(*out, v);
  EventSource source;
  v("deprecatedSource", source);
  auto fallback = [&](const char* new_name, const char* core_name, auto& field) {
    if (d.Field(new_name).IsAbsent()) v(core_name, field);
  };
  fallback("regarding", "involvedObject", out->regarding);
  fallback("note", "message", out->note);
  fallback("deprecatedSource", "source", source);
  fallback("deprecatedCount", "count", out->deprecated_count);
  fallback("deprecatedFirstTimestamp", "firstTimestamp", out->deprecated_first_timestamp);
  fallback("deprecatedLastTimestamp", "lastTimestamp", out->deprecated_last_timestamp);
  fallback("reportingController", "reportingComponent", out->reporting_controller);
  out->deprecated_source_component = std::move(source.component);
  out->deprecated_source_host = std::move(source.host);
  return v.status();
}

// Always the events.k8s.io/v1 shape.
void Encode(const Event& in, nlohmann::json* out) {
  EncodeFields(in, out);
  if (in.deprecated_source_component.empty() && in.deprecated_source_host.empty()) return;
  nlohmann::json::object_t source;
  if (!in.deprecated_source_component.empty()) source["component"] = in.deprecated_source_component;
  if (!in.deprecated_source_host.empty()) source["host"] = in.deprecated_source_host;
  (*out)["deprecatedSource"] = std::move(source);
}

void Write(JsonWriter& w, const Event& in) {
  w.BeginObject();
  WriteFieldsOf(w, in);
  if (!in.deprecated_source_component.empty() || !in.deprecated_source_host.empty()) {
    w.Key("deprecatedSource");
    w.BeginObject();
    if (!in.deprecated_source_component.empty()) {
      w.Key("component");
      w.String(in.deprecated_source_component);
    }
    if (!in.deprecated_source_host.empty()) {
      w.Key("host");
      w.String(in.deprecated_source_host);
    }
    w.EndObject();
  }
  w.EndObject();
}

// ---------------------------------------------------------------- Lease

template <StructOf<LeaseSpec> S, class V>
void VisitFields(S& s, V& v) {
  v("holderIdentity", s.holder_identity);
  v("leaseDurationSeconds", s.lease_duration_seconds);
  v("acquireTime", s.acquire_time, kMicroTime);
  v("renewTime", s.renew_time, kMicroTime);
  v("leaseTransitions", s.lease_transitions);
  v("strategy", s.strategy);
  v("preferredHolder", s.preferred_holder);
}
KSCHED_API_DEFINE_FIELDS_CODEC(LeaseSpec)

template <StructOf<Lease> S, class V>
void VisitFields(S& s, V& v) {
  v("metadata", s.metadata);
  v("spec", s.spec);
}
KSCHED_API_DEFINE_FIELDS_CODEC(Lease)

// Hand-written decoders: the fast path hands them the value (codec_fields.h).
bool ReadFast(JsonReader& r, PodDisruptionBudgetStatus* out) { return ReadFastViaDecode(r, out); }
void Write(JsonWriter& w, const PodDisruptionBudgetStatus& in) { WriteViaEncode(w, in); }
// Events are read on every Event the scheduler creates (the API server's
// answer, which always carries "deprecatedSource": {}), so the
// events.k8s.io/v1 shape has a fast path: VisitFields' members and
// deprecatedSource, which is what Decode reads when no core/v1 name is
// present. An object with a core/v1 name fails the fast path, and the
// caller decodes it with Decode.
bool ReadFast(JsonReader& r, Event* out) {
  static constexpr std::string_view kCoreNames[] = {"involvedObject", "message", "source", "count",
                                                    "firstTimestamp", "lastTimestamp", "reportingComponent"};
  return ReadFieldsOr(r, out, [&](std::string_view key) {
    if (key == "deprecatedSource") {
      // A repeated member: the DOM keeps the last one whole.
      EventSource source;
      if (!ReadFields(r, &source)) return false;
      out->deprecated_source_component = std::move(source.component);
      out->deprecated_source_host = std::move(source.host);
      return true;
    }
    return std::find(std::begin(kCoreNames), std::end(kCoreNames), key) == std::end(kCoreNames) && r.SkipValue();
  });
}

}  // namespace ksched::api
