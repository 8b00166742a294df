#include "pkg/leaderelection/leader_elector.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "pkg/log/log.h"

namespace ksched::leaderelection {

namespace {

std::string Seconds(util::Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::duration<double>>(d).count()) + "s";
}

}  // namespace

util::StatusOr<std::unique_ptr<LeaderElector>> LeaderElector::New(LeaderElectionConfig config, LeaseLock lock,
                                                                  util::Clock& clock) {
  if (config.retry_period <= util::Duration(0)) {
    return util::InvalidArgument("leader election: retryPeriod must be greater than zero");
  }
  if (config.lease_duration <= config.renew_deadline) {
    return util::InvalidArgument("leader election: leaseDuration (" + Seconds(config.lease_duration) +
                                 ") must be greater than renewDeadline (" + Seconds(config.renew_deadline) + ")");
  }
  if (static_cast<double>(config.renew_deadline.count()) <=
      kJitterFactor * static_cast<double>(config.retry_period.count())) {
    return util::InvalidArgument("leader election: renewDeadline (" + Seconds(config.renew_deadline) +
                                 ") must be greater than retryPeriod*1.2 (" + Seconds(config.retry_period) + ")");
  }
  if (config.lease_duration < std::chrono::seconds(1)) {
    // The Lease stores whole seconds.
    return util::InvalidArgument("leader election: leaseDuration must be at least 1s");
  }
  if (lock.identity().empty()) return util::InvalidArgument("leader election: the holder identity is empty");
  if (lock.name().empty()) return util::InvalidArgument("leader election: the lease name is empty");
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config), std::move(lock), clock));
}

LeaderElector::LeaderElector(LeaderElectionConfig config, LeaseLock lock, util::Clock& clock)
    : config_(std::move(config)), lock_(std::move(lock)), clock_(clock), rng_(std::random_device{}()) {}

LeaderElector::Result LeaderElector::Run() {
  if (!Acquire()) return Result::kStopped;
  if (config_.callbacks.on_started_leading) config_.callbacks.on_started_leading();
  const bool stopped = Renew();
  // The daemon drains while the Lease is still ours (see the header).
  if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
  if (config_.release_on_cancel) Release();
  SetLeadingMetric(false);
  return stopped ? Result::kStopped : Result::kLost;
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

bool LeaderElector::Stopped() const {
  std::lock_guard<std::mutex> l(mu_);
  return stop_;
}

bool LeaderElector::SleepUntil(util::TimePoint deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    if (clock_.WaitUntil(l, cv_, deadline) && !stop_) return true;
  }
  return false;
}

util::Duration LeaderElector::Jittered(util::Duration d) {
  double r = 0;
  if (config_.random) {
    r = config_.random();
  } else {
    r = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  }
  return d + std::chrono::duration_cast<util::Duration>(d * (kJitterFactor * r));
}

bool LeaderElector::Acquire() {
  spdlog::info("attempting to acquire leader lease {}...", lock_.Describe());
  while (!Stopped()) {
    // Fixed before the attempt: see the header.
    const util::TimePoint next = clock_.Now() + Jittered(config_.retry_period);
    const bool ok = TryAcquireOrRenew();
    ReportTransition();
    if (ok) {
      SetLeadingMetric(true);
      if (config_.callbacks.on_renewed) config_.callbacks.on_renewed(LastObservedTime());
      spdlog::info("successfully acquired lease {}", lock_.Describe());
      return true;
    }
    KLOG_V(4, "failed to acquire lease {}", lock_.Describe());
    if (!SleepUntil(next)) break;
  }
  return false;
}

bool LeaderElector::Renew() {
  while (!Stopped()) {
    // A round: try at once, then every retry_period until renew_deadline.
    util::TimePoint attempt_start = clock_.Now();
    const util::TimePoint deadline = attempt_start + config_.renew_deadline;
    bool renewed = TryAcquireOrRenew();
    while (!renewed && !Stopped()) {
      const util::TimePoint next = attempt_start + config_.retry_period;
      if (next >= deadline || !SleepUntil(next)) break;
      attempt_start = clock_.Now();
      renewed = TryAcquireOrRenew();
    }
    ReportTransition();
    if (Stopped()) return true;
    if (!renewed) {
      SetLeadingMetric(false);
      spdlog::error("failed to renew lease {}: no successful renewal within {}", lock_.Describe(),
                    Seconds(config_.renew_deadline));
      return false;
    }
    KLOG_V(5, "successfully renewed lease {}", lock_.Describe());
    if (config_.callbacks.on_renewed) config_.callbacks.on_renewed(LastObservedTime());
    if (!SleepUntil(attempt_start + config_.retry_period)) return true;
  }
  return true;
}

bool LeaderElector::TryAcquireOrRenew() {
  // One instant for the whole attempt: the record counts as observed when
  // the attempt started, so a slow response never extends a lease, and a
  // test stepping the FakeClock while a call is in flight sees the same
  // times every run.
  const util::TimePoint now = clock_.Now();
  const util::WallTime wall = TruncateToMicros(clock_.WallNow());
  LeaderElectionRecord desired;
  desired.holder_identity = lock_.identity();
  desired.lease_duration_seconds =
      static_cast<int32_t>(std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  desired.renew_time = wall;
  desired.acquire_time = wall;

  // Fast path: a leader whose view is current updates without reading.
  if (IsLeader() && LeaseValid(now)) {
    LeaderElectionRecord old = Observed();
    desired.acquire_time = old.acquire_time;
    desired.leader_transitions = old.leader_transitions;
    util::Status st = lock_.Update(desired);
    if (st.ok()) {
      SetObserved(desired, now);
      return true;
    }
    // Stopping: the release comes next; a read would only add one more
    // request timeout to the shutdown.
    if (Stopped()) {
      spdlog::warn("failed to update lease {} while stopping: {}", lock_.Describe(), st.ToString());
      return false;
    }
    spdlog::warn("failed to update lease {} optimistically: {}; falling back to a read", lock_.Describe(),
                 st.ToString());
  }

  util::StatusOr<LeaderElectionRecord> current = lock_.Get();
  if (!current.ok()) {
    if (current.status().code() != util::StatusCode::kNotFound) {
      spdlog::error("error retrieving lease {}: {}", lock_.Describe(), current.status().ToString());
      return false;
    }
    util::Status created = lock_.Create(desired);
    if (!created.ok()) {
      spdlog::error("error initially creating lease {}: {}", lock_.Describe(), created.ToString());
      return false;
    }
    SetObserved(desired, now);
    return true;
  }

  // A changed record restarts the expiry clock; an unchanged one keeps
  // ageing since we first saw it.
  if (*current != Observed()) SetObserved(*current, now);
  if (!current->holder_identity.empty() && LeaseValid(now) && !IsLeader()) {
    KLOG_V(4, "lease {} is held by {} and has not yet expired", lock_.Describe(), current->holder_identity);
    return false;
  }

  if (IsLeader()) {
    desired.acquire_time = current->acquire_time;
    desired.leader_transitions = current->leader_transitions;
    if (config_.metrics != nullptr) config_.metrics->IncSlowpath(lock_.name());
  } else {
    desired.leader_transitions = current->leader_transitions + 1;
  }
  util::Status st = lock_.Update(desired);
  if (!st.ok()) {
    spdlog::error("failed to update lease {}: {}", lock_.Describe(), st.ToString());
    return false;
  }
  SetObserved(desired, now);
  return true;
}

void LeaderElector::Release() {
  if (!IsLeader()) return;
  const util::WallTime wall = TruncateToMicros(clock_.WallNow());
  LeaderElectionRecord released;
  released.lease_duration_seconds = 1;
  released.renew_time = wall;
  released.acquire_time = wall;
  released.leader_transitions = Observed().leader_transitions;
  util::Status st = lock_.Update(released);
  if (!st.ok()) {
    spdlog::error("failed to release lease {}: {}", lock_.Describe(), st.ToString());
    return;
  }
  SetObserved(released, clock_.Now());
  spdlog::info("released lease {}", lock_.Describe());
}

void LeaderElector::ReportTransition() {
  std::string holder = Observed().holder_identity;
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (config_.callbacks.on_new_leader) config_.callbacks.on_new_leader(holder);
}

void LeaderElector::SetObserved(const LeaderElectionRecord& r, util::TimePoint now) {
  std::lock_guard<std::mutex> l(mu_);
  observed_ = r;
  observed_time_ = now;
}

LeaderElectionRecord LeaderElector::Observed() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_;
}

bool LeaderElector::LeaseValid(util::TimePoint now) const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > now;
}

bool LeaderElector::IsLeader() const {
  std::lock_guard<std::mutex> l(mu_);
  return !observed_.holder_identity.empty() && observed_.holder_identity == lock_.identity();
}

std::string LeaderElector::GetLeader() const { return Observed().holder_identity; }

util::TimePoint LeaderElector::LastObservedTime() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_time_;
}

util::Status LeaderElector::Check(util::Duration max_tolerable_expired) const {
  std::lock_guard<std::mutex> l(mu_);
  if (observed_.holder_identity.empty() || observed_.holder_identity != lock_.identity()) return util::Status();
  if (clock_.Now() - observed_time_ > config_.lease_duration + max_tolerable_expired) {
    return util::Status(util::StatusCode::kUnavailable,
                        "failed election to renew leadership on lease " + lock_.name());
  }
  return util::Status();
}

void LeaderElector::SetLeadingMetric(bool leading) {
  if (config_.metrics != nullptr) config_.metrics->SetLeading(lock_.name(), leading);
}

}  // namespace ksched::leaderelection
