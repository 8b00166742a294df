// Human text for kubectl-ksched from /debug/explain's JSON
// (pkg/scheduler/explain_json.h). Missing or mistyped fields render as
// empty, never throw: the JSON comes from another process.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ksched::kubectl_ksched {

// `kubectl ksched why`: location, the FailedScheduling-style sentence and
// the filter counts, the top nodes' score table, the requeue events.
std::string RenderWhy(const nlohmann::json& explain);

// `kubectl ksched queue`.
std::string RenderQueue(const nlohmann::json& summary);

}  // namespace ksched::kubectl_ksched
