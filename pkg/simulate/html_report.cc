#include "pkg/simulate/html_report.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "pkg/simulate/html_escape.h"
#include "pkg/simulate/html_report_assets.h"
#include "pkg/simulate/report.h"
#include "pkg/simulate/usage_chart.h"

namespace ksched::simulate {

namespace {

std::string Esc(std::string_view s) { return HtmlEscape(s); }

std::string JoinStrings(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// <th> of a sortable table; numeric columns compare as numbers.
std::string Th(const std::string& text, bool numeric = false) {
  return std::string("<th") + (numeric ? " data-type=\"num\"" : "") + ">" + text + "</th>";
}

std::string Summary(const SimulationResult& r) {
  int scheduled = 0, pending = 0, preemptors = 0, victims = 0;
  for (const PodOutcome& p : r.pods) {
    if (!p.node.empty()) {
      ++scheduled;
    } else if (p.preempted_by.empty()) {
      ++pending;
    }
    if (!p.victims.empty()) ++preemptors;
    victims += static_cast<int>(p.victims.size());
  }
  auto item = [](const char* id, const char* label, int n) {
    return std::string("<span id=\"summary-") + id + "\"><b>" + std::to_string(n) + "</b> " + label + "</span>";
  };
  std::string out = "<p class=\"summary\">" + item("nodes", "nodes", r.nodes) +
                    item("pods", "pods", static_cast<int>(r.pods.size())) + item("scheduled", "scheduled", scheduled) +
                    item("pending", "pending", pending) + item("preemptors", "preemptors", preemptors) +
                    item("victims", "victims", victims) + "</p>";
  out += "<p class=\"meta\">Profiles: " + Esc(JoinStrings(r.profiles, ", ")) + " &middot; tie-break: " +
         Esc(r.tie_break) + (r.seed ? " &middot; seed: " + std::to_string(*r.seed) : std::string()) +
         " &middot; explain: " + (r.explain ? "yes" : "no") + "</p>";
  if (!r.settled) {
    out +=
        "<p class=\"warn\">Stopped with pods still retrying among themselves: none was bound or evicted for "
        "the retry horizon (or in 10 cycles per pending pod). Their last failure is shown.</p>";
  }
  return out;
}

std::string PodsTable(const SimulationResult& r) {
  std::string out = "<table id=\"pods\" class=\"sortable\"><thead><tr>" + Th("Namespace") + Th("Name") +
                    Th("Priority", true) + Th("Node") + Th("Nominated") + Th("Victims") + Th("Attempts", true) +
                    Th("Message") + "</tr></thead><tbody>";
  for (size_t i = 0; i < r.pods.size(); ++i) {
    const PodOutcome& p = r.pods[i];
    std::string state = "scheduled", node_cell = Esc(p.node), message;
    if (!p.preempted_by.empty()) {
      state = "evicted";
      node_cell = "evicted";
      message = "preempted by " + Esc(p.preempted_by);
    } else if (p.node.empty()) {
      state = p.gated_by.empty() ? "pending" : "gated";
      node_cell = "pending";
      message = p.fit_error ? Esc(*p.fit_error) : !p.gated_by.empty() ? "gated by " + Esc(p.gated_by) : "";
    }
    std::vector<std::string> victims;
    for (const Victim& v : p.victims) victims.push_back(Esc(v.namespace_ + "/" + v.name + " on " + v.node));
    std::string name = Esc(p.name);
    if (p.explain) name = "<a href=\"#pod-" + std::to_string(i) + "\">" + name + "</a>";
    out += "<tr class=\"pod " + state + "\" data-pod=\"" + Esc(p.namespace_ + "/" + p.name) + "\"><td>" +
           Esc(p.namespace_) + "</td><td data-v=\"" + Esc(p.name) + "\">" + name + "</td><td class=\"num\">" +
           std::to_string(p.priority) + "</td><td class=\"" + (state == "scheduled" ? "node" : state) + "\">" +
           node_cell + "</td><td>" + (p.nominated_node.empty() ? "" : Esc(p.nominated_node)) + "</td><td>" +
           JoinStrings(victims, "<br>") + "</td><td class=\"num\">" + std::to_string(p.attempts) + "</td><td>" +
           message + "</td></tr>";
  }
  return out + "</tbody></table>";
}

// The nodes a pod's table lists, in name order when all fit, else the
// best-scored feasible ones (see html_report.h). Sets *cut when some
// nodes were left out.
std::vector<std::string> NodesToList(const PodExplain& e, const std::string& chosen, size_t max_nodes, bool* cut) {
  std::vector<std::string> out;
  *cut = e.filter.size() > max_nodes;
  if (!*cut) {
    for (const auto& [node, v] : e.filter) out.push_back(node);
    return out;
  }
  std::vector<std::pair<int64_t, std::string>> scored;
  for (const auto& [node, b] : e.scores) scored.emplace_back(b.total, node);
  std::sort(scored.begin(), scored.end(),
            [](const auto& a, const auto& b) { return std::tie(b.first, a.second) < std::tie(a.first, b.second); });
  for (const auto& [total, node] : scored) out.push_back(node);
  for (const auto& [node, v] : e.filter) {
    if (v.kind == FilterVerdict::Kind::kFeasible && e.scores.count(node) == 0) out.push_back(node);
  }
  if (out.size() > max_nodes) {
    const bool chosen_cut = std::find(out.begin(), out.begin() + static_cast<ptrdiff_t>(max_nodes), chosen) ==
                            out.begin() + static_cast<ptrdiff_t>(max_nodes);
    out.resize(max_nodes);
    if (chosen_cut && !chosen.empty() && e.filter.count(chosen) != 0 && max_nodes > 0) out.back() = chosen;
  }
  return out;
}

std::string VerdictCell(const FilterVerdict& v) {
  switch (v.kind) {
    case FilterVerdict::Kind::kFeasible:
      return "<td class=\"pass\">pass</td>";
    case FilterVerdict::Kind::kNotEvaluated:
      return "<td class=\"skip\">not evaluated</td>";
    case FilterVerdict::Kind::kRejected:
      break;
  }
  return "<td class=\"fail\" title=\"" + Esc(v.code) + "\">" + Esc(v.plugin.empty() ? "PreFilter" : v.plugin) + ": " +
         Esc(JoinStrings(v.reasons, ", ")) + "</td>";
}

// Rejected nodes counted per plugin and reason (a node rejected for two
// reasons counts under both, as FailedScheduling's message counts them).
std::string ReasonCounts(const PodExplain& e) {
  std::map<std::pair<std::string, std::string>, int> counts;
  int not_evaluated = 0;
  for (const auto& [node, v] : e.filter) {
    if (v.kind == FilterVerdict::Kind::kNotEvaluated) ++not_evaluated;
    if (v.kind != FilterVerdict::Kind::kRejected) continue;
    const std::string plugin = v.plugin.empty() ? "PreFilter" : v.plugin;
    if (v.reasons.empty()) ++counts[{plugin, "(no reason given)"}];
    for (const std::string& reason : v.reasons) ++counts[{plugin, reason}];
  }
  if (counts.empty() && not_evaluated == 0) return "";
  std::vector<std::pair<int, std::pair<std::string, std::string>>> sorted;
  for (const auto& [k, n] : counts) sorted.emplace_back(n, k);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = "<ul class=\"reasons\">";
  for (const auto& [n, k] : sorted) {
    out += "<li><b>" + std::to_string(n) + "</b> node" + (n == 1 ? "" : "s") + ": " + Esc(k.first) + " &mdash; " +
           Esc(k.second) + "</li>";
  }
  if (not_evaluated > 0) {
    out += "<li><b>" + std::to_string(not_evaluated) + "</b> node" + (not_evaluated == 1 ? "" : "s") +
           " not evaluated (a feasible nominated node is tried alone)</li>";
  }
  return out + "</ul>";
}

std::string ExplainSection(const PodOutcome& p, size_t index, size_t max_nodes) {
  const PodExplain& e = *p.explain;
  std::string out = "<section class=\"pod-explain\" id=\"pod-" + std::to_string(index) + "\" data-pod=\"" +
                    Esc(p.namespace_ + "/" + p.name) + "\"><h3>" + Esc(p.namespace_ + "/" + p.name) + " &rarr; " +
                    (p.node.empty() ? std::string("pending") : Esc(p.node)) + "</h3>";
  if (p.fit_error) out += "<p class=\"fit-error\">" + Esc(*p.fit_error) + "</p>";
  std::vector<std::string> plugins;
  for (const auto& [node, b] : e.scores) {
    for (const auto& [name, s] : b.plugins) {
      if (std::find(plugins.begin(), plugins.end(), name) == plugins.end()) plugins.push_back(name);
    }
  }
  bool cut = false;
  const std::vector<std::string> nodes = NodesToList(e, p.node, max_nodes, &cut);
  out += "<table class=\"sortable explain\"><thead><tr>" + Th("Node") + Th("Filter");
  for (const std::string& name : plugins) out += Th(Esc(name), true);
  out += Th("Total", true) + "</tr></thead><tbody>";
  for (const std::string& node : nodes) {
    const bool chosen = node == p.node;
    out += std::string("<tr") + (chosen ? " class=\"chosen\"" : "") + " data-node=\"" + Esc(node) + "\"><td data-v=\"" +
           Esc(node) + "\">" + (chosen ? "<span class=\"marker\" title=\"chosen node\">&#9733; chosen</span>" : "") +
           Esc(node) + "</td>";
    // A scored node always has a verdict; a result built elsewhere may lack it.
    auto verdict = e.filter.find(node);
    out += verdict == e.filter.end() ? VerdictCell(FilterVerdict{}) : VerdictCell(verdict->second);
    auto sc = e.scores.find(node);
    for (const std::string& name : plugins) {
      const PluginScore* s = nullptr;
      if (sc != e.scores.end()) {
        for (const auto& [pn, ps] : sc->second.plugins) {
          if (pn == name) s = &ps;
        }
      }
      if (s == nullptr) {
        out += "<td class=\"num skip\" data-v=\"\">&ndash;</td>";
        continue;
      }
      out += "<td class=\"num\" data-v=\"" + std::to_string(s->weighted) + "\">" + std::to_string(s->weighted) +
             "<div class=\"cell-detail\">" + std::to_string(s->raw) + " &rarr; " + std::to_string(s->normalized) +
             " &times; " + std::to_string(s->weight) + "</div></td>";
    }
    if (sc == e.scores.end()) {
      out += "<td class=\"num skip total\" data-v=\"\">&ndash;</td>";
    } else {
      out += "<td class=\"num total\" data-v=\"" + std::to_string(sc->second.total) + "\">" +
             std::to_string(sc->second.total) + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
  if (cut) {
    out += "<p class=\"note\">" + std::to_string(nodes.size()) + " of " + std::to_string(e.filter.size()) +
           " nodes listed: the feasible ones with the highest totals. Every rejected node is counted below.</p>";
  }
  if (!plugins.empty()) {
    out += "<p class=\"note\">Score cells: weighted score; under it raw &rarr; normalized &times; weight.</p>";
  } else if (!p.node.empty()) {
    out += "<p class=\"note\">Not scored: a single feasible node is taken without scoring.</p>";
  }
  out += ReasonCounts(e);
  if (e.permit) {
    out += "<p class=\"permit\">Permit: waited on " + Esc(e.permit->node) + " for " +
           Esc(JoinStrings(e.permit->plugins, ", ")) + ": " + Esc(e.permit->outcome) +
           (e.permit->message.empty() ? std::string() : ": " + Esc(e.permit->message)) + "</p>";
  }
  for (const ClaimAllocation& c : e.claims) out += "<p class=\"claim\">" + Esc(ClaimAllocationText(c)) + "</p>";
  // The listed nodes' device tallies.
  for (const std::string& node : nodes) {
    auto it = e.devices.find(node);
    if (it == e.devices.end()) continue;
    for (const RequestDevices& r : it->second) {
      out += "<p class=\"devices\">" + Esc(node) + ": " + Esc(RequestDevicesText(r)) + "</p>";
    }
  }
  return out + "</section>";
}

}  // namespace

std::string ReportHtml(const SimulationResult& result, const HtmlReportOptions& options) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      // No favicon request: the page loads nothing.
      "<link rel=\"icon\" href=\"data:,\">"
      "<title>ksched simulate report</title><style>";
  out += kHtmlReportStyle;
  out += "</style></head><body><h1>ksched simulate</h1>";
  out += Summary(result);
  out += "<h2>Pods</h2>";
  out += result.pods.empty() ? "<p>No pending pod of the profiles.</p>" : PodsTable(result);
  out += "<h2>Node usage</h2>";
  out += UsageChartHtml(result.node_usage, options.max_chart_nodes);
  out += "<h2>Filter and Score per pod</h2>";
  if (!result.explain) {
    out += "<p class=\"note\">Run with <code>--explain</code> for every node's Filter verdict and Score.</p>";
  } else {
    for (size_t i = 0; i < result.pods.size(); ++i) {
      const PodOutcome& p = result.pods[i];
      if (p.explain) {
        out += ExplainSection(p, i, options.max_nodes_per_pod);
      } else {
        out += "<section class=\"pod-explain\"><h3>" + Esc(p.namespace_ + "/" + p.name) +
               "</h3><p class=\"note\">Not attempted.</p></section>";
      }
    }
  }
  out += "<script>";
  out += kHtmlReportScript;
  out += "</script></body></html>\n";
  return out;
}

}  // namespace ksched::simulate
