#include "pkg/scheduler/podgroup_status_controller.h"

#include <chrono>

#include "pkg/log/log.h"
#include "pkg/scheduler/podgroup_status.h"
#include "pkg/workqueue/default_rate_limiters.h"
#include "pkg/util/thread_name.h"

namespace ksched::scheduler {

util::Status RestPodGroupStatusClient::PatchPodGroupStatus(const std::string& ns, const std::string& name,
                                                          const nlohmann::json& merge_patch) {
  if (!gate_.IsOpen()) {
    return util::Status(util::StatusCode::kCancelled,
                        "not sent: status of PodGroup " + ns + "/" + name + ": writes are closed (not leading)");
  }
  const std::string path = "/apis/" + std::string(api::TypeInfo<api::PodGroup>::kApiVersion) + "/namespaces/" + ns +
                           "/podgroups/" + name + "/status";
  return client_.Patch(path, client::PatchType::kJsonMerge, merge_patch).status();
}

PodGroupStatusController::PodGroupStatusController(const framework::ObjectLister<api::PodGroup>& groups,
                                                   const framework::ObjectLister<api::Pod>& pods,
                                                   PodGroupStatusClient& client, const util::Clock& clock)
    : groups_(groups),
      pods_(pods),
      client_(client),
      clock_(clock),
      queue_(clock, workqueue::DefaultControllerRateLimiter<std::string>(clock)) {}

PodGroupStatusController::~PodGroupStatusController() { Stop(); }

void PodGroupStatusController::EnqueueGroup(const api::PodGroup& group) {
  queue_.Add(group.metadata.namespace_ + "/" + group.metadata.name);
}

void PodGroupStatusController::EnqueuePod(const api::Pod& pod) {
  std::string_view name = api::PodGroupNameOf(pod);
  if (name.empty()) return;
  queue_.Add(pod.metadata.namespace_ + "/" + std::string(name));
}

void PodGroupStatusController::Start() {
  if (started_) return;
  started_ = true;
  worker_ = std::thread([this] {
    util::NameThisThread("podgroup-status");
    WorkerLoop();
  });
}

void PodGroupStatusController::Stop() {
  if (stopping_.exchange(true)) return;
  // ShutDown drops the keys waiting out a backoff; the queued ones still get
  // one attempt each, and count as dropped when it fails.
  dropped_ += queue_.WaitingLen();
  queue_.ShutDown();
  if (worker_.joinable()) worker_.join();
  if (dropped_.load() > 0) {
    spdlog::warn("PodGroup status controller stopped: dropped {} PodGroup status writes at shutdown",
                 dropped_.load());
  }
}

void PodGroupStatusController::WorkerLoop() {
  while (auto key = queue_.Get()) {
    util::Status s = Sync(*key);
    if (s.ok()) {
      queue_.Forget(*key);
    } else if (stopping_.load()) {
      ++dropped_;
      queue_.Forget(*key);
    } else {
      KLOG_V(2, "Retrying the status of PodGroup {}: {}", *key, s.ToString());
      queue_.AddRateLimited(*key);
    }
    queue_.Done(*key);
  }
}

util::Status PodGroupStatusController::Sync(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return util::InvalidArgument("not namespace/name: " + key);
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  auto group = groups_.Get(ns, name);
  if (!group) return util::Status::Ok();
  std::vector<std::shared_ptr<const api::Pod>> members;
  for (auto& pod : pods_.List(ns)) {
    if (api::PodGroupNameOf(*pod) == name) members.push_back(std::move(pod));
  }
  const api::Time now = std::chrono::time_point_cast<api::Time::duration>(clock_.WallNow());
  const api::PodGroupStatus next = NextPodGroupStatus(*group, members, now);
  nlohmann::json patch = PodGroupStatusPatch(group->status, next);
  if (patch.is_null()) return util::Status::Ok();
  util::Status s = client_.PatchPodGroupStatus(ns, name, patch);
  if (s.code() == util::StatusCode::kNotFound) return util::Status::Ok();
  return s;
}

}  // namespace ksched::scheduler
