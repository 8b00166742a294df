#include "pkg/scheduler/podgroup_status.h"

#include <algorithm>
#include <string>

namespace ksched::scheduler {

namespace {

namespace phase = api::podgroup_phase;

// "ns/owner" of each owner of `pod`, sorted and joined with ",".
std::string OccupiedBy(const api::Pod& pod) {
  std::vector<std::string> refs;
  for (const auto& ref : pod.metadata.owner_references) refs.push_back(pod.metadata.namespace_ + "/" + ref.name);
  std::sort(refs.begin(), refs.end());
  std::string out;
  for (const auto& r : refs) out += (out.empty() ? "" : ",") + r;
  return out;
}

}  // namespace

api::PodGroupStatus NextPodGroupStatus(const api::PodGroup& group,
                                       const std::vector<std::shared_ptr<const api::Pod>>& pods, api::Time now) {
  api::PodGroupStatus s = group.status;
  const int32_t min = group.spec.min_member;
  const auto count = static_cast<int32_t>(pods.size());
  if (s.phase == phase::kFinished || s.phase == phase::kFailed) return s;
  if (s.phase.empty()) {
    s.phase = phase::kPending;
    return s;
  }
  if (s.phase == phase::kPending) {
    if (count >= min && count > 0) {
      s.phase = phase::kScheduling;
      s.schedule_start_time = now;
      std::string occupied = OccupiedBy(*pods.front());
      if (!occupied.empty()) s.occupied_by = occupied;
    }
    return s;
  }
  s.running = s.succeeded = s.failed = s.scheduled = 0;
  for (const auto& pod : pods) {
    if (!pod->spec.node_name.empty()) ++s.scheduled;
    const std::string& p = pod->status.phase;
    if (p == "Running") ++s.running;
    if (p == "Succeeded") ++s.succeeded;
    if (p == "Failed") ++s.failed;
  }
  if (count < min) {
    s.phase = phase::kPending;
    return s;
  }
  s.phase = s.succeeded + s.running < min ? phase::kScheduling : phase::kRunning;
  if (s.failed != 0 && s.failed + s.running + s.succeeded >= min) s.phase = phase::kFailed;
  if (s.succeeded >= min) s.phase = phase::kFinished;
  return s;
}

nlohmann::json PodGroupStatusPatch(const api::PodGroupStatus& from, const api::PodGroupStatus& to) {
  nlohmann::json status = nlohmann::json::object();
  auto str = [&](const char* field, const std::string& a, const std::string& b) {
    if (a != b) status[field] = b.empty() ? nlohmann::json(nullptr) : nlohmann::json(b);
  };
  auto num = [&](const char* field, int32_t a, int32_t b) {
    if (a != b) status[field] = b;
  };
  str("phase", from.phase, to.phase);
  str("occupiedBy", from.occupied_by, to.occupied_by);
  num("scheduled", from.scheduled, to.scheduled);
  num("running", from.running, to.running);
  num("succeeded", from.succeeded, to.succeeded);
  num("failed", from.failed, to.failed);
  if (from.schedule_start_time != to.schedule_start_time) {
    status["scheduleStartTime"] =
        to.schedule_start_time ? nlohmann::json(api::FormatTime(*to.schedule_start_time)) : nlohmann::json(nullptr);
  }
  if (status.empty()) return nlohmann::json();
  return {{"status", status}};
}

}  // namespace ksched::scheduler
