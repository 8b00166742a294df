// DynamicResources: schedules pods that use DRA ResourceClaims (kube's
// DynamicResources plugin, v1.34, with what later minors added behind
// FeatureGates: extended resources, device taints, binding conditions,
// partitionable devices and consumable capacity).
//
// PreEnqueue: every claim the pod names must exist (by resourceClaimName, or
//   for a template the name status.resourceClaimStatuses records; an entry
//   recorded without a name needs no claim), not be being deleted, and for a
//   template be controlled by the pod; else UnschedulableAndUnresolvable
//   with kube's text.
// PreFilter: the same checks, then Skip for a pod without claims. Allocated
//   claims contribute their allocation's node selector; for unallocated ones
//   an in-flight allocation makes the pod wait, and every class a request
//   names must exist ("request r: device class c does not exist"). The
//   allocator is built once per cycle over the slices, the classes and the
//   devices of allocated and in-flight claims.
// Filter: an allocated claim whose node selector rejects the node =>
//   "resourceclaim not available on the node" (remembered for PostFilter);
//   the unallocated claims must all be allocatable on the node, else
//   "cannot allocate all claims" (UnschedulableAndUnresolvable), or an
//   Error when a claim or class is unusable (a bad selector, ...); a search
//   longer than filterTimeout => "timed out trying to allocate devices"
//   (UnschedulableAndUnresolvable). The node's allocation is kept for
//   Reserve.
// PostFilter: of the claims some node rejected, deallocates one that is
//   reserved for nobody (or only this pod) with a status update, so the
//   next attempt can allocate afresh => Unschedulable "deallocation of
//   ResourceClaim completed"; else "still not schedulable".
// Reserve: marks the chosen node's allocations in flight (ClaimTracker).
//   Unreserve drops them, restores assumed claims, and removes the pod from
//   reservedFor of claims PreBind already wrote (strategic merge patch).
// PreBind: for each claim not yet reserved for the pod: adds the
//   resource.kubernetes.io/delete-protection finalizer (PUT) when it
//   allocates, then writes status.allocation and appends the pod to
//   status.reservedFor (PUT status), re-reading the claim after a conflict
//   (at most 5 attempts); then assumes the written claim and ends the
//   in-flight allocation. Any failure fails the binding (Unreserve, retry).
//
// Binding conditions (FeatureGates::DraBindingConditions(); see
// binding_conditions.h): PreBind's status write also sets the allocation's
// allocationTimestamp when unset; then, if a written allocation has a
// device with bindingConditions, PreBind polls the claims in the informer
// (every kBindingConditionsPollPeriod, up to bindingTimeout) until all are
// ready. A True failure condition fails it ("device binding failed:
// claim=..., reason=..., message=..."), so does the timeout ("device
// binding timeout: ..."): the framework unreserves the pod and retries it;
// that attempt's Filter finds the claim failed or timed out, rejects it as
// not available on any node, and PostFilter deallocates it. Each wait ends
// in dra_metrics.h's metrics. Unlike kube, no BindingConditionsPending
// event is recorded (plugins have no event recorder here), and the poll
// period is shorter (kube: 5 s).
// Events (v1.34, queueing hints on): Node/Add|UpdateNodeLabel|
//   UpdateNodeAllocatable (+UpdateNodeTaint without hints), ResourceClaim/
//   Add|Update (hint: the pod's claims must all exist; a deallocation =>
//   Queue; a claim of the pod created, or its status changed => Queue),
//   Pod/UpdatePodGeneratedResourceClaim (hint: the pod itself, with all its
//   claims present), DeviceClass/Add|Update, ResourceSlice/Add|Update.
//
// Extended resources backed by DRA (FeatureGates::dra_extended_resource;
// extended_resources.h): PreFilter adds, after the pod's claims, the claim
// a previous attempt created for the pod (found by annotation and owner),
// else an in-memory one, when the pod requests a resource a DeviceClass
// maps. Filter: a claim from a previous attempt => UnschedulableAndUnresolvable
// "cannot schedule extended resource claim" (PostFilter deletes it:
// "deletion of ResourceClaim completed"); a requested resource neither
// advertised by the node nor mapped => UnschedulableAndUnresolvable "cannot
// fit resource" (kube's statusUnschedulable); else the node's
// copy of the claim gets a request per container and resource the node
// does not advertise, allocated with the pod's other claims. Reserve puts
// it in flight under its temporary uid. PreBind creates it, then writes it
// as any claim (finalizer, allocation, reservedFor), waits until the
// informer has it (up to 120 s, so that its devices stay taken), and
// patches the pod's status.extendedResourceClaimStatus. Unreserve deletes a
// created claim (finalizer removed first). DeviceClass events for this are
// NodeResourcesFit's.
//
// Differences from kube: claims are searched on each node in a fixed pool
// order (see allocator.h), and PostFilter picks the first deallocatable
// claim in the pod's order where kube picks one at random.
//
// Thread-safety: Filter runs concurrently per node and records its results
// under the cycle state's mutex; the other points run once per pod, binding
// points of different pods concurrently. The ClaimTracker is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/config/plugin_args.h"
#include "pkg/scheduler/framework/binding_waits.h"
#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/device_class_resolver.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/pod_signature.h"
#include "pkg/scheduler/framework/resource_claim_client.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"
#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"
#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources_args.h"
#include "pkg/scheduler/plugins/dynamicresources/pool_cache.h"
#include "pkg/scheduler/plugins/dynamicresources/tainted_slices.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::plugins::dynamicresources {

inline constexpr std::string_view kName = "DynamicResources";
inline constexpr std::string_view kStateKey = "DynamicResources";
// resourceapi.Finalizer: keeps an allocated claim until it is deallocated.
inline constexpr std::string_view kDeleteProtectionFinalizer = "resource.kubernetes.io/delete-protection";
inline constexpr std::string_view kErrCannotAllocate = "cannot allocate all claims";
inline constexpr std::string_view kErrNotAvailableOnNode = "resourceclaim not available on the node";
inline constexpr std::string_view kErrTimedOut = "timed out trying to allocate devices";
// TallyDevices' name for the claim of the pod's extended resources.
inline constexpr std::string_view kExtendedResourcesClaim = "(the pod's extended resources)";
// Attempts of PreBind's claim write (client-go's retry.DefaultRetry).
inline constexpr int kBindClaimAttempts = 5;
// How long PreBind waits for the informer to show a created extended
// resource claim (kube's AssumeExtendedResourceTimeoutDefaultSeconds).
inline constexpr util::Duration kAssumeExtendedClaimTimeout = std::chrono::seconds(120);
// How often PreBind re-reads the claims while waiting for binding
// conditions (kube: 5 s; the informer read is cheap and a shorter period
// binds sooner).
inline constexpr util::Duration kBindingConditionsPollPeriod = std::chrono::seconds(1);

// Per claim of the pod, in the pod's order.
struct ClaimInfo {
  dra::ClaimPtr claim;
  // Set when the claim is allocated with a node selector.
  std::optional<api::CompiledNodeSelector> available_on_nodes;
  // Set by Reserve, written by PreBind; unset when nothing is allocated.
  std::optional<api::AllocationResult> allocation;
  // Set by PreFilter for an allocated claim whose binding failed or timed
  // out: no node may take it, and PostFilter frees it.
  bool binding_failed = false;
};

// The plugin's cycle state; clones share it (kube does the same).
class StateData final : public framework::StateData, public std::enable_shared_from_this<StateData> {
 public:
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<StateData>(shared_from_this());
  }

  std::vector<ClaimInfo> claims;
  // Set when some claim needs allocating.
  std::optional<dra::Allocator> allocator;

  std::mutex mu;
  // Indices of allocated claims some node rejected (Filter, for PostFilter).
  std::set<size_t> unavailable_claims;  // guarded by mu
  // The claims that need allocating, in claim order (PreFilter): what a
  // node's search allocates, unless the node has its own version of the
  // extended resource claim (ToAllocate).
  std::vector<dra::ClaimPtr> unallocated;
  // Some claim has a firstAvailable request: only then does Score read the
  // nodes' allocations.
  bool prioritized = false;
  // Whether Filter keeps each node's allocation in node_allocations (see
  // DynamicResources::UseSnapshot).
  bool keep_allocations = true;
  // Per node: the allocation of the unallocated claims, in claim order,
  // written by that node's Filter only; Score may read an entry it found,
  // Reserve builds the chosen node's.
  std::map<std::string, dra::NodeAllocation, std::less<>> node_allocations;  // guarded by mu

  // DRAExtendedResource: the index in `claims` of the pod's extended
  // resource claim (always the last), if it has one.
  std::optional<size_t> extended_claim;
  // Its uid when PreFilter found or made it: the in-flight key.
  std::string initial_extended_uid;
  // The pod's scalar requests, and the class mapping of this cycle.
  framework::ScalarResources pod_scalar_resources;
  std::shared_ptr<const framework::ExtendedResourceClasses> extended_classes;
  struct NodeExtendedClaim {
    dra::ClaimPtr claim;  // null: every extended resource is the node's own
    std::vector<api::ContainerExtendedResourceRequest> mappings;
  };
  // Per node: the node's version of the extended resource claim (Filter).
  std::map<std::string, NodeExtendedClaim, std::less<>> node_extended_claims;  // guarded by mu

  size_t NumUserClaims() const { return extended_claim ? claims.size() - 1 : claims.size(); }
  // Drops what only the scheduling cycle reads (the allocator, the other
  // nodes' allocations and claims) once the pod is reserved on `node`: a
  // binding keeps this state alive, and the allocator's view of the
  // allocated devices would make the next cycles copy the tally (see
  // AllocatedCounts) for as long as the binding lasts.
  void ReleaseSchedulingState(std::string_view node);
  // What the search on a node whose version of the extended resource claim
  // is `node_extended_claim` (null: none) allocates: `unallocated`, with
  // that version in place of the pod's.
  std::vector<dra::ClaimPtr> ToAllocate(const dra::ClaimPtr& node_extended_claim) const {
    std::vector<dra::ClaimPtr> out = unallocated;
    if (node_extended_claim != nullptr && extended_claim && !claims[*extended_claim].claim->status.allocation) {
      out.back() = node_extended_claim;  // the extended resource claim is always the last
    }
    return out;
  }
};

class DynamicResources : public framework::SignPlugin,
                         public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::BindingWaitCanceller,
                               public framework::BindingWaitWaker,
                               public framework::EnqueueExtensions {
 public:
  // `claims` may be nullptr: PreBind and PostFilter then fail when they
  // have a write to make. `tracker` is shared with the scheduler's other
  // profiles. Filter gives up on a node after `filter_timeout` on `clock`
  // (zero: never); PreBind waits for binding conditions up to
  // `binding_timeout`. `features` says which kube minor's behaviour to
  // follow; `profile` labels the metrics.
  DynamicResources(const framework::SharedListers& listers, std::shared_ptr<dra::ClaimTracker> tracker,
                   framework::ResourceClaimClient* claims, const framework::FeatureGates& features,
                   const util::Clock& clock = util::RealClock::Get(),
                   util::Duration filter_timeout = kDefaultFilterTimeout,
                   util::Duration binding_timeout = kDefaultBindingTimeout,
                   std::string profile = "default-scheduler");

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  framework::Status PreEnqueue(const api::Pod& pod) override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  std::pair<framework::PostFilterResult, framework::Status> PostFilter(
      framework::CycleState& state, const api::Pod& pod, const framework::NodeToStatus& filtered) override;
  framework::Status Reserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  void Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  // Skip when the pod has no claims.
  framework::Status PreBindPreFlight(framework::CycleState& state, const api::Pod& pod,
                                     std::string_view node_name) override;
  bool AllowsParallelPreBind() const override { return true; }
  framework::Status PreBind(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;
  // Ends PreBind's waits (for binding conditions, for the informer) at once,
  // now and later: Scheduler::Stop.
  void CancelBindingWaits() override { binding_waits_.Cancel(); }
  // A claim event may report the conditions PreBind waits for, or show it
  // the claim it wrote: its waits check again at once.
  void WakeBindingWaits(const framework::ClusterEvent& event) override {
    if (event.resource == framework::resource::kResourceClaim) binding_waits_.Wake();
  }

  util::StatusOr<framework::QueueingHint> IsSchedulableAfterClaimChange(const api::Pod& pod,
                                                                        const framework::EventObject& old_obj,
                                                                        const framework::EventObject& new_obj) const;
  util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodChange(const api::Pod& pod,
                                                                      const framework::EventObject& old_obj,
                                                                      const framework::EventObject& new_obj) const;

  dra::ClaimTracker& Tracker() { return *tracker_; }

  // Why the pod's claims find no devices on the node (ksched simulate
  // --explain): Allocator::Tally over the claims Filter would allocate
  // there, with the allocator PreFilter builds from the cluster as it is
  // now; the claim the pod's extended resources would become is named
  // kExtendedResourcesClaim. Empty when nothing is left to allocate;
  // Unavailable with the plugin's message when PreFilter or Filter
  // rejects before the allocator is asked.
  util::StatusOr<std::vector<dra::RequestDeviceTally>> TallyDevices(const api::Pod& pod,
                                                                    const framework::NodeInfo& node_info);
  // See New(); call before the plugin is used.
  void AssumeBindingConditionsMet() { assume_binding_conditions_met_ = true; }
  // The cycle's node snapshot (the handle's; New() sets it). With it,
  // Filter keeps a node's allocation only when Score reads it (a
  // firstAvailable request): Reserve searches the chosen node again, with
  // the cycle's allocator and so to the same allocation, instead of every
  // feasible node's being kept and thrown away. Call before the plugin is
  // used.
  void UseSnapshot(const framework::SharedLister* snapshot) { snapshot_ = snapshot; }

 protected:
  // kube 1.35's Score of a node: for each firstAvailable request of the
  // pod's claims, 8 minus the index of the subrequest the node's allocation
  // chose (an allocated claim counts its allocation), summed; 0 for a pod
  // without claims or a node Filter allocated nothing on.
  std::pair<int64_t, framework::Status> PrioritizedListScore(framework::CycleState& state,
                                                             std::string_view node_name) const;
  // The cycle's state when PrioritizedListScore may score a node; null when
  // it gives every node 0 (no claims, or none with a firstAvailable request).
  StateData* ScoringState(framework::CycleState& state) const;

 private:
  // The pod's claims in spec order (entries without a generated claim
  // left out); kube's message when one is missing or unusable.
  util::StatusOr<std::vector<dra::ClaimPtr>> PodResourceClaims(const api::Pod& pod) const;
  // Nullopt when the class exists (or the lookup cannot tell).
  std::optional<framework::Status> ValidateDeviceClass(const std::string& class_name,
                                                       const std::string& request_name) const;
  // PreBind's writes for claim `index`; the claim as stored.
  util::StatusOr<dra::ClaimPtr> BindClaim(StateData& s, size_t index, const api::Pod& pod,
                                          std::string_view node_name);
  // The pools of the slices as the allocator sees them (DeviceTaintRules'
  // taints patched in), listed again only when the slice or rule listers
  // changed.
  std::shared_ptr<const dra::SlicePools> CurrentSlicePools();
  // PreFilter's extended resource claim (see the header comment), or null.
  dra::ClaimPtr PreFilterExtendedResources(const api::Pod& pod, StateData& s);
  // Filter's part: the node's claim (null when nothing is needed) or a
  // rejection.
  framework::Status FilterExtendedResources(const StateData& s, const api::Pod& pod,
                                            const framework::NodeInfo& node_info,
                                            StateData::NodeExtendedClaim& out) const;
  // Filter's claims on one node: allocated ones the node cannot use (by
  // index in StateData::claims) and those to allocate there, the extended
  // resource claim as the node's version. A non-success status rejects the
  // node.
  struct NodeClaims {
    std::vector<size_t> unavailable;
    StateData::NodeExtendedClaim extended;
    // Only extended resources, all the node's own.
    bool nothing_to_allocate = false;
    // StateData::ToAllocate(extended.claim) when the node has its own
    // extended resource claim.
    std::vector<dra::ClaimPtr> with_node_claim;
    // The claims the node's search allocates; most nodes share the pod's
    // list.
    const std::vector<dra::ClaimPtr>& ToAllocate(const StateData& s) const {
      return extended.claim != nullptr ? with_node_claim : s.unallocated;
    }
  };
  framework::Status ClaimsOnNode(const StateData& s, const api::Pod& pod, const framework::NodeInfo& node_info,
                                 NodeClaims& out) const;
  // Reserve's work: puts the allocations for `node_name` in flight.
  framework::Status ReserveAllocations(StateData& s, std::string_view node_name);
  // Reserve's allocations on `node_name` when Filter did not keep them:
  // the search of Filter, run again on the claims Filter allocated there.
  util::StatusOr<std::vector<api::AllocationResult>> AllocateAgain(const StateData& s, std::string_view node_name,
                                                                   const dra::ClaimPtr& node_extended_claim) const;
  // Removes the delete-protection finalizer (re-reading after a conflict)
  // and deletes the claim; NotFound counts as deleted.
  util::Status DeleteClaim(api::ResourceClaim claim);
  void UnreserveExtendedResourceClaim(StateData& s, const api::Pod& pod);
  // Polls the tracker until it can assume `claim` (the informer has it).
  void WaitForExtendedClaimInAssumeCache(const dra::ClaimPtr& claim);
  // PreBind's wait for binding conditions (header comment).
  framework::Status WaitForBindingConditions(StateData& s, const api::Pod& pod, std::string_view node_name,
                                             framework::Cancellation* cancellation);
  // One poll: re-reads each claim from the tracker into `s`; true when all
  // are ready, an error when one failed or timed out.
  util::StatusOr<bool> PodReadyForBinding(StateData& s) const;

  const framework::SharedListers& listers_;
  std::shared_ptr<dra::ClaimTracker> tracker_;
  framework::ResourceClaimClient* const claims_;
  const framework::FeatureGates features_;
  const util::Clock& clock_;
  const util::Duration filter_timeout_;
  const util::Duration binding_timeout_;
  const std::string profile_;
  dra::CelCache cel_cache_;
  dra::TaintedSlices tainted_slices_;
  dra::PoolCache pool_cache_;
  framework::DeviceClassResolver extended_classes_;
  std::atomic<uint64_t> next_temporary_uid_{0};
  framework::BindingWaits binding_waits_;
  bool assume_binding_conditions_met_ = false;
  const framework::SharedLister* snapshot_ = nullptr;
};

// DynamicResources with the Score kube adds in 1.35 (FeatureGates::
// dynamic_resources_score; weight 2 in the default set): nodes whose
// allocations take earlier subrequests of firstAvailable lists score more,
// normalized to 0..100. A separate type so that at 1.34 the framework sees
// no Score plugin, as kube 1.34's has none.
class ScoringDynamicResources final : public DynamicResources,
                                      public framework::ScorePlugin,
                                      public framework::ScoreExtensions {
 public:
  using DynamicResources::DynamicResources;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  // Every node scores 0 for a pod without firstAvailable requests (most
  // pods): that is found once per run.
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes,
                               framework::NodeScore* out) override;
  framework::ScoreExtensions* GetScoreExtensions() override { return this; }
  framework::Status NormalizeScore(framework::CycleState& state, const api::Pod& pod,
                                   framework::NodeScoreList& scores) override;
};

// Builds the plugin from DynamicResourcesArgs (or defaults), the handle's
// listers, clock and queueing-hint gate, and the claim calls of the handle's
// binding client (framework::ResourceClaimClientSource), if it has them.
// `assume_binding_conditions_met` (ksched simulate, where no driver reports
// conditions and time moves only between cycles): PreBind never waits for
// binding conditions. A claim whose binding has already failed or timed out
// is still rejected.
util::StatusOr<std::unique_ptr<DynamicResources>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                      bool assume_binding_conditions_met = false);

}  // namespace ksched::scheduler::plugins::dynamicresources
