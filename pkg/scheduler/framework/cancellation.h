// Cancellation: kube's context.WithCancelCause for a binding cycle's PreBind
// (ksched's plugins take no context). The first Cancel(cause) wins; waits
// subscribe to be woken at once rather than at their next poll. A child
// (constructed with a parent) is cancelled with the parent's cause when the
// parent is, as a Go child context is.
//
// Thread-safety: every method is thread-safe; Cancelled() takes no lock, so
// a wait may ask it under its own mutex. Callbacks run on the cancelling
// thread under the cancellation's mutex, so once Unsubscribe returns its
// callback never runs again; a callback must not call back into the same
// Cancellation.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ksched::scheduler::framework {

class Cancellation {
 public:
  Cancellation() = default;
  // A child of `parent` (may be null); `parent` must outlive it.
  explicit Cancellation(Cancellation* parent);
  ~Cancellation();
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Idempotent: only the first cause is kept.
  void Cancel(const std::string& cause);
  bool Cancelled() const;
  // The first Cancel's cause; "" while not cancelled.
  std::string Cause() const;

  // `wake` runs at Cancel, or at once when already cancelled. Returns the
  // id for Unsubscribe.
  uint64_t Subscribe(std::function<void()> wake);
  void Unsubscribe(uint64_t id);

 private:
  Cancellation* parent_ = nullptr;
  uint64_t parent_subscription_ = 0;
  mutable std::mutex mu_;
  std::atomic<bool> cancelled_{false};               // set under mu_
  std::string cause_;                                 // guarded by mu_
  uint64_t next_id_ = 1;                              // guarded by mu_
  std::map<uint64_t, std::function<void()>> wakes_;  // guarded by mu_
};

}  // namespace ksched::scheduler::framework
