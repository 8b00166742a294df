// Renders a SimulationResult: JSON (the schema documented in
// docs/simulate.md, field names stable) or human-readable tables.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pkg/simulate/result.h"

namespace ksched::simulate {

// Bumped when a field changes meaning or disappears (additions keep it).
inline constexpr int kReportVersion = 1;

nlohmann::ordered_json ReportJson(const SimulationResult& result);

// One row per pod (NAMESPACE NAME NODE ...); with result.explain, a block
// per pod with every node's Filter verdict and Score breakdown.
std::string ReportTable(const SimulationResult& result);

// "claim <name>[ (for the pod's extended resources)]: <request> -> <device>, ..."
std::string ClaimAllocationText(const ClaimAllocation& claim);

// "claim <name>, request <request>: <R> devices reach the node, <U> usable
// (<reason> <n>, ...)".
std::string RequestDevicesText(const RequestDevices& request);

}  // namespace ksched::simulate
