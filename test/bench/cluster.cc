#include "test/bench/cluster.h"

#include "pkg/client/rest_client.h"

namespace ksched::bench {

namespace {

util::Status InProcessOnly(const Cluster& c, const char* what) {
  return util::InvalidArgument(std::string(what) + " runs in process only, not in mode " + c.Mode());
}

}  // namespace

util::Status Cluster::CreateObjects(const std::vector<nlohmann::json>&) {
  return InProcessOnly(*this, "creating DRA objects (createAny)");
}

util::Status Cluster::UpdateStatus(const std::vector<nlohmann::json>&) {
  return InProcessOnly(*this, "writing object statuses (allocResourceClaims)");
}

util::StatusOr<ClaimCheck> Cluster::CheckResourceClaims() {
  return InProcessOnly(*this, "checking ResourceClaims");
}

const char* SchedulerName(SchedulerKind kind) {
  return kind == SchedulerKind::kKsched ? "ksched" : "kube-scheduler";
}

void ScheduledCounter::Add(const std::string& namespace_, const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  if (keep_bind_times_) bound_at_.emplace(namespace_ + "/" + name, std::chrono::steady_clock::now());
  const int64_t count = ++counts_[namespace_];
  ++total_;
  // Wakes the waiters only when one of them is satisfied: a broadcast per
  // bound pod cost the harness a futex call and its waiter a context switch
  // for every pod, all inside the measured CPU.
  auto [first, last] = waits_.equal_range(namespace_);
  for (auto it = first; it != last; ++it) {
    if (count >= it->second) {
      cv_.notify_all();
      return;
    }
  }
}

int64_t ScheduledCounter::Get(const std::string& namespace_) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = counts_.find(namespace_);
  return it == counts_.end() ? 0 : it->second;
}

int64_t ScheduledCounter::Total() const {
  std::lock_guard<std::mutex> l(mu_);
  return total_;
}

bool ScheduledCounter::WaitFor(const std::string& namespace_, int64_t n, util::Duration timeout) const {
  std::unique_lock<std::mutex> l(mu_);
  auto wait = waits_.emplace(namespace_, n);
  bool reached = cv_.wait_for(l, timeout, [&] {
    auto it = counts_.find(namespace_);
    return it != counts_.end() && it->second >= n;
  });
  waits_.erase(wait);
  return reached;
}

void ScheduledCounter::KeepBindTimes() {
  std::lock_guard<std::mutex> l(mu_);
  keep_bind_times_ = true;
}

std::optional<std::chrono::steady_clock::time_point> ScheduledCounter::BoundAt(const std::string& namespace_,
                                                                               const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = bound_at_.find(namespace_ + "/" + name);
  if (it == bound_at_.end()) return std::nullopt;
  return it->second;
}

util::StatusOr<int64_t> CountBoundPodsByList(client::RestClient& client, const std::string& namespace_) {
  util::StatusOr<nlohmann::json> list = client.Get("/api/v1/namespaces/" + namespace_ + "/pods");
  if (!list.ok()) return list.status();
  int64_t n = 0;
  for (const nlohmann::json& p : (*list)["items"]) {
    if (p.contains("spec") && !p["spec"].value("nodeName", "").empty()) ++n;
  }
  return n;
}

}  // namespace ksched::bench
