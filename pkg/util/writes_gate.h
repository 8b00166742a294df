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
// Thread-safety: thread-safe; IsOpen() is one atomic load.
#pragma once

#include <atomic>
#include <stop_token>

namespace ksched::util {

class WritesGate {
 public:
  bool IsOpen() const { return open_.load(std::memory_order_acquire); }
  void Close() {
    open_.store(false, std::memory_order_release);
    closed_.request_stop();
  }
  std::stop_token StopToken() const { return closed_.get_token(); }

 private:
  std::atomic<bool> open_{true};
  std::stop_source closed_;
};

}  // namespace ksched::util
