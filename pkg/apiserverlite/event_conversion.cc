#include "pkg/apiserverlite/event_conversion.h"

#include <utility>

namespace ksched::apiserver {

namespace {

// {core field, events.k8s.io/v1 field}.
constexpr std::pair<const char*, const char*> kFieldMap[] = {
    {"metadata", "metadata"},
    {"involvedObject", "regarding"},
    {"related", "related"},
    {"message", "note"},
    {"reason", "reason"},
    {"type", "type"},
    {"action", "action"},
    {"reportingComponent", "reportingController"},
    {"reportingInstance", "reportingInstance"},
    {"eventTime", "eventTime"},
    {"series", "series"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
};

}  // namespace

nlohmann::json CoreEventToEventsV1(const nlohmann::json& core) {
  nlohmann::json out = {{"kind", "Event"}, {"apiVersion", "events.k8s.io/v1"}};
  for (const auto& [from, to] : kFieldMap) {
    auto it = core.find(from);
    if (it != core.end() && !it->is_null()) out[to] = *it;
  }
  return out;
}

nlohmann::json EventsV1ToCoreEvent(const nlohmann::json& v1) {
  nlohmann::json out = {{"kind", "Event"}, {"apiVersion", "v1"}};
  if (!v1.is_object()) return out;
  for (const auto& [to, from] : kFieldMap) {
    auto it = v1.find(from);
    if (it != v1.end() && !it->is_null()) out[to] = *it;
  }
  return out;
}

}  // namespace ksched::apiserver
