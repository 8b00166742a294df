// ClusterSimulation: what stands in for kubelets, the PV controller and the
// resource-claim controller beside kube-apiserver-lite (--simulate-kubelet):
// a KubeletSimulator, a PVControllerSimulator and a
// ResourceClaimControllerSimulator observing the handler's stores and writing back
// through them, on a timer thread of their own, as separate clients of the
// server would.
//
// Pair it with ServerOptions::graceful_pod_deletion, so that deleting a
// bound pod leaves it to the simulated kubelet as kube-apiserver leaves it
// to a real one.
//
// Ownership and lifetime: borrows the handler's stores; destroy it before
// the handler. The destructor stops observing first, then stops its timer
// thread, so no simulator code runs once it returns.
// Thread-safety: the counters behind the simulators' accessors may be
// read from any thread.
#pragma once

#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/kubelet_simulator.h"
#include "pkg/apiserverlite/pv_controller_simulator.h"
#include "pkg/apiserverlite/resource_claim_controller_simulator.h"
#include "pkg/apiserverlite/timer_queue.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

class ClusterSimulation {
 public:
  // `delay`: how long a simulated kubelet or controller takes to act.
  ClusterSimulation(ApiHandler& handler, util::Clock& clock, util::Duration delay);
  ~ClusterSimulation();

  ClusterSimulation(const ClusterSimulation&) = delete;
  ClusterSimulation& operator=(const ClusterSimulation&) = delete;

  const KubeletSimulator& kubelet() const { return kubelet_; }
  const PVControllerSimulator& pv_controller() const { return pv_controller_; }
  const ResourceClaimControllerSimulator& resource_claim_controller() const { return resource_claim_controller_; }

 private:
  TimerQueue timers_;
  KubeletSimulator kubelet_;
  PVControllerSimulator pv_controller_;
  ResourceClaimControllerSimulator resource_claim_controller_;
};

}  // namespace ksched::apiserver
