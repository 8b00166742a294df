#include "pkg/scheduler/pending_pods.h"

#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

#include "pkg/api/codec.h"

namespace ksched::scheduler {

std::string PendingPodsJson(const std::vector<PendingPodDebug>& pods, const util::Clock& clock) {
  nlohmann::ordered_json summary = nlohmann::ordered_json::object();
  for (const char* q : {"active", "backoff", "unschedulable", "gated", "inFlight"}) summary[q] = 0;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  const util::TimePoint now = clock.Now();
  const util::WallTime wall_now = clock.WallNow();
  for (const PendingPodDebug& d : pods) {
    summary[d.queue] = summary.value(d.queue, 0) + 1;
    nlohmann::ordered_json p;
    p["namespace"] = d.pod->metadata.namespace_;
    p["name"] = d.pod->metadata.name;
    p["uid"] = d.pod->metadata.uid;
    p["schedulerName"] = d.pod->spec.scheduler_name;
    p["queue"] = d.queue;
    p["attempts"] = d.attempts;
    if (d.backoff_expiration) {
      auto wall = wall_now + std::chrono::duration_cast<util::WallTime::duration>(*d.backoff_expiration - now);
      p["backoffExpiration"] = api::FormatMicroTime(wall);
    }
    p["unschedulablePlugins"] = d.unschedulable_plugins;
    p["pendingPlugins"] = d.pending_plugins;
    p["gatingPlugin"] = d.gating_plugin;
    p["lastFailureMessage"] = d.last_failure_message;
    list.push_back(std::move(p));
  }
  nlohmann::ordered_json out;
  out["summary"] = std::move(summary);
  out["pods"] = std::move(list);
  return out.dump(2) + "\n";
}

}  // namespace ksched::scheduler
