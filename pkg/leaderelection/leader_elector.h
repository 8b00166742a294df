// LeaderElector: Lease-based leader election with client-go's semantics
// (tools/leaderelection), so a ksched and a client-go component agree on
// who holds a Lease.
//
// Run() blocks:
//   acquire  try at once, then every retry_period (+ up to 1.2x jitter)
//            until this candidate holds the Lease: it creates a missing
//            Lease, or takes over one whose holder is empty or whose
//            holder has not changed the record for lease_duration_seconds
//            (measured on this process's monotonic clock from the start of
//            the attempt that last saw the record change, so clock skew
//            between hosts does not matter), incrementing leaseTransitions;
//   leading  on_started_leading, then every retry_period renew: a round
//            tries at once and then every retry_period; when no attempt of
//            a round succeeds within renew_deadline the lease is lost;
//   end      on_stopped_leading (only if on_started_leading ran), then, if
//            release_on_cancel and this candidate still holds the Lease,
//            writes a record with an empty holder and
//            leaseDurationSeconds 1 so a standby takes over within about
//            one retry period.
// It differs from client-go in one respect, on purpose: on_stopped_leading
// runs (synchronously) BEFORE the release, so the daemon stops its writes
// while it still holds the Lease and no standby can bind concurrently. The
// Lease is not renewed meanwhile: on_stopped_leading must stop every write
// by LastObservedTime() + renew_deadline (cmd/ksched/leader_work.h).
//
// Every attempt that finds the Lease changed since the last one re-reads it
// (client-go's slow path); an Update answered kConflict (optimistic
// concurrency: someone else wrote first) fails that attempt, and the next
// one re-reads. renew_deadline < lease_duration guarantees a leader gives
// up before any standby may consider its lease expired.
//
// Time comes from the injected Clock; every wait is a Clock::WaitUntil, so
// tests drive the elector with a FakeClock. The next attempt's time is fixed
// before an attempt starts, so a test that sees attempt N (through the fake
// client) and then steps the clock by one retry period always releases
// attempt N+1.
//
// Threads: Run() on a thread of the caller's choosing; the callbacks run on
// that thread and must not block for long (on_stopped_leading may take as
// long as draining needs: the Lease is still held meanwhile, renewal is
// not). Stop(), IsLeader(), GetLeader() and Check() are thread-safe and may
// be called from any thread at any time.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <random>
#include <string>

#include "pkg/leaderelection/lease_lock.h"
#include "pkg/metrics/leader_election_metrics.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::leaderelection {

// client-go's JitterFactor: acquire attempts wait retry_period * (1 + 1.2 r).
inline constexpr double kJitterFactor = 1.2;

struct LeaderCallbacks {
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // Every change of the observed holder (including the first observation
  // and this candidate itself); "" when the Lease is released.
  std::function<void(const std::string& identity)> on_new_leader;
  // After each successful acquisition or renewal, with the time the attempt
  // started (LastObservedTime()): the tenure is safe until that time +
  // renew_deadline (the daemon bounds its WritesGate with it). Called on
  // Run's thread, before on_started_leading for the acquisition.
  std::function<void(util::TimePoint attempt_start)> on_renewed;
};

struct LeaderElectionConfig {
  // kube-scheduler's defaults.
  util::Duration lease_duration = std::chrono::seconds(15);
  util::Duration renew_deadline = std::chrono::seconds(10);
  util::Duration retry_period = std::chrono::seconds(2);
  bool release_on_cancel = true;
  LeaderCallbacks callbacks;
  // leader_election_master_status / slowpath_total{name=<lease name>}; may
  // be null.
  metrics::LeaderElectionMetrics* metrics = nullptr;
  // Uniform in [0, 1), for the acquire jitter; null: a seeded engine.
  std::function<double()> random;
};

class LeaderElector {
 public:
  enum class Result {
    kStopped,  // Stop() was called (the Lease released if held and asked to)
    kLost,     // this candidate led and could not renew within renew_deadline
  };

  // Fails on an inconsistent config (the checks client-go makes:
  // lease_duration > renew_deadline > 1.2 * retry_period > 0, an identity).
  static util::StatusOr<std::unique_ptr<LeaderElector>> New(LeaderElectionConfig config, LeaseLock lock,
                                                            util::Clock& clock);

  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Blocks until Stop() or the loss of the Lease. Call once.
  Result Run();
  // Ends Run(): wakes its waits; an attempt in flight finishes first.
  void Stop();

  // Whether the last observed record names this candidate.
  bool IsLeader() const;
  // The last observed holder ("" if none yet).
  std::string GetLeader() const;
  // When the record was last observed: while this candidate leads, the
  // start of its last successful renewal (on the injected clock).
  util::TimePoint LastObservedTime() const;
  const std::string& Identity() const { return lock_.identity(); }
  // client-go's watchdog (kube-scheduler's /healthz "leaderElection"):
  // fails when this candidate leads but has not renewed for
  // lease_duration + max_tolerable_expired; a standby always passes.
  util::Status Check(util::Duration max_tolerable_expired) const;

 private:
  LeaderElector(LeaderElectionConfig config, LeaseLock lock, util::Clock& clock);

  bool Acquire();
  // Returns true when renewal stopped because of Stop().
  bool Renew();
  bool TryAcquireOrRenew();
  void Release();
  void ReportTransition();
  // Waits until `deadline` or Stop(); returns false when stopped.
  bool SleepUntil(util::TimePoint deadline);
  bool Stopped() const;
  util::Duration Jittered(util::Duration d);

  void SetObserved(const LeaderElectionRecord& r, util::TimePoint observed_at);
  LeaderElectionRecord Observed() const;
  bool LeaseValid(util::TimePoint now) const;
  void SetLeadingMetric(bool leading);

  const LeaderElectionConfig config_;
  LeaseLock lock_;
  util::Clock& clock_;
  std::mt19937_64 rng_;
  std::string reported_leader_;  // Run's thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  LeaderElectionRecord observed_;
  util::TimePoint observed_time_{};
};

}  // namespace ksched::leaderelection
