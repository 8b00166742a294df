#include "pkg/scheduler/framework/waiting_pods.h"

#include <utility>

#include "pkg/util/go_duration.h"
#include "pkg/util/long_wait.h"
#include "spdlog/fmt/fmt.h"

namespace ksched::scheduler::framework {

WaitingPod::WaitingPod(std::shared_ptr<const api::Pod> pod,
                       const std::map<std::string, util::Duration>& plugin_timeouts, const util::Clock& clock)
    : pod_(std::move(pod)), clock_(clock) {
  const util::TimePoint now = clock_.Now();
  for (const auto& [plugin, timeout] : plugin_timeouts) pending_.emplace(plugin, Pending{now + timeout, timeout});
}

std::vector<std::string> WaitingPod::GetPendingPlugins() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [plugin, p] : pending_) out.push_back(plugin);
  return out;
}

void WaitingPod::Allow(std::string_view plugin) {
  std::lock_guard<std::mutex> l(mu_);
  CheckDeadlinesLocked();
  if (result_) return;
  auto it = pending_.find(plugin);
  if (it != pending_.end()) pending_.erase(it);
  if (pending_.empty()) DecideLocked(Status());
}

void WaitingPod::Reject(std::string_view plugin, std::string_view message) {
  std::lock_guard<std::mutex> l(mu_);
  CheckDeadlinesLocked();
  if (result_) return;
  Status s(Code::kUnschedulable, std::string(message));
  s.WithPlugin(std::string(plugin));
  DecideLocked(std::move(s));
}

bool WaitingPod::Preempt(std::string_view plugin, std::string_view message) {
  std::lock_guard<std::mutex> l(mu_);
  CheckDeadlinesLocked();
  if (result_) return false;
  Status s(Code::kError, std::string(message));
  s.WithPlugin(std::string(plugin));
  DecideLocked(std::move(s));
  return true;
}

Status WaitingPod::Wait() {
  std::unique_lock<std::mutex> l(mu_);
  CheckDeadlinesLocked();
  if (result_) return *result_;
  // Waiting for other pods: a binding pool's thread waiting here makes room
  // for another binding (the pool's lock is taken without this one held).
  l.unlock();
  util::ScopedLongWait long_wait;
  l.lock();
  while (true) {
    CheckDeadlinesLocked();
    if (result_) return *result_;
    if (pending_.empty()) {
      cv_.wait(l);
      continue;
    }
    util::TimePoint earliest = pending_.begin()->second.deadline;
    for (const auto& [plugin, p] : pending_) earliest = std::min(earliest, p.deadline);
    clock_.WaitUntil(l, cv_, earliest);
  }
}

std::optional<Status> WaitingPod::TryGet() {
  std::lock_guard<std::mutex> l(mu_);
  CheckDeadlinesLocked();
  return result_;
}

void WaitingPod::CheckDeadlinesLocked() {
  if (result_ || pending_.empty()) return;
  const util::TimePoint now = clock_.Now();
  const std::string* expired = nullptr;
  const Pending* expired_entry = nullptr;
  for (const auto& [plugin, p] : pending_) {
    if (p.deadline <= now && (expired_entry == nullptr || p.deadline < expired_entry->deadline)) {
      expired = &plugin;
      expired_entry = &p;
    }
  }
  if (expired == nullptr) return;
  Status s(Code::kUnschedulable, fmt::format("rejected due to timeout after waiting {} at plugin {}",
                                             util::FormatGoDuration(expired_entry->timeout), *expired));
  s.WithPlugin(*expired);
  DecideLocked(std::move(s));
}

void WaitingPod::DecideLocked(Status status) {
  result_ = std::move(status);
  cv_.notify_all();
}

void WaitingPodsMap::Add(std::shared_ptr<WaitingPod> wp) {
  std::string uid = wp->pod()->metadata.uid;
  std::lock_guard<std::mutex> l(mu_);
  pods_[std::move(uid)] = std::move(wp);
}

void WaitingPodsMap::Remove(std::string_view uid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pods_.find(uid);
  if (it != pods_.end()) pods_.erase(it);
}

std::shared_ptr<WaitingPod> WaitingPodsMap::Get(std::string_view uid) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPodsMap::Iterate(const std::function<void(WaitingPod&)>& fn) const {
  std::vector<std::shared_ptr<WaitingPod>> copy;
  {
    std::lock_guard<std::mutex> l(mu_);
    copy.reserve(pods_.size());
    for (const auto& [uid, wp] : pods_) copy.push_back(wp);
  }
  for (const auto& wp : copy) fn(*wp);
}

size_t WaitingPodsMap::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return pods_.size();
}

}  // namespace ksched::scheduler::framework
