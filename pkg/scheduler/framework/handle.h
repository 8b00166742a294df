// Handle: what a plugin gets from the framework that created it (kube's
// fwk.Handle). A plugin's factory receives it and may keep the reference:
// the Handle (the profile's runtime::Framework) outlives its plugins.
//
// Through the Handle a plugin reaches:
//   - SnapshotSharedLister(): the current cycle's NodeInfo snapshot;
//   - Listers(): informer listers of PVs, PVCs, StorageClasses, ...;
//   - Parallelizer(), Clock(), Features(), ProfileName();
//   - NominatedPodsForNode() (the scheduling queue's nominator, through the
//     PodNominator interface) and Activate() (PodActivator);
//   - Client(): the API calls plugins make (binding), and Volumes(): the
//     PV/PVC updates VolumeBinding makes, carried by the same client;
//   - Preemption(): victim deletions, nomination clearing, Preempted
//     events and the preemption metrics (asynchronous);
//   - waiting pods held at Permit;
//   - the plugin runner used by preemption to re-run filters with pods
//     added or removed (RunFilterPluginsWithNominatedPods, ...).
// Factories run while the framework is being built: they may store the
// Handle and read its dependencies, but must not call the Run* methods.
//
// PodNominator, PodActivator, BindingClient and VolumeClient are implemented
// outside the framework (queue adapter, REST client adapters); they are small
// so that tests can fake them.
//
// Thread-safety: every Handle method is safe to call from any thread.
// Implementations of PodNominator, PodActivator, BindingClient and
// VolumeClient must be too.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/pods_in_pre_bind.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/scheduler/framework/waiting_pods.h"
#include "pkg/util/clock.h"
#include "pkg/util/parallelizer.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

class PodNominator {
 public:
  virtual ~PodNominator() = default;
  // Pods nominated to `node_name`, any priority. Called for every node
  // evaluated by Filter: keep it cheap when nothing is nominated.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(std::string_view node_name) const = 0;
  // Whether any pod is nominated to any node: the Filter loop asks once
  // per run of nodes, and skips the per-node lookups when none is.
  virtual bool HasNominatedPods() const = 0;
};

class PodActivator {
 public:
  virtual ~PodActivator() = default;
  // Moves the pods from the unschedulable/backoff queues to activeQ.
  virtual void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) = 0;
};

// The PV/PVC writes VolumeBinding's PreBind makes (kube's binder calls
// PersistentVolumes().Update and PersistentVolumeClaims().Update). Each
// writes only what the binder changes — a PV's claimRef and annotations, a
// PVC's annotations — guarded by metadata.resourceVersion (kConflict when
// stale), so fields ksched's model does not carry are never lost; it returns
// the object as stored, with its new resourceVersion.
class VolumeClient {
 public:
  virtual ~VolumeClient() = default;
  virtual util::StatusOr<api::PersistentVolume> UpdatePersistentVolume(const api::PersistentVolume& pv) = 0;
  virtual util::StatusOr<api::PersistentVolumeClaim> UpdatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) = 0;
};

class BindingClient {
 public:
  virtual ~BindingClient() = default;
  // POST pods/<name>/binding for `pod` to `node_name`. A kConflict error
  // means another binder won (the pod is already bound).
  virtual util::Status Bind(const api::Pod& pod, std::string_view node_name) = 0;
  // The volume writes that travel with this client (the same API
  // connection), or nullptr when it carries none.
  virtual VolumeClient* Volumes() { return nullptr; }
};

// Implemented by plugins whose binding-cycle points may block for long
// (VolumeBinding's PreBind waits up to bindTimeoutSeconds for the PV
// controller). kube-scheduler cancels the binding cycles' context when it
// stops; Scheduler::Stop calls CancelBindingWaits() on every PreBind plugin
// instead, before draining binding cycles. Afterwards such waits end at once
// with an error. Must be thread-safe and idempotent.
class BindingWaitCanceller {
 public:
  virtual ~BindingWaitCanceller() = default;
  virtual void CancelBindingWaits() = 0;
};

// The writes and metrics of preemption (what kube's evaluator does with the
// ClientSet, the EventRecorder and its two metrics). Every call returns
// without waiting for the API server: the scheduler implements it over its
// asynchronous API writer, which retries transient failures.
class PreemptionWriter {
 public:
  virtual ~PreemptionWriter() = default;
  // The end of one victim's eviction: OK when the victim is deleted or
  // already gone, else the error that stopped it.
  using VictimDone = std::function<void(util::Status)>;
  // Evicts `victim` for `preemptor`: the victim's DisruptionTarget
  // condition (reason PreemptionByScheduler), then its DELETE. Without
  // `done`, transient failures are retried until the writer stops. With
  // `done` (asynchronous preemption, which retries by rescheduling the
  // preemptor as kube does), each step is tried once and `done` is called
  // exactly once, on any thread, under no lock of the writer.
  virtual void DeleteVictim(const api::Pod& victim, const api::Pod& preemptor, VictimDone done) = 0;
  // The Preempted event on `victim` (related: `preemptor`); `in_memory`: the
  // victim was stopped at Permit, without an API call.
  virtual void RecordPreempted(const api::Pod& victim, const api::Pod& preemptor, std::string_view node_name,
                               bool in_memory) = 0;
  // Clears status.nominatedNodeName of `pod` (nothing when it names none).
  virtual void ClearNominatedNodeName(const api::Pod& pod) = 0;
  // scheduler_preemption_attempts_total / scheduler_preemption_victims.
  virtual void ObservePreemptionAttempt() = 0;
  virtual void ObservePreemptionVictims(int victims) = 0;
  // scheduler_preemption_goroutines_duration_seconds /
  // scheduler_preemption_goroutines_execution_total: one asynchronous
  // preemption's API calls ended after `elapsed`.
  virtual void ObservePreemptionGoroutine(bool success, util::Duration elapsed) = 0;
};

class Handle {
 public:
  virtual ~Handle() = default;

  // The profile's schedulerName.
  virtual std::string_view ProfileName() const = 0;
  virtual const SharedLister& SnapshotSharedLister() const = 0;
  virtual const SharedListers& Listers() const = 0;
  virtual util::Parallelizer& Parallelizer() const = 0;
  virtual const util::Clock& Clock() const = 0;
  virtual const FeatureGates& Features() const = 0;
  // nullptr when the scheduler runs without an API client (some tests).
  virtual BindingClient* Client() const = 0;
  // The PV/PVC writes, reached through Client(); nullptr without a client
  // or when the client carries no volume calls.
  VolumeClient* Volumes() const {
    BindingClient* c = Client();
    return c != nullptr ? c->Volumes() : nullptr;
  }

  // nullptr when the scheduler runs without API writes (some tests):
  // preemption then only nominates.
  virtual PreemptionWriter* Preemption() const { return nullptr; }

  // Empty when no nominator is wired.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(std::string_view node_name) const = 0;
  // No-op when no activator is wired.
  virtual void Activate(const std::vector<std::shared_ptr<const api::Pod>>& pods) = 0;

  // nullptr when the pod is not waiting at Permit.
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) const = 0;
  // nullptr when the pod's binding cycle is not in PreBind (or the minor
  // does not track it: PreemptionCancelsPreBind).
  virtual std::shared_ptr<PodInPreBind> GetPodInPreBind(std::string_view /*uid*/) const { return nullptr; }
  virtual void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& fn) const = 0;
  // Rejects the waiting pod ("removed", no plugin); false if not waiting.
  virtual bool RejectWaitingPod(std::string_view uid) = 0;

  // The plugin runner (see runtime/framework.h for the semantics).
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const api::Pod& pod_to_schedule,
                                             const PodInfoPtr& pod_info_to_add, const NodeInfo& node_info) = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const api::Pod& pod_to_schedule,
                                                const PodInfoPtr& pod_info_to_remove, const NodeInfo& node_info) = 0;
  virtual Status RunFilterPlugins(CycleState& state, const api::Pod& pod, const NodeInfo& node_info) = 0;
  virtual Status RunFilterPluginsWithNominatedPods(CycleState& state, const api::Pod& pod,
                                                   const NodeInfo& node_info) = 0;
};

}  // namespace ksched::scheduler::framework
