// WritesGate: whether this process may still start writes to the API server
// (bindings, volume updates, pod status patches, Events, preemption victims'
// deletions). A leader closes it before it releases or gives up its Lease,
// so that no write of it starts while another scheduler may lead.
//
// Open when built; Close() is final. A write "starts" when its client
// checks IsOpen(): a write that passed just before Close() may still be on
// the wire, none passes after Close() returned. Close() also fires
// StopToken(): the daemon's writing REST views cancel on it, so a write in
// flight or waiting to retry ends at once (kCancelled) rather than after
// the gate closed.
//
// Under leader election the gate is also bounded in time (BoundBy): it is
// open only before the deadline the elector extends after each successful
// renewal (the renewal's start + renewDeadline). Closing on a lost renewal
// is not enough: a leader paused (SIGSTOP, a VM freeze, a long GC-like
// stall) past its Lease wakes with every thread runnable at once, and its
// binding threads would write before its elector notices the loss. With the
// deadline each write checks the clock itself: none starts once the Lease
// may have passed to a standby.
//
// Thread-safety: thread-safe; IsOpen() is one or two atomic loads and, when
// bounded, one Clock::Now().
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>

#include "pkg/util/clock.h"

namespace ksched::util {

class WritesGate {
 public:
  bool IsOpen() const {
    if (!open_.load(std::memory_order_acquire)) return false;
    const Clock* clock = clock_.load(std::memory_order_acquire);
    return clock == nullptr || clock->Now().time_since_epoch().count() < deadline_.load(std::memory_order_acquire);
  }
  // From now on the gate is open only before the deadline ExtendUntil sets
  // (closed until the first one). `clock` must outlive the gate. Call before
  // any write may start.
  void BoundBy(const Clock& clock) { clock_.store(&clock, std::memory_order_release); }
  // Moves the deadline to `until` if that is later (a renewal never
  // shortens the tenure it follows).
  void ExtendUntil(TimePoint until) {
    const int64_t t = until.time_since_epoch().count();
    int64_t cur = deadline_.load(std::memory_order_relaxed);
    while (cur < t && !deadline_.compare_exchange_weak(cur, t, std::memory_order_release)) {
    }
  }
  void Close() {
    open_.store(false, std::memory_order_release);
    closed_.request_stop();
  }
  std::stop_token StopToken() const { return closed_.get_token(); }

 private:
  std::atomic<bool> open_{true};
  std::atomic<const Clock*> clock_{nullptr};
  std::atomic<int64_t> deadline_{INT64_MIN};  // steady-clock ticks
  std::stop_source closed_;
};

}  // namespace ksched::util
