#include "pkg/apiserverlite/table.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <vector>

namespace ksched::apiserver {

namespace {

using nlohmann::json;

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(Trim(s.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

json Column(const char* name, const char* description, int priority = 0,
            const char* format = "") {
  return {{"name", name},
          {"type", "string"},
          {"format", format},
          {"description", description},
          {"priority", priority}};
}

json NameColumn() {
  return Column("Name", "Name must be unique within a namespace.", 0, "name");
}
json AgeColumn() {
  return Column("Age", "CreationTimestamp is the time the object was created.");
}

// obj[a] (or obj[a][b]), null when absent.
const json& FieldOrNull(const json& obj, const char* a, const char* b = nullptr) {
  static const json kNull;
  auto x = obj.find(a);
  if (x == obj.end()) return kNull;
  if (b == nullptr) return *x;
  if (!x->is_object()) return kNull;
  auto y = x->find(b);
  return y == x->end() ? kNull : *y;
}

std::optional<util::WallTime> ParseTimestamp(const json& v) {
  if (!v.is_string()) return std::nullopt;
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(v.get_ref<const std::string&>().c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year,
                  &month, &day, &hour, &minute, &second) != 6) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string Age(const json& obj, util::WallTime now) {
  auto created = ParseTimestamp(FieldOrNull(obj, "metadata", "creationTimestamp"));
  if (!created) return "<unknown>";
  return HumanDuration(now - *created);
}

std::string StringOr(const json& v, const char* fallback) {
  return v.is_string() && !v.get_ref<const std::string&>().empty() ? v.get<std::string>()
                                                                    : fallback;
}

json PodCells(const json& pod, util::WallTime now) {
  const json& statuses = FieldOrNull(pod, "status", "containerStatuses");
  const json& containers = FieldOrNull(pod, "spec", "containers");
  size_t total = containers.is_array() ? containers.size() : 0;
  size_t ready = 0;
  int64_t restarts = 0;
  std::string reason = StringOr(FieldOrNull(pod, "status", "phase"), "Unknown");
  reason = StringOr(FieldOrNull(pod, "status", "reason"), reason.c_str());
  const json& conditions = FieldOrNull(pod, "status", "conditions");
  if (conditions.is_array()) {
    for (const auto& c : conditions) {
      if (c.is_object() && c.value("type", "") == "PodScheduled" &&
          c.value("reason", "") == "SchedulingGated") {
        reason = "SchedulingGated";
      }
    }
  }
  if (statuses.is_array()) {
    for (const auto& s : statuses) {
      if (!s.is_object()) continue;
      if (s.value("ready", false)) ++ready;
      if (s.contains("restartCount") && s["restartCount"].is_number_integer()) {
        restarts += s["restartCount"].get<int64_t>();
      }
      const json& state = s.value("state", json::object());
      if (state.is_object()) {
        for (const char* st : {"waiting", "terminated"}) {
          if (state.contains(st) && state[st].is_object() &&
              !state[st].value("reason", "").empty()) {
            reason = state[st].value("reason", "");
          }
        }
      }
    }
  }
  if (!FieldOrNull(pod, "metadata", "deletionTimestamp").is_null()) reason = "Terminating";
  return {StringOr(FieldOrNull(pod, "metadata", "name"), ""),
          fmt::format("{}/{}", ready, total),
          reason,
          std::to_string(restarts),
          Age(pod, now),
          StringOr(FieldOrNull(pod, "status", "podIP"), "<none>"),
          StringOr(FieldOrNull(pod, "spec", "nodeName"), "<none>"),
          StringOr(FieldOrNull(pod, "status", "nominatedNodeName"), "<none>"),
          "<none>"};
}

json NodeCells(const json& node, util::WallTime now) {
  std::string status = "Unknown";
  const json& conditions = FieldOrNull(node, "status", "conditions");
  if (conditions.is_array()) {
    for (const auto& c : conditions) {
      if (c.is_object() && c.value("type", "") == "Ready") {
        status = c.value("status", "") == "True" ? "Ready" : "NotReady";
      }
    }
  }
  const json& unschedulable = FieldOrNull(node, "spec", "unschedulable");
  if (unschedulable.is_boolean() && unschedulable.get<bool>()) status += ",SchedulingDisabled";
  std::string roles;
  const json& labels = FieldOrNull(node, "metadata", "labels");
  if (labels.is_object()) {
    constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
    for (const auto& [k, v] : labels.items()) {
      if (k.rfind(kRolePrefix, 0) == 0 && k.size() > kRolePrefix.size()) {
        if (!roles.empty()) roles += ",";
        roles += k.substr(kRolePrefix.size());
      }
    }
  }
  std::string internal_ip = "<none>", external_ip = "<none>";
  const json& addresses = FieldOrNull(node, "status", "addresses");
  if (addresses.is_array()) {
    for (const auto& a : addresses) {
      if (!a.is_object()) continue;
      if (a.value("type", "") == "InternalIP") internal_ip = a.value("address", "");
      if (a.value("type", "") == "ExternalIP") external_ip = a.value("address", "");
    }
  }
  const json& info = FieldOrNull(node, "status", "nodeInfo");
  auto info_field = [&](const char* f) {
    return info.is_object() ? StringOr(info.value(f, json()), "<unknown>") : "<unknown>";
  };
  return {StringOr(FieldOrNull(node, "metadata", "name"), ""),
          status,
          roles.empty() ? "<none>" : roles,
          Age(node, now),
          info.is_object() ? info.value("kubeletVersion", "") : "",
          internal_ip,
          external_ip,
          info_field("osImage"),
          info_field("kernelVersion"),
          info_field("containerRuntimeVersion")};
}

}  // namespace

std::optional<TableOptions> ParseTableRequest(std::string_view accept,
                                              std::string_view include_object) {
  for (const std::string& media : Split(accept, ',')) {
    std::vector<std::string> parts = Split(media, ';');
    const std::string& type = parts[0];
    std::string as, group, version;
    for (size_t i = 1; i < parts.size(); ++i) {
      size_t eq = parts[i].find('=');
      if (eq == std::string::npos) continue;
      std::string key = Trim(parts[i].substr(0, eq));
      std::string value = Trim(parts[i].substr(eq + 1));
      if (key == "as") as = value;
      if (key == "g") group = value;
      if (key == "v") version = value;
    }
    if (type != "application/json" && type != "*/*" && type != "application/*") continue;
    if (as.empty()) return std::nullopt;
    if (as == "Table" && group == "meta.k8s.io" && (version == "v1" || version == "v1beta1")) {
      TableOptions options;
      options.api_version = "meta.k8s.io/" + version;
      if (include_object == "None" || include_object == "Object") {
        options.include_object = std::string(include_object);
      }
      return options;
    }
  }
  return std::nullopt;
}

json TableColumns(const std::string& kind) {
  if (kind == "Pod") {
    return {NameColumn(),
            Column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
            Column("Status", "The aggregate status of the containers in this pod."),
            Column("Restarts", "The number of times the containers in this pod have been "
                               "restarted and when the last container in this pod has "
                               "restarted."),
            AgeColumn(),
            Column("IP", "IP address allocated to the pod.", 1),
            Column("Node", "Name of the node the pod is assigned to.", 1),
            Column("Nominated Node", "Name of the node the pod is nominated to run on.", 1),
            Column("Readiness Gates", "The readiness gates of the pod.", 1)};
  }
  if (kind == "Node") {
    return {NameColumn(),
            Column("Status", "The status of the node"),
            Column("Roles", "The roles of the node"),
            AgeColumn(),
            Column("Version", "Kubelet Version reported by the node."),
            Column("Internal-IP", "List of internal IPs of the node.", 1),
            Column("External-IP", "List of external IPs of the node.", 1),
            Column("OS-Image", "OS image reported by the node.", 1),
            Column("Kernel-Version", "Kernel version reported by the node.", 1),
            Column("Container-Runtime", "Container runtime version reported by the node.", 1)};
  }
  if (kind == "Namespace") {
    return {NameColumn(), Column("Status", "The status of the namespace"), AgeColumn()};
  }
  return {NameColumn(), AgeColumn()};
}

json TableRow(const std::string& kind, const json& obj, const TableOptions& options,
              util::WallTime now) {
  json cells;
  if (kind == "Pod") {
    cells = PodCells(obj, now);
  } else if (kind == "Node") {
    cells = NodeCells(obj, now);
  } else if (kind == "Namespace") {
    cells = {StringOr(FieldOrNull(obj, "metadata", "name"), ""),
             StringOr(FieldOrNull(obj, "status", "phase"), "Active"), Age(obj, now)};
  } else {
    cells = {StringOr(FieldOrNull(obj, "metadata", "name"), ""), Age(obj, now)};
  }
  json row = {{"cells", std::move(cells)}};
  if (options.include_object == "Object") {
    row["object"] = obj;
  } else if (options.include_object == "Metadata") {
    row["object"] = {{"kind", "PartialObjectMetadata"},
                     {"apiVersion", options.api_version},
                     {"metadata", obj.value("metadata", json::object())}};
  }
  return row;
}

json MakeTable(const TableOptions& options, json columns, json rows, json list_metadata) {
  return {{"kind", "Table"},
          {"apiVersion", options.api_version},
          {"metadata", list_metadata.is_object() ? list_metadata : json::object()},
          {"columnDefinitions", std::move(columns)},
          {"rows", rows.is_array() ? std::move(rows) : json::array()}};
}

std::string HumanDuration(util::Duration d) {
  const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  }
  if (minutes < 180) return fmt::format("{}m", minutes);
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  const int64_t days = hours / 24;
  if (hours < 24 * 8) {
    return hours % 24 == 0 ? fmt::format("{}d", days) : fmt::format("{}d{}h", days, hours % 24);
  }
  if (days < 365 * 2) return fmt::format("{}d", days);
  const int64_t years = days / 365;
  if (days < 365 * 8) {
    return days % 365 == 0 ? fmt::format("{}y", years) : fmt::format("{}y{}d", years, days % 365);
  }
  return fmt::format("{}y", years);
}

}  // namespace ksched::apiserver
