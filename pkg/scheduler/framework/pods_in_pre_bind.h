// PodInPreBind and PodsInPreBind: the pods whose binding cycle is in PreBind
// (kube 1.36's podInPreBind and podsInPreBindMap, switch
// PreemptionCancelsPreBind). Preemption that picks such a pod as a victim
// cancels its PreBind instead of deleting it: the pod was never bound, so
// it goes back to the queue and its node is free once its binding cycle
// unreserves it.
//
// A PodInPreBind ends one of two ways, whichever comes first:
//   - CancelPod(message): cancels the cycle's Cancellation with `message`
//     as the cause; true (also when already cancelled);
//   - MarkPrebound(): PreBind finished, Bind follows; true.
// After the first, the other answers false: a prebound pod must be deleted
// through the API, a cancelled one must not bind.
//
// The map is shared by every profile's framework, keyed by pod UID.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "pkg/scheduler/framework/cancellation.h"

namespace ksched::scheduler::framework {

class PodInPreBind {
 public:
  bool CancelPod(const std::string& message);
  bool MarkPrebound();
  // What the pod's PreBind plugins wait under.
  Cancellation& cancellation() { return cancellation_; }

 private:
  std::mutex mu_;
  bool finished_ = false;  // guarded by mu_
  bool canceled_ = false;  // guarded by mu_
  Cancellation cancellation_;
};

class PodsInPreBind {
 public:
  // A new entry for `uid`, replacing any.
  std::shared_ptr<PodInPreBind> Add(std::string_view uid);
  // nullptr when the pod is not in PreBind.
  std::shared_ptr<PodInPreBind> Get(std::string_view uid) const;
  void Remove(std::string_view uid);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<PodInPreBind>, std::less<>> pods_;  // guarded by mu_
};

}  // namespace ksched::scheduler::framework
