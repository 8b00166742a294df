// KubeletSimulator (--simulate-kubelet): makes bound pods look like they run,
// as kwok does, so workloads look real without kubelets.
//
// `delay` after a pod is seen bound (spec.nodeName set, phase Pending, not
// being deleted) it moves to phase Running with Initialized, Ready,
// ContainersReady and PodScheduled conditions, startTime, host and pod IPs and
// a running status per container. A node seen without a Ready condition gets
// Ready=True (and the pressure conditions False), an InternalIP address and a
// kubelet version. A bound pod marked terminating (DELETE with a grace
// period, metadata.deletionTimestamp set) is deleted `delay` later, as a
// kubelet does once the containers stopped.
//
// Thread-safety: observes the stores through ObjectStore observers (under the
// store mutex, it only schedules timers) and writes from the TimerQueue
// thread, never holding two store mutexes at once. The stores and the timer
// queue must outlive the simulator's timers (the owner stops the queue
// first).
#pragma once

#include <atomic>
#include <string>

#include "pkg/apiserverlite/object_store.h"
#include "pkg/apiserverlite/timer_queue.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

class KubeletSimulator {
 public:
  KubeletSimulator(ObjectStore& pods, ObjectStore& nodes, TimerQueue& timers,
                   util::Duration delay);

  // Starts / stops observing the pod and node stores. After Detach no new
  // timer is scheduled; timers already scheduled still run.
  void Attach();
  void Detach();

  // How many pods / nodes it has started / made ready so far.
  uint64_t pods_started() const { return pods_started_.load(); }
  uint64_t nodes_readied() const { return nodes_readied_.load(); }
  // How many terminating pods it has deleted.
  uint64_t pods_terminated() const { return pods_terminated_.load(); }

 private:
  void OnPodEvent(const EventPtr& event);
  void OnNodeEvent(const EventPtr& event);
  void StartPod(const std::string& key, const std::string& uid);
  void FinishPod(const std::string& key, const std::string& uid);
  void MakeNodeReady(const std::string& name, const std::string& uid);
  std::string NodeIp(const std::string& node_name) const;

  ObjectStore& pods_;
  ObjectStore& nodes_;
  TimerQueue& timers_;
  const util::Duration delay_;
  std::atomic<uint64_t> pods_started_{0};
  std::atomic<uint64_t> nodes_readied_{0};
  std::atomic<uint64_t> pods_terminated_{0};
  std::atomic<uint32_t> next_pod_ip_{0};
  uint64_t pod_observer_ = 0;
  uint64_t node_observer_ = 0;
};

}  // namespace ksched::apiserver
