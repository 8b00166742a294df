#include "cmd/kubectl-ksched/render.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "pkg/util/text_columns.h"

namespace ksched::kubectl_ksched {

namespace {

using Json = nlohmann::json;

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (it->is_number()) {
    std::ostringstream o;
    o << it->get<double>();
    return o.str();
  }
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  return "";
}

const Json& Field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string JoinStrings(const Json& list, const std::string& sep) {
  std::string out;
  if (!list.is_array()) return out;
  for (const Json& e : list) {
    if (!e.is_string()) continue;
    if (!out.empty()) out += sep;
    out += e.get<std::string>();
  }
  return out;
}

std::string Location(const Json& e) {
  const std::string loc = Str(e, "location");
  const std::string node = Str(e, "node");
  const std::string plugins = JoinStrings(Field(e, "unschedulablePlugins"), ", ");
  if (loc == "activeQ") return "in activeQ, about to be attempted";
  if (loc == "backoffQ") {
    std::string s = "in backoffQ";
    if (!Str(e, "backoffUntil").empty()) s += " until " + Str(e, "backoffUntil");
    if (!plugins.empty()) s += " (last rejected by " + plugins + ")";
    return s;
  }
  if (loc == "unschedulable") {
    std::string s = "unschedulable";
    if (!Str(e, "unschedulableSince").empty()) s += " since " + Str(e, "unschedulableSince");
    if (!plugins.empty()) s += ", rejected by " + plugins;
    return s;
  }
  if (loc == "gated") return "gated by " + Str(e, "gatingPlugin") + " (PreEnqueue)";
  if (loc == "waitingOnPermit") {
    return "waiting at Permit on node " + node + " for " + JoinStrings(Field(e, "waitingOnPermitPlugins"), ", ");
  }
  if (loc == "inFlight") return "being scheduled now (in flight)";
  if (loc == "assumed") return "assumed on node " + node + " (binding, or bound and not yet seen)";
  if (loc == "bound") return "bound to node " + node;
  if (loc == "notFound") return "not found (no such pod in ksched's informer)";
  if (loc == "notOurs") return "not scheduled by ksched (schedulerName " + Str(Field(e, "pod"), "schedulerName") + ")";
  return loc.empty() ? "unknown" : loc;
}

}  // namespace

std::string RenderWhy(const Json& e) {
  std::string out;
  const Json& pod = Field(e, "pod");
  out += "Pod " + Str(pod, "namespace") + "/" + Str(pod, "name");
  if (!Str(pod, "schedulerName").empty()) out += " (scheduler " + Str(pod, "schedulerName") + ")";
  out += ": " + Location(e) + "\n";
  const std::string attempts = Str(e, "attempts");
  if (!attempts.empty() && attempts != "0") out += "Attempts: " + attempts + "\n";

  const Json& a = Field(e, "lastAttempt");
  if (a.is_object()) {
    out += "\nLast attempt: cycle " + Str(a, "cycle") + " at " + Str(a, "time") + ", profile " + Str(a, "profile") +
           ": " + Str(a, "result");
    if (Str(a, "result") == "Scheduled" || Str(a, "result") == "BindingFailed") out += " on " + Str(a, "node");
    out += "\n";
    if (!Str(a, "message").empty()) out += "  " + Str(a, "message") + "\n";
    const Json& counts = Field(a, "filterCounts");
    if (counts.is_array() && !counts.empty()) {
      out += "  Filter verdicts (" + Str(a, "nodes") + " nodes, " + Str(a, "evaluatedNodes") + " evaluated, " +
             Str(a, "feasibleNodes") + " feasible):\n";
      std::vector<std::vector<std::string>> rows = {{"NODES", "PLUGIN", "REASON"}};
      for (const Json& c : counts) rows.push_back({Str(c, "nodes"), Str(c, "plugin"), Str(c, "reason")});
      out += util::TextColumns(rows, "    ");
    }
    if (!Str(a, "nominatedNode").empty()) out += "  Nominated node: " + Str(a, "nominatedNode") + "\n";
    const Json& victims = Field(a, "victims");
    if (victims.is_array() && !victims.empty()) {
      out += "  Preemption victims:\n";
      for (const Json& v : victims) {
        out += "    " + Str(v, "namespace") + "/" + Str(v, "name") + " on " + Str(v, "node") + "\n";
      }
    }
    const Json& top = Field(a, "topNodes");
    const Json& plugins = Field(a, "scorePlugins");
    if (top.is_array() && !top.empty() && plugins.is_array()) {
      out += "  Best nodes of " + Str(a, "scoredNodes") + " scored (per plugin: raw > normalized > x weight):\n";
      std::vector<std::vector<std::string>> rows;
      std::vector<std::string> header = {"NODE", "TOTAL"};
      for (const Json& p : plugins) header.push_back(Str(p, "name") + " x" + Str(p, "weight"));
      rows.push_back(header);
      for (const Json& n : top) {
        std::vector<std::string> row = {Str(n, "node"), Str(n, "total")};
        const Json& scores = Field(n, "scores");
        if (scores.is_array()) {
          for (const Json& s : scores) row.push_back(Str(s, "raw") + ">" + Str(s, "normalized") + ">" + Str(s, "weighted"));
        }
        if (Str(n, "node") == Str(a, "node")) row[0] += " *";
        rows.push_back(row);
      }
      out += util::TextColumns(rows, "    ");
    }
  } else if (Str(e, "recordEnabled") == "false") {
    out += "\nNo attempt recorded: ksched runs with --explain-record-size=0.\n";
  } else {
    out += "\nNo attempt recorded for this pod (not attempted yet, or forgotten by the bounded record).\n";
    if (!Str(e, "lastFailureMessage").empty()) out += "  Last failure: " + Str(e, "lastFailureMessage") + "\n";
  }

  const Json& events = Field(e, "requeueEvents");
  const std::string loc = Str(e, "location");
  if (events.is_array() && !events.empty()) {
    out += "\nRequeued by these cluster events:\n";
    for (const Json& ev : events) {
      std::string line = "  " + Str(ev, "event") + " (" + JoinStrings(Field(ev, "plugins"), ", ");
      if (Str(ev, "hinted") == "true") line += "; the plugin checks whether the change can help";
      out += line + ")\n";
    }
  }
  if (loc == "unschedulable" && !Str(e, "unschedulableTimeoutSeconds").empty()) {
    out += "  and in any case after " + Str(e, "unschedulableTimeoutSeconds") +
           "s in the unschedulable pods (UnschedulableTimeout)\n";
  }
  return out;
}

std::string RenderQueue(const Json& s) {
  std::string out = "Pending pods:\n";
  std::vector<std::vector<std::string>> rows = {{"QUEUE", "PODS"}};
  const Json& counts = Field(s, "counts");
  if (counts.is_object()) {
    for (auto it = counts.begin(); it != counts.end(); ++it) rows.push_back({it.key(), Str(counts, it.key().c_str())});
  }
  out += util::TextColumns(rows, "  ");
  const Json& rejecting = Field(s, "rejectingPlugins");
  if (rejecting.is_object() && !rejecting.empty()) {
    out += "\nRejected by plugin (pods):\n";
    std::vector<std::vector<std::string>> r = {{"PLUGIN", "PODS"}};
    for (auto it = rejecting.begin(); it != rejecting.end(); ++it) r.push_back({it.key(), Str(rejecting, it.key().c_str())});
    out += util::TextColumns(r, "  ");
  }
  const Json& oldest = Field(s, "oldestPending");
  if (oldest.is_array() && !oldest.empty()) {
    out += "\nOldest pending pods:\n";
    std::vector<std::vector<std::string>> r = {{"POD", "QUEUE", "CREATED", "ATTEMPTS", "REJECTED BY"}};
    for (const Json& p : oldest) {
      r.push_back({Str(p, "namespace") + "/" + Str(p, "name"), Str(p, "queue"), Str(p, "created"), Str(p, "attempts"),
                   JoinStrings(Field(p, "unschedulablePlugins"), ",")});
    }
    out += util::TextColumns(r, "  ");
  }
  const Json& att = Field(s, "attempts");
  if (att.is_object()) {
    out += "\nAttempts: " + Str(att, "lastMinute") + " in the last minute (" + Str(att, "perSecond") + "/s), " +
           Str(att, "total") + " since start\n";
  }
  return out;
}

}  // namespace ksched::kubectl_ksched
