#include "pkg/simulate/report.h"

#include <algorithm>
#include <sstream>

#include "pkg/simulate/simulation.h"
#include "pkg/util/text_columns.h"

namespace ksched::simulate {

namespace {

using ojson = nlohmann::ordered_json;

ojson NullIfEmpty(const std::string& s) { return s.empty() ? ojson(nullptr) : ojson(s); }

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

ojson VerdictJson(const FilterVerdict& v) {
  switch (v.kind) {
    case FilterVerdict::Kind::kFeasible:
      return "feasible";
    case FilterVerdict::Kind::kNotEvaluated:
      return "notEvaluated";
    case FilterVerdict::Kind::kRejected:
      break;
  }
  ojson j;
  j["plugin"] = NullIfEmpty(v.plugin);
  j["code"] = v.code;
  j["reason"] = Join(v.reasons, ", ");
  j["reasons"] = v.reasons;
  return j;
}

std::string VerdictText(const FilterVerdict& v) {
  switch (v.kind) {
    case FilterVerdict::Kind::kFeasible:
      return "feasible";
    case FilterVerdict::Kind::kNotEvaluated:
      return "not evaluated";
    case FilterVerdict::Kind::kRejected:
      break;
  }
  return (v.plugin.empty() ? std::string("PreFilter") : v.plugin) + ": " + Join(v.reasons, ", ");
}

ojson PermitJson(const PermitWait& w) {
  ojson j;
  j["node"] = w.node;
  j["waitedFor"] = w.plugins;
  j["outcome"] = w.outcome;
  j["message"] = NullIfEmpty(w.message);
  return j;
}

ojson ClaimsJson(const std::vector<ClaimAllocation>& claims) {
  ojson out = ojson::array();
  for (const ClaimAllocation& c : claims) {
    ojson devices = ojson::array();
    for (const AllocatedDevice& d : c.devices) {
      devices.push_back({{"request", d.request}, {"device", d.device}, {"bindingConditions", d.binding_conditions}});
    }
    out.push_back({{"name", c.name}, {"forExtendedResources", c.for_extended_resources}, {"devices", devices}});
  }
  return out;
}

ojson DevicesJson(const std::map<std::string, std::vector<RequestDevices>>& devices) {
  ojson out = ojson::object();
  for (const auto& [node, requests] : devices) {
    ojson list = ojson::array();
    for (const RequestDevices& r : requests) {
      list.push_back({{"claim", r.claim},
                      {"request", r.request},
                      {"reachable", r.reachable},
                      {"usable", r.usable},
                      {"skipped", r.skipped}});
    }
    out[node] = std::move(list);
  }
  return out;
}

std::string PermitText(const PermitWait& w) {
  std::string out = "Permit: waited on " + w.node + " for " + Join(w.plugins, ", ") + ": " + w.outcome;
  if (!w.message.empty()) out += ": " + w.message;
  return out;
}

}  // namespace

ojson ReportJson(const SimulationResult& result) {
  ojson j;
  j["kind"] = "SimulationReport";
  j["version"] = kReportVersion;
  j["profiles"] = result.profiles;
  j["tieBreak"] = result.tie_break;
  j["seed"] = result.seed ? ojson(*result.seed) : ojson(nullptr);
  j["explain"] = result.explain;
  j["settled"] = result.settled;
  int scheduled = 0, pending = 0, preemptors = 0, victims = 0;
  for (const PodOutcome& p : result.pods) {
    if (!p.node.empty()) {
      ++scheduled;
    } else if (p.preempted_by.empty()) {
      ++pending;
    }
    if (!p.victims.empty()) ++preemptors;
    victims += static_cast<int>(p.victims.size());
  }
  j["summary"] = {{"nodes", result.nodes}, {"pods", result.pods.size()}, {"scheduled", scheduled},
                  {"pending", pending},    {"preemptors", preemptors},   {"victims", victims}};
  ojson pods = ojson::array();
  for (const PodOutcome& p : result.pods) {
    ojson o;
    o["namespace"] = p.namespace_;
    o["name"] = p.name;
    o["uid"] = p.uid;
    o["schedulerName"] = p.scheduler_name;
    o["priority"] = p.priority;
    o["node"] = NullIfEmpty(p.node);
    o["nominatedNode"] = NullIfEmpty(p.nominated_node);
    ojson vs = ojson::array();
    for (const Victim& v : p.victims) vs.push_back({{"namespace", v.namespace_}, {"name", v.name}, {"node", v.node}});
    o["victims"] = std::move(vs);
    o["preemptedBy"] = NullIfEmpty(p.preempted_by);
    o["fitError"] = p.fit_error ? ojson(*p.fit_error) : ojson(nullptr);
    o["gatedBy"] = NullIfEmpty(p.gated_by);
    o["attempts"] = p.attempts;
    if (result.explain) {
      ojson filter = ojson::object();
      ojson scores = ojson::object();
      if (p.explain) {
        for (const auto& [node, v] : p.explain->filter) filter[node] = VerdictJson(v);
        for (const auto& [node, b] : p.explain->scores) {
          ojson plugins = ojson::object();
          for (const auto& [name, s] : b.plugins) {
            plugins[name] = {
                {"raw", s.raw}, {"normalized", s.normalized}, {"weight", s.weight}, {"weighted", s.weighted}};
          }
          scores[node] = {{"plugins", std::move(plugins)}, {"total", b.total}};
        }
      }
      o["filter"] = std::move(filter);
      o["scores"] = std::move(scores);
      o["permit"] = p.explain && p.explain->permit ? PermitJson(*p.explain->permit) : ojson(nullptr);
      o["claims"] = p.explain ? ClaimsJson(p.explain->claims) : ojson::array();
      o["devices"] = p.explain ? DevicesJson(p.explain->devices) : ojson::object();
    }
    pods.push_back(std::move(o));
  }
  j["pods"] = std::move(pods);
  return j;
}

std::string ReportTable(const SimulationResult& result) {
  std::vector<std::vector<std::string>> rows = {
      {"NAMESPACE", "NAME", "PRIORITY", "NODE", "NOMINATED", "VICTIMS", "MESSAGE"}};
  for (const PodOutcome& p : result.pods) {
    std::vector<std::string> victims;
    for (const Victim& v : p.victims) victims.push_back(v.namespace_ + "/" + v.name);
    std::string node = p.node;
    std::string message;
    if (!p.preempted_by.empty()) {
      node = "<evicted>";
      message = "preempted by " + p.preempted_by;
    } else if (node.empty()) {
      node = "<pending>";
      message = p.fit_error ? *p.fit_error : !p.gated_by.empty() ? "gated by " + p.gated_by : "";
    }
    rows.push_back({p.namespace_, p.name, std::to_string(p.priority), node,
                    p.nominated_node.empty() ? "-" : p.nominated_node, victims.empty() ? "-" : Join(victims, ","),
                    message});
  }
  std::string out = util::TextColumns(rows);
  if (!result.settled) {
    out += "\nStopped with pods still retrying among themselves: none was bound or evicted in the last " +
           std::to_string(kRetryHorizon.count()) + " simulated minutes (or in 10 cycles per pending pod).\n";
  }
  if (!result.explain) return out;
  for (const PodOutcome& p : result.pods) {
    out += "\n" + p.namespace_ + "/" + p.name + " -> " + (p.node.empty() ? "<pending>" : p.node) + "\n";
    if (!p.explain) {
      out += "  (not attempted)\n";
      continue;
    }
    // Columns: node, Filter verdict, then per Score plugin
    // "normalized×weight" with the raw score in parentheses, and the total.
    std::vector<std::string> plugins;
    for (const auto& [node, b] : p.explain->scores) {
      for (const auto& [name, s] : b.plugins) {
        if (std::find(plugins.begin(), plugins.end(), name) == plugins.end()) plugins.push_back(name);
      }
    }
    std::vector<std::vector<std::string>> t;
    std::vector<std::string> head = {"NODE", "FILTER"};
    head.insert(head.end(), plugins.begin(), plugins.end());
    head.push_back("TOTAL");
    t.push_back(head);
    for (const auto& [node, v] : p.explain->filter) {
      std::vector<std::string> r = {node, VerdictText(v)};
      auto sc = p.explain->scores.find(node);
      for (const std::string& name : plugins) {
        std::string cell = "-";
        if (sc != p.explain->scores.end()) {
          for (const auto& [pn, s] : sc->second.plugins) {
            if (pn != name) continue;
            cell = std::to_string(s.raw) + "->" + std::to_string(s.normalized) + "x" + std::to_string(s.weight) + "=" +
                   std::to_string(s.weighted);
          }
        }
        r.push_back(cell);
      }
      r.push_back(sc == p.explain->scores.end() ? "-" : std::to_string(sc->second.total));
      t.push_back(std::move(r));
    }
    out += util::TextColumns(t, "  ");
    if (p.explain->permit) out += "  " + PermitText(*p.explain->permit) + "\n";
    for (const ClaimAllocation& c : p.explain->claims) out += "  " + ClaimAllocationText(c) + "\n";
    for (const auto& [node, requests] : p.explain->devices) {
      for (const RequestDevices& r : requests) out += "  " + node + ": " + RequestDevicesText(r) + "\n";
    }
  }
  if (std::any_of(result.pods.begin(), result.pods.end(),
                  [](const PodOutcome& p) { return p.explain && !p.explain->scores.empty(); })) {
    out += "\nScore cells: raw->normalized x weight = weighted.\n";
  }
  return out;
}

std::string ClaimAllocationText(const ClaimAllocation& c) {
  std::vector<std::string> devices;
  for (const AllocatedDevice& d : c.devices) {
    std::string text = d.request + " -> " + d.device;
    if (!d.binding_conditions.empty()) {
      text += " (binds once " + Join(d.binding_conditions, ", ") + " hold; taken as met here)";
    }
    devices.push_back(std::move(text));
  }
  return "claim " + c.name + (c.for_extended_resources ? " (for the pod's extended resources)" : "") + ": " +
         (devices.empty() ? "no devices" : Join(devices, ", "));
}

std::string RequestDevicesText(const RequestDevices& r) {
  std::string out = "claim " + r.claim + ", request " + r.request + ": ";
  if (r.reachable == 0) return out + "no device reaches the node";
  out += std::to_string(r.reachable) + (r.reachable == 1 ? " device reaches" : " devices reach") + " the node, " +
         std::to_string(r.usable) + " usable";
  std::vector<std::string> skipped;
  for (const auto& [reason, n] : r.skipped) skipped.push_back(reason + " " + std::to_string(n));
  if (!skipped.empty()) out += " (" + Join(skipped, ", ") + ")";
  return out;
}

}  // namespace ksched::simulate
