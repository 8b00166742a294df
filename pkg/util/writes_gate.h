// WritesGate: whether this process may still start writes to the API server
// (bindings, volume updates, pod status patches, Events, preemption victims'
// deletions). A leader closes it before it releases or gives up its Lease,
// so that no write of it starts while another scheduler may lead.
//
// Open when built; Close() is final. A write "starts" when its client
// checks IsOpen(): a write that passed just before Close() may still be on
// the wire, none passes after Close() returned.
//
// Thread-safety: thread-safe; IsOpen() is one atomic load.
#pragma once

#include <atomic>

namespace ksched::util {

class WritesGate {
 public:
  bool IsOpen() const { return open_.load(std::memory_order_acquire); }
  void Close() { open_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> open_{true};
};

}  // namespace ksched::util
