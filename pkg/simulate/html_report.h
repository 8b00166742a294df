// ReportHtml: a SimulationResult as one self-contained HTML page (the
// `--output html` of `ksched simulate`): inline style and script only, no
// external resource, so it works opened from disk, offline. It holds
//   - a summary, and the pods table (where each pod went; pending ones with
//     the FailedScheduling-style message; victims; evictions);
//   - the node usage picture (usage_chart.h: CPU and memory requested /
//     allocatable before and after, inline SVG);
//   - with result.explain, per pod a nodes x plugins table: Filter verdict,
//     per Score plugin the weighted score (raw -> normalized x weight under
//     it) and the total; the chosen node's row has class "chosen" and a
//     visible "chosen" marker; and the rejected nodes counted per plugin
//     and reason, as FailedScheduling counts them.
// Every table is sortable by clicking a header (html_report_assets.h).
// Every string from the input is escaped (html_escape.h).
//
// Size: a pod's table lists every node while the cluster has at most
// max_nodes_per_pod nodes; above that, only the best max_nodes_per_pod
// feasible nodes by total score (the chosen node always among them), with
// the rejected nodes in the per-reason counts only, and a note saying so.
//
// Input is the plain SimulationResult, whatever produced it.
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>

#include "pkg/simulate/result.h"

namespace ksched::simulate {

struct HtmlReportOptions {
  size_t max_nodes_per_pod = 100;
  size_t max_chart_nodes = 200;
};

std::string ReportHtml(const SimulationResult& result, const HtmlReportOptions& options = {});

}  // namespace ksched::simulate
