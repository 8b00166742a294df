// UsageChartHtml: the HTML report's picture of how full each node is — per
// node, CPU and memory requested / allocatable before the simulation and
// after it, as bars in one inline <svg> (no script, no external resource).
//
// Large clusters: at most `max_nodes` nodes are drawn, those whose
// requests changed first, in name order; a note under the picture counts
// the others. Every node name is escaped (html_escape.h).
//
// Thread-safety: pure function. Linear in the nodes (plus sorting).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pkg/simulate/result.h"

namespace ksched::simulate {

std::string UsageChartHtml(const std::vector<NodeUsage>& usage, size_t max_nodes);

// "250m", "2", "1.5" (cores) and "512Mi", "8Gi", "1.5Gi", "100" (bytes):
// the report's short forms of Kubernetes quantities.
std::string FormatMilliCpu(int64_t milli);
std::string FormatBytes(int64_t bytes);

}  // namespace ksched::simulate
