#include "pkg/apiserverlite/kubelet_simulator.h"

#include <fmt/format.h>

#include "pkg/apiserverlite/meta.h"

namespace ksched::apiserver {

namespace {

using nlohmann::json;

bool IsBoundPendingPod(const json& pod) {
  const json& meta = pod["metadata"];
  if (meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null()) return false;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto node = spec->find("nodeName");
  if (node == spec->end() || !node->is_string() || node->get<std::string>().empty()) return false;
  auto status = pod.find("status");
  std::string phase = status != pod.end() && status->is_object() ? status->value("phase", "") : "";
  return phase.empty() || phase == "Pending";
}

bool HasReadyCondition(const json& node) {
  auto status = node.find("status");
  if (status == node.end() || !status->is_object()) return false;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return false;
  for (const auto& c : *conditions) {
    if (c.is_object() && c.value("type", "") == "Ready") return true;
  }
  return false;
}

json Condition(const char* type, const char* status, const std::string& now) {
  return {{"type", type}, {"status", status}, {"lastProbeTime", nullptr},
          {"lastTransitionTime", now}};
}

}  // namespace

KubeletSimulator::KubeletSimulator(ObjectStore& pods, ObjectStore& nodes, TimerQueue& timers,
                                   util::Duration delay)
    : pods_(pods), nodes_(nodes), timers_(timers), delay_(delay) {}

void KubeletSimulator::Attach() {
  pod_observer_ = pods_.AddObserver([this](const EventPtr& e) { OnPodEvent(e); });
  node_observer_ = nodes_.AddObserver([this](const EventPtr& e) { OnNodeEvent(e); });
}

void KubeletSimulator::Detach() {
  pods_.RemoveObserver(pod_observer_);
  nodes_.RemoveObserver(node_observer_);
}

static bool IsTerminatingBoundPod(const json& pod) {
  const json& meta = pod["metadata"];
  if (!meta.contains("deletionTimestamp") || meta["deletionTimestamp"].is_null()) return false;
  auto spec = pod.find("spec");
  return spec != pod.end() && spec->is_object() && !spec->value("nodeName", "").empty();
}

void KubeletSimulator::OnPodEvent(const EventPtr& event) {
  if (event->type() == EventType::kDeleted) return;
  const json& pod = event->object()->object;
  if (IsTerminatingBoundPod(pod)) {
    if (event->previous() && IsTerminatingBoundPod(event->previous()->object)) return;
    std::string key = event->object()->key;
    std::string uid = pod["metadata"].value("uid", "");
    timers_.ScheduleAfter(delay_, [this, key, uid] { FinishPod(key, uid); });
    return;
  }
  if (!IsBoundPendingPod(pod)) return;
  // Only the transition matters: a later update of a still-pending pod must
  // not schedule a second start.
  if (event->previous() && IsBoundPendingPod(event->previous()->object)) return;
  std::string key = event->object()->key;
  std::string uid = pod["metadata"].value("uid", "");
  timers_.ScheduleAfter(delay_, [this, key, uid] { StartPod(key, uid); });
}

void KubeletSimulator::OnNodeEvent(const EventPtr& event) {
  if (event->type() != EventType::kAdded) return;
  const json& node = event->object()->object;
  if (HasReadyCondition(node)) return;
  std::string name = node["metadata"].value("name", "");
  std::string uid = node["metadata"].value("uid", "");
  timers_.ScheduleAfter(delay_, [this, name, uid] { MakeNodeReady(name, uid); });
}

std::string KubeletSimulator::NodeIp(const std::string& node_name) const {
  ObjectPtr node = nodes_.Get(node_name);
  if (node) {
    const json& obj = node->object;
    if (obj.contains("status") && obj["status"].is_object() &&
        obj["status"].contains("addresses") && obj["status"]["addresses"].is_array()) {
      for (const auto& a : obj["status"]["addresses"]) {
        if (a.is_object() && a.value("type", "") == "InternalIP") return a.value("address", "");
      }
    }
  }
  return "10.0.0.1";
}

void KubeletSimulator::StartPod(const std::string& key, const std::string& uid) {
  ObjectPtr current = pods_.Get(key);
  if (!current) return;
  std::string node_ip = NodeIp(current->object["spec"].value("nodeName", ""));
  uint32_t n = next_pod_ip_.fetch_add(1) + 1;
  std::string pod_ip = fmt::format("10.244.{}.{}", (n / 250) % 250, n % 250 + 1);
  std::string now = FormatTime(timers_.clock().WallNow());
  auto result = pods_.Update(key, [&](const json& pod) -> ApiResult<json> {
    if (pod["metadata"].value("uid", "") != uid || !IsBoundPendingPod(pod)) return pod;
    json next = pod;
    json& status = next["status"];
    if (!status.is_object()) status = json::object();
    status["phase"] = "Running";
    status["conditions"] = json::array({Condition("PodReadyToStartContainers", "True", now),
                                        Condition("Initialized", "True", now),
                                        Condition("Ready", "True", now),
                                        Condition("ContainersReady", "True", now),
                                        Condition("PodScheduled", "True", now)});
    // Keep the scheduler's PodScheduled transition time, and conditions the
    // kubelet does not own (DisruptionTarget, readiness gates).
    if (pod.contains("status") && pod["status"].is_object() &&
        pod["status"].contains("conditions") && pod["status"]["conditions"].is_array()) {
      for (const auto& c : pod["status"]["conditions"]) {
        if (!c.is_object()) continue;
        const std::string type = c.value("type", "");
        if (type == "PodScheduled") {
          status["conditions"][4] = c;
        } else if (type != "PodReadyToStartContainers" && type != "Initialized" && type != "Ready" &&
                   type != "ContainersReady") {
          status["conditions"].push_back(c);
        }
      }
    }
    status["hostIP"] = node_ip;
    status["hostIPs"] = json::array({{{"ip", node_ip}}});
    status["podIP"] = pod_ip;
    status["podIPs"] = json::array({{{"ip", pod_ip}}});
    status["startTime"] = now;
    json statuses = json::array();
    const json& spec = pod["spec"];
    if (spec.contains("containers") && spec["containers"].is_array()) {
      for (const auto& c : spec["containers"]) {
        if (!c.is_object()) continue;
        std::string name = c.value("name", "");
        statuses.push_back({{"name", name},
                            {"image", c.value("image", "")},
                            {"imageID", ""},
                            {"containerID", "kwok://" + name},
                            {"ready", true},
                            {"started", true},
                            {"restartCount", 0},
                            {"state", {{"running", {{"startedAt", now}}}}}});
      }
    }
    status["containerStatuses"] = statuses;
    return next;
  });
  if (result.ok() && result.value() != current) pods_started_.fetch_add(1);
}

void KubeletSimulator::FinishPod(const std::string& key, const std::string& uid) {
  auto check = [&](const json& pod) -> std::optional<ApiError> {
    if (pod["metadata"].value("uid", "") != uid) {
      return ConflictError("pods", pod["metadata"].value("name", ""), "another incarnation");
    }
    return std::nullopt;
  };
  // Finalizers keep it (the store only marks it); the containers are gone
  // either way.
  auto result = pods_.Delete(key, check, FormatTime(timers_.clock().WallNow()));
  if (result.ok() && result.value().deleted) pods_terminated_.fetch_add(1);
}

void KubeletSimulator::MakeNodeReady(const std::string& name, const std::string& uid) {
  ObjectPtr before = nodes_.Get(name);
  if (!before) return;
  std::string now = FormatTime(timers_.clock().WallNow());
  uint64_t seq = nodes_readied_.load() + 1;
  auto result = nodes_.Update(name, [&](const json& node) -> ApiResult<json> {
    if (node["metadata"].value("uid", "") != uid || HasReadyCondition(node)) return node;
    json next = node;
    json& status = next["status"];
    if (!status.is_object()) status = json::object();
    json& conditions = status["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure"}) {
      bool present = false;
      for (const auto& c : conditions) {
        present = present || (c.is_object() && c.value("type", "") == type);
      }
      if (!present) conditions.push_back(Condition(type, "False", now));
    }
    json ready = Condition("Ready", "True", now);
    ready["reason"] = "KubeletReady";
    ready["message"] = "kubelet is posting ready status (simulated)";
    conditions.push_back(ready);
    if (!status.contains("addresses") || !status["addresses"].is_array() ||
        status["addresses"].empty()) {
      status["addresses"] = json::array(
          {{{"type", "InternalIP"},
            {"address", fmt::format("10.0.{}.{}", (seq / 250) % 250, seq % 250 + 1)}},
           {{"type", "Hostname"}, {"address", name}}});
    }
    json& info = status["nodeInfo"];
    if (!info.is_object()) info = json::object();
    if (!info.contains("kubeletVersion")) info["kubeletVersion"] = "v1.34.0-ksched-lite";
    return next;
  });
  if (result.ok() && result.value() != before) nodes_readied_.fetch_add(1);
}

}  // namespace ksched::apiserver
