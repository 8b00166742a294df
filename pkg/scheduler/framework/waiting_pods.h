// WaitingPod and WaitingPodsMap: pods held at Permit (kube's waitingPod and
// waitingPodsMap).
//
// When a Permit plugin returns Wait, the pod becomes a WaitingPod with one
// pending entry per waiting plugin and that plugin's deadline (now +
// timeout). The outcome is decided once, by the first of:
//   - every pending plugin called Allow          -> Success;
//   - some caller called Reject(plugin, message) -> Unschedulable(message),
//                                                   attributed to plugin;
//   - some caller called Preempt(plugin, message) -> Error(message),
//     attributed to plugin (the pod goes to backoff, not unschedulable);
//   - the earliest pending deadline passed       -> Unschedulable("rejected
//     due to timeout after waiting <timeout> at plugin <plugin>").
// Later calls do not change it. Wait() blocks the binding cycle until then;
// deadlines are measured on the injected Clock, so tests drive timeouts
// with a FakeClock.
//
// The map is shared by every profile's framework (as in kube), keyed by pod
// UID.
//
// Thread-safety: all methods are thread-safe; Allow/Reject may come from any
// thread (another plugin, an informer handler) while Wait blocks.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::framework {

class WaitingPod {
 public:
  // `plugin_timeouts`: waiting plugin -> how long it lets the pod wait.
  WaitingPod(std::shared_ptr<const api::Pod> pod, const std::map<std::string, util::Duration>& plugin_timeouts,
             const util::Clock& clock);
  WaitingPod(const WaitingPod&) = delete;
  WaitingPod& operator=(const WaitingPod&) = delete;

  const std::shared_ptr<const api::Pod>& pod() const { return pod_; }
  // Plugins that have not allowed the pod yet (sorted).
  std::vector<std::string> GetPendingPlugins() const;

  // Marks `plugin` as allowing the pod; the last one decides Success.
  void Allow(std::string_view plugin);
  // Decides Unschedulable(message) attributed to `plugin`.
  void Reject(std::string_view plugin, std::string_view message);
  // Decides Error(message) attributed to `plugin`; false when the outcome
  // was already decided.
  bool Preempt(std::string_view plugin, std::string_view message);

  // Blocks until decided and returns the outcome.
  Status Wait();
  // The outcome if decided (a passed deadline counts), without blocking.
  std::optional<Status> TryGet();

 private:
  // Decides on a passed deadline, if any. Requires mu_.
  void CheckDeadlinesLocked();
  void DecideLocked(Status status);

  const std::shared_ptr<const api::Pod> pod_;
  const util::Clock& clock_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Pending {
    util::TimePoint deadline;
    util::Duration timeout;
  };
  std::map<std::string, Pending, std::less<>> pending_;  // guarded by mu_
  std::optional<Status> result_;                         // guarded by mu_
};

class WaitingPodsMap {
 public:
  void Add(std::shared_ptr<WaitingPod> wp);
  void Remove(std::string_view uid);
  // nullptr when the pod is not waiting.
  std::shared_ptr<WaitingPod> Get(std::string_view uid) const;
  // Calls `fn` for each waiting pod (on a copy of the map, so `fn` may call
  // back into the map).
  void Iterate(const std::function<void(WaitingPod&)>& fn) const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WaitingPod>, std::less<>> pods_;  // guarded by mu_
};

}  // namespace ksched::scheduler::framework
