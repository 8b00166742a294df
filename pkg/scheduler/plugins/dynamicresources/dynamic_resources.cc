#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_codec.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/config/args_as.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/cel_options.h"
#include "pkg/scheduler/plugins/dynamicresources/binding_conditions.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_metrics.h"
#include "pkg/scheduler/plugins/dynamicresources/extended_resources.h"
#include "pkg/scheduler/plugins/helper/normalize_score.h"
#include "pkg/util/seconds.h"

namespace ksched::scheduler::plugins::dynamicresources {
namespace {

using framework::ActionType;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

const framework::StateKey& Key() {
  static const framework::StateKey key(kStateKey);
  return key;
}

// A condition that stops this attempt but is not an API failure.
util::Status Failed(std::string message) { return util::Status(util::StatusCode::kInternal, std::move(message)); }

Status Unresolvable(std::string reason) { return Status(Code::kUnschedulableAndUnresolvable, std::move(reason)); }

// kube's klog.KObj rendering: "namespace/name".
std::string Ref(const api::ObjectMeta& m) { return api::KeyOf(m); }

// The claim name of one spec.resourceClaims entry (kube's
// resourceclaim.Name): unset when the entry's generated claim is recorded
// as not needed; must_check_owner for a template's claim.
struct ClaimName {
  std::optional<std::string> name;
  bool must_check_owner = false;
};

util::StatusOr<ClaimName> NameOf(const api::Pod& pod, const api::PodResourceClaim& entry) {
  if (entry.resource_claim_name) return ClaimName{entry.resource_claim_name, false};
  if (entry.resource_claim_template_name) {
    if (const api::PodResourceClaimStatus* st = api::GetClaimStatus(pod.status, entry.name)) {
      return ClaimName{st->resource_claim_name, true};
    }
    return util::NotFound("pod \"" + Ref(pod.metadata) + "\": ResourceClaim not created yet");
  }
  return util::InvalidArgument("pod \"" + Ref(pod.metadata) + "\", spec.resourceClaim \"" + entry.name +
                               "\": none of the supported fields are set");
}

bool IsControlledBy(const api::ObjectMeta& owned, const api::ObjectMeta& owner) {
  return std::any_of(owned.owner_references.begin(), owned.owner_references.end(),
                     [&](const api::OwnerReference& ref) { return ref.controller.value_or(false) && ref.uid == owner.uid; });
}

bool IsReservedForPod(const api::Pod& pod, const api::ResourceClaim& claim) {
  return std::any_of(claim.status.reserved_for.begin(), claim.status.reserved_for.end(),
                     [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod.metadata.uid; });
}

bool HasFinalizer(const api::ObjectMeta& m) {
  return std::find(m.finalizers.begin(), m.finalizers.end(), kDeleteProtectionFinalizer) != m.finalizers.end();
}

// Calls `cb` for each claim of the pod that exists; the first claim that is
// missing or unusable ends the walk with kube's message.
template <class F>
util::Status ForEachPodResourceClaim(const dra::ClaimTracker& tracker, const api::Pod& pod, F&& cb) {
  for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
    util::StatusOr<ClaimName> name = NameOf(pod, entry);
    if (!name.ok()) return name.status();
    if (!name->name) continue;
    util::StatusOr<dra::ClaimPtr> claim = tracker.Get(pod.metadata.namespace_, *name->name);
    if (!claim.ok()) return claim.status();
    const api::ResourceClaim& c = **claim;
    if (c.metadata.deletion_timestamp) {
      return Failed("resourceclaim \"" + c.metadata.name + "\" is being deleted");
    }
    if (name->must_check_owner &&
        (c.metadata.namespace_ != pod.metadata.namespace_ || !IsControlledBy(c.metadata, pod.metadata))) {
      return Failed("ResourceClaim " + Ref(c.metadata) + " was not created for pod " +
                                      Ref(pod.metadata) + " (pod is not owner)");
    }
    cb(*claim);
  }
  return util::Status();
}

// Whether a claim the pod gets from a template has not been created yet:
// ForEachPodResourceClaim would fail, told without building its message
// (queueing hints ask it of every waiting pod at every claim event).
bool AwaitsGeneratedClaim(const api::Pod& pod) {
  return std::any_of(pod.spec.resource_claims.begin(), pod.spec.resource_claims.end(),
                     [&](const api::PodResourceClaim& entry) {
                       return !entry.resource_claim_name && entry.resource_claim_template_name &&
                              api::GetClaimStatus(pod.status, entry.name) == nullptr;
                     });
}

// Some claim has a firstAvailable request: only then does Score read the
// nodes' allocations.
bool HasPrioritizedRequest(const std::vector<ClaimInfo>& claims) {
  return std::any_of(claims.begin(), claims.end(), [](const ClaimInfo& info) {
    const std::vector<api::DeviceRequest>& requests = info.claim->spec.devices.requests;
    return std::any_of(requests.begin(), requests.end(), [](const api::DeviceRequest& r) { return !r.exactly; });
  });
}

}  // namespace

DynamicResources::DynamicResources(const framework::SharedListers& listers, std::shared_ptr<dra::ClaimTracker> tracker,
                                   framework::ResourceClaimClient* claims, const framework::FeatureGates& features,
                                   const util::Clock& clock, util::Duration filter_timeout,
                                   util::Duration binding_timeout, std::string profile)
    : listers_(listers),
      tracker_(std::move(tracker)),
      claims_(claims),
      features_(features),
      clock_(clock),
      filter_timeout_(filter_timeout),
      binding_timeout_(binding_timeout),
      profile_(std::move(profile)),
      cel_cache_(framework::CelCompileOptions(features)),
      extended_classes_(listers.DeviceClasses()) {}

util::StatusOr<std::vector<dra::ClaimPtr>> DynamicResources::PodResourceClaims(const api::Pod& pod) const {
  std::vector<dra::ClaimPtr> out;
  util::Status s = ForEachPodResourceClaim(*tracker_, pod, [&](const dra::ClaimPtr& c) { out.push_back(c); });
  if (!s.ok()) return s;
  return out;
}

Status DynamicResources::PreEnqueue(const api::Pod& pod) {
  util::Status s = ForEachPodResourceClaim(*tracker_, pod, [](const dra::ClaimPtr&) {});
  if (!s.ok()) return Unresolvable(s.message());
  return Status();
}

std::optional<Status> DynamicResources::ValidateDeviceClass(const std::string& class_name,
                                                            const std::string& request_name) const {
  if (class_name.empty()) return Status::Error("request " + request_name + ": unsupported request type");
  if (listers_.DeviceClasses().Get("", class_name) == nullptr) {
    // Unschedulable until a DeviceClass event.
    return Unresolvable("request " + request_name + ": device class " + class_name + " does not exist");
  }
  return std::nullopt;
}

std::pair<framework::PreFilterResult, Status> DynamicResources::PreFilter(framework::CycleState& state,
                                                                          const api::Pod& pod,
                                                                          const framework::NodeInfoList&) {
  auto s = std::make_shared<StateData>();
  state.Write(Key(), s);
  util::StatusOr<std::vector<dra::ClaimPtr>> claims = PodResourceClaims(pod);
  if (!claims.ok()) return {{}, Unresolvable(claims.status().message())};
  dra::ClaimPtr extended_claim;
  if (features_.dra_extended_resource) extended_claim = PreFilterExtendedResources(pod, *s);
  std::optional<size_t> extended_index;
  if (extended_claim != nullptr) {
    extended_index = claims->size();
    s->initial_extended_uid = extended_claim->metadata.uid;
    claims->push_back(extended_claim);
  }
  if (claims->empty()) return {{}, Status(Code::kSkip)};

  // Kept in the state only once PreFilter succeeds: after a rejection here
  // PostFilter has no claims to deallocate, as in kube.
  std::vector<ClaimInfo> infos(claims->size());
  size_t to_allocate = 0;
  for (size_t i = 0; i < claims->size(); ++i) {
    const dra::ClaimPtr& claim = (*claims)[i];
    infos[i].claim = claim;
    // kube's "resourceclaim in use" check is a no-op: any allocated claim
    // can take one more reservation.
    if (claim->status.allocation) {
      if (claim->status.allocation->node_selector) {
        util::StatusOr<api::CompiledNodeSelector> sel =
            api::CompiledNodeSelector::Create(*claim->status.allocation->node_selector);
        if (!sel.ok()) return {{}, Status::FromError(sel.status())};
        infos[i].available_on_nodes = std::move(sel).value();
      }
      if (features_.DraBindingConditions()) {
        util::StatusOr<bool> binding = dra::CheckClaimBinding(*claim, binding_timeout_, clock_.WallNow());
        if (!binding.ok()) {
          KLOG_V(5, "Claim failed binding conditions check: pod {} resourceclaim {}: {}", Ref(pod.metadata),
                 Ref(claim->metadata), binding.status().message());
          infos[i].binding_failed = true;
        }
      }
      continue;
    }
    ++to_allocate;
    if (tracker_->ClaimHasPendingAllocation(claim->metadata.uid)) {
      return {{}, Unresolvable("resource claim " + Ref(claim->metadata) + " is in the process of being allocated")};
    }
    // The extended resource claim has no requests yet (Filter makes them
    // per node), or is a previous attempt's, which Filter rejects.
    if (extended_index == i) continue;
    for (const api::DeviceRequest& request : claim->spec.devices.requests) {
      if (request.exactly) {
        if (auto st = ValidateDeviceClass(request.exactly->device_class_name, request.name)) return {{}, *st};
      } else if (!request.first_available.empty()) {
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (auto st = ValidateDeviceClass(sub.device_class_name, request.name + "/" + sub.name)) return {{}, *st};
        }
      } else {
        return {{},
                Unresolvable("resource claim " + Ref(claim->metadata) + ", request " + request.name +
                             ": unknown request type")};
      }
    }
  }

  if (to_allocate > 0) {
    // Devices of allocated claims (assumed versions included) and of
    // in-flight allocations are taken; the set does not change during
    // Filter.
    const framework::ObjectLister<api::DeviceClass>& classes = listers_.DeviceClasses();
    dra::AllocatorFeatures allocator_features;
    allocator_features.all_subrequest_quirks = !features_.dra_all_subrequest_fixes;
    allocator_features.skip_unusable_pools = features_.dra_skip_unusable_pools;
    allocator_features.device_taints = features_.dra_device_taints;
    allocator_features.partitionable_devices = features_.dra_partitionable_devices;
    allocator_features.counter_slices_reach_every_node = !features_.dra_counter_slices_by_node_selection;
    allocator_features.consumable_capacity = features_.dra_consumable_capacity;
    allocator_features.capacity_known_when_off = features_.dra_incubating_knows_capacity;
    allocator_features.static_capacity_for_all = features_.dra_consumable_capacity_fixes;
    allocator_features.distinct_per_device = features_.dra_consumable_capacity_fixes;
    allocator_features.binding_conditions = features_.DraBindingConditions();
    s->allocator.emplace(allocator_features, tracker_->ListAllocatedState(features_.dra_consumable_capacity),
                         [&classes](const std::string& name) { return classes.Get("", name); },
                         CurrentSlicePools(), cel_cache_);
  }
  s->claims = std::move(infos);
  for (const ClaimInfo& info : s->claims) {
    if (!info.claim->status.allocation) s->unallocated.push_back(info.claim);
  }
  s->prioritized = HasPrioritizedRequest(s->claims);
  s->keep_allocations = snapshot_ == nullptr || s->prioritized;
  s->extended_claim = extended_index;
  return {{}, Status()};
}

std::shared_ptr<const dra::SlicePools> DynamicResources::CurrentSlicePools() {
  const framework::ObjectLister<api::ResourceSlice>& slices = listers_.ResourceSlices();
  const framework::ObjectLister<api::DeviceTaintRule>& rules = listers_.DeviceTaintRules();
  const std::optional<uint64_t> slices_revision = slices.Revision();
  const std::optional<uint64_t> rules_revision = features_.dra_device_taint_rules ? rules.Revision() : 0;
  dra::PoolCache::Revisions revisions;
  if (slices_revision && rules_revision) revisions = {*slices_revision, *rules_revision};
  return pool_cache_.Get(revisions, [&] {
    // The slices as kube's ResourceSlice tracker serves them: with the
    // DeviceTaintRules' taints on the devices they select.
    std::vector<std::shared_ptr<const api::ResourceSlice>> listed = slices.List();
    if (features_.dra_device_taint_rules) listed = tainted_slices_.Get(std::move(listed), rules.List());
    return listed;
  });
}

Status DynamicResources::Filter(framework::CycleState& state, const api::Pod& pod,
                                const framework::NodeInfo& node_info) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycle state: not found");
  if (s->claims.empty()) return Status();
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");

  NodeClaims on_node;
  if (Status st = ClaimsOnNode(*s, pod, node_info, on_node); !st.IsSuccess()) return st;
  if (on_node.nothing_to_allocate) return Status();
  std::optional<dra::NodeAllocation> allocation;
  if (s->allocator) {
    std::function<bool()> stop;
    if (filter_timeout_ > util::Duration::zero()) {
      const util::TimePoint deadline = clock_.Now() + filter_timeout_;
      stop = [this, deadline] { return clock_.Now() >= deadline; };
    }
    util::StatusOr<bool> fits = true;
    if (s->keep_allocations) {
      auto a = s->allocator->Allocate(*node, on_node.ToAllocate(*s), stop);
      if (a.ok() && a->has_value()) allocation = std::move(*a);
      fits = a.ok() ? util::StatusOr<bool>(allocation.has_value()) : a.status();
    } else {
      fits = s->allocator->Fits(*node, on_node.ToAllocate(*s), stop);
    }
    if (!fits.ok() && fits.status().code() == util::StatusCode::kDeadlineExceeded) {
      return Unresolvable(std::string(kErrTimedOut));
    }
    // No allocation on this node; other nodes may still serve the claims.
    if (!fits.ok() && fits.status().code() == util::StatusCode::kUnavailable) {
      return Unresolvable(fits.status().message());
    }
    if (!fits.ok()) {
      // A claim or class is unusable: an error aborts this attempt, as kube's.
      return Status::FromError(fits.status());
    }
    if (!*fits) return Unresolvable(std::string(kErrCannotAllocate));
  }

  if (!on_node.unavailable.empty()) {
    std::lock_guard<std::mutex> l(s->mu);
    s->unavailable_claims.insert(on_node.unavailable.begin(), on_node.unavailable.end());
    return Unresolvable(std::string(kErrNotAvailableOnNode));
  }
  if (s->allocator && (allocation || s->extended_claim)) {
    std::lock_guard<std::mutex> l(s->mu);
    if (allocation) s->node_allocations.insert_or_assign(node->metadata.name, std::move(*allocation));
    if (s->extended_claim) s->node_extended_claims[node->metadata.name] = std::move(on_node.extended);
  }
  return Status();
}

std::pair<framework::PostFilterResult, Status> DynamicResources::PostFilter(framework::CycleState& state,
                                                                            const api::Pod& pod,
                                                                            const framework::NodeToStatus&) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) {
    return {{}, Status::Error("reading \"" + std::string(kStateKey) + "\" from cycle state: not found")};
  }
  // kube 1.37 adds nothing to FailedScheduling when there is nothing to free.
  const bool quiet = features_.dynamic_resources_quiet_post_filter;
  if (s->claims.empty()) {
    return {{}, quiet ? Status(Code::kUnschedulable) : Status(Code::kUnschedulable, "no new claims to deallocate")};
  }
  std::set<size_t> unavailable;
  {
    std::lock_guard<std::mutex> l(s->mu);
    unavailable = s->unavailable_claims;
  }
  // A claim a previous attempt created for the pod's extended resources is
  // deleted rather than deallocated.
  const api::ResourceClaim* created_extended = nullptr;
  if (s->extended_claim && s->claims[*s->extended_claim].claim->metadata.name != dra::kSpecialClaimName) {
    created_extended = s->claims[*s->extended_claim].claim.get();
  }
  for (size_t index : unavailable) {
    if (s->extended_claim == index) {
      if (created_extended != nullptr) break;
      continue;
    }
    const api::ResourceClaim& claim = *s->claims[index].claim;
    const auto& reserved = claim.status.reserved_for;
    if (!(reserved.empty() || (reserved.size() == 1 && reserved[0].uid == pod.metadata.uid))) continue;
    if (claims_ == nullptr) return {{}, Status::Error("no API client for ResourceClaims")};
    api::ResourceClaim update = claim;
    update.status.reserved_for.clear();
    update.status.allocation.reset();
    update.status.devices = api::RawJson{};
    update.status.device_statuses.clear();
    KLOG_V(5, "Deallocation of ResourceClaim: pod {} resourceclaim {}", Ref(pod.metadata), Ref(claim.metadata));
    util::StatusOr<api::ResourceClaim> r = claims_->UpdateResourceClaimStatus(update);
    if (!r.ok()) return {{}, Status::FromError(r.status())};
    return {{}, Status(Code::kUnschedulable, "deallocation of ResourceClaim completed")};
  }
  if (created_extended != nullptr) {
    util::Status deleted = DeleteClaim(*created_extended);
    if (!deleted.ok()) return {{}, Status::FromError(deleted)};
    return {{}, Status(Code::kUnschedulable, "deletion of ResourceClaim completed")};
  }
  return {{}, quiet ? Status(Code::kUnschedulable) : Status(Code::kUnschedulable, "still not schedulable")};
}

void StateData::ReleaseSchedulingState(std::string_view node) {
  allocator.reset();
  std::lock_guard<std::mutex> l(mu);
  node_allocations.clear();
  std::erase_if(node_extended_claims, [&](const auto& entry) { return entry.first != node; });
}

Status DynamicResources::Reserve(framework::CycleState& state, const api::Pod&, std::string_view node_name) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycle state: not found");
  if (s->claims.empty()) return Status();
  Status reserved = ReserveAllocations(*s, node_name);
  if (reserved.IsSuccess()) s->ReleaseSchedulingState(node_name);
  return reserved;
}

Status DynamicResources::ReserveAllocations(StateData& s, std::string_view node_name) {
  size_t to_allocate = 0;
  for (const ClaimInfo& info : s.claims) {
    if (!info.claim->status.allocation) ++to_allocate;
  }
  // Allocated claims are reserved for the pod by PreBind; nothing to do now.
  if (to_allocate == 0 || !s.allocator) return Status();

  std::vector<api::AllocationResult> allocations;
  StateData::NodeExtendedClaim node_extended;
  {
    std::lock_guard<std::mutex> l(s.mu);
    auto it = s.node_allocations.find(node_name);
    if (it != s.node_allocations.end()) allocations = it->second.Build();
    auto ext = s.node_extended_claims.find(node_name);
    if (ext != s.node_extended_claims.end()) node_extended = ext->second;
  }
  // Only the extended resource claim, and the node serves every extended
  // resource itself: Filter allocated nothing.
  const bool only_extended = to_allocate == 1 && s.extended_claim &&
                             !s.claims[*s.extended_claim].claim->status.allocation;
  if (allocations.empty() && !s.keep_allocations && !(only_extended && node_extended.claim == nullptr)) {
    util::StatusOr<std::vector<api::AllocationResult>> again = AllocateAgain(s, node_name, node_extended.claim);
    if (!again.ok()) return Status::FromError(again.status());
    allocations = std::move(again).value();
  }
  if (allocations.empty()) {
    if (only_extended) return Status();
    return Status::Error("claim allocation not found for node");
  }
  if (allocations.size() != to_allocate) {
    return Status::Error("internal error, have " + std::to_string(allocations.size()) + " allocations, " +
                         std::to_string(to_allocate) + " claims to allocate, want " + std::to_string(to_allocate) +
                         " claims");
  }
  size_t next = 0;
  for (size_t i = 0; i < s.claims.size(); ++i) {
    ClaimInfo& info = s.claims[i];
    if (info.claim->status.allocation) continue;
    const api::AllocationResult& allocation = allocations[next++];
    const api::ResourceClaim* claim = info.claim.get();
    if (s.extended_claim == i) {
      // Filter gave the node no claim: nothing goes in flight. (Not
      // reached while the pod has claims of its own: Filter then always
      // makes one, if without requests, as kube's does.)
      if (node_extended.claim == nullptr) continue;
      claim = node_extended.claim.get();
    }
    info.allocation = allocation;
    // The claim as PreBind will write it: what the allocator of the next
    // cycles must treat as taken.
    auto allocated = std::make_shared<api::ResourceClaim>(*claim);
    if (!HasFinalizer(allocated->metadata)) allocated->metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
    allocated->status.allocation = info.allocation;
    const std::string uid = allocated->metadata.uid;
    tracker_->SignalClaimPendingAllocation(uid, std::move(allocated));
  }
  return Status();
}

util::StatusOr<std::vector<api::AllocationResult>> DynamicResources::AllocateAgain(
    const StateData& s, std::string_view node_name, const dra::ClaimPtr& node_extended_claim) const {
  util::StatusOr<const framework::NodeInfo*> node_info = snapshot_->NodeInfos().Get(node_name);
  if (!node_info.ok()) return node_info.status();
  if ((*node_info)->node() == nullptr) return util::NotFound("node not found");
  // What ClaimsOnNode gave Filter for a node it passed.
  auto allocation = s.allocator->Allocate(*(*node_info)->node(), s.ToAllocate(node_extended_claim));
  if (!allocation.ok()) return allocation.status();
  if (!allocation->has_value()) return std::vector<api::AllocationResult>{};
  return (*allocation)->Build();
}

void DynamicResources::Unreserve(framework::CycleState& state, const api::Pod& pod, std::string_view) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr || s->claims.empty()) return;
  for (size_t i = 0; i < s->NumUserClaims(); ++i) {
    const api::ResourceClaim& claim = *s->claims[i].claim;
    // An allocation still in flight is abandoned; the assumed copy goes too.
    if (tracker_->RemoveClaimPendingAllocation(claim.metadata.uid)) {
      tracker_->AssumedClaimRestore(claim.metadata.namespace_, claim.metadata.name);
    }
    if (claim.status.allocation && IsReservedForPod(pod, claim)) {
      // A patch removes just this pod, whatever else changed meanwhile.
      if (claims_ == nullptr) continue;
      util::StatusOr<api::ResourceClaim> r = claims_->RemoveResourceClaimReservation(
          claim.metadata.namespace_, claim.metadata.name, claim.metadata.uid, pod.metadata.uid);
      if (!r.ok()) {
        // The next attempt of the pod gets here again.
        KLOG_ERRORS(r.status().message(), "unreserve", {"resourceclaim", Ref(claim.metadata)});
      }
    }
  }
  UnreserveExtendedResourceClaim(*s, pod);
}

util::StatusOr<dra::ClaimPtr> DynamicResources::BindClaim(StateData& s, size_t index, const api::Pod& pod,
                                                          std::string_view node_name) {
  ClaimInfo& info = s.claims[index];
  const std::optional<api::AllocationResult>& allocation = info.allocation;
  const std::string uid = info.claim->metadata.uid;
  const bool is_extended = s.extended_claim == index;
  const StateData::NodeExtendedClaim* node_extended = nullptr;
  if (is_extended) {
    // The node serves the pod's extended resources itself.
    if (!allocation && info.claim->spec.devices.requests.empty()) return info.claim;
    std::lock_guard<std::mutex> l(s.mu);
    auto it = s.node_extended_claims.find(node_name);
    if (it != s.node_extended_claims.end()) node_extended = &it->second;  // stable: no Filter runs now
  }
  if (is_extended && info.claim->metadata.name == dra::kSpecialClaimName) {
    util::StatusOr<dra::ClaimPtr> created = [&]() -> util::StatusOr<dra::ClaimPtr> {
      if (claims_ == nullptr) return Failed("no API client for ResourceClaims");
      if (node_extended == nullptr || node_extended->claim == nullptr) {
        return Failed("extended resource claim not found for node " + std::string(node_name));
      }
      api::ResourceClaim claim = *node_extended->claim;
      // Set by the API server.
      claim.status.allocation.reset();
      claim.metadata.name.clear();
      claim.metadata.uid.clear();
      util::StatusOr<api::ResourceClaim> r = claims_->CreateResourceClaim(claim);
      if (dra::DraMetrics* m = dra::CurrentDraMetrics()) m->CountClaimCreate(r.ok());
      if (!r.ok()) {
        return util::Status(r.status().code(), "create claim for extended resources " + claim.metadata.namespace_ +
                                                   "/: " + r.status().message());
      }
      return dra::ClaimPtr(std::make_shared<const api::ResourceClaim>(std::move(r).value()));
    }();
    if (!created.ok()) {
      if (allocation) tracker_->RemoveClaimPendingAllocation(uid);
      return created.status();
    }
    KLOG_V(5, "created claim for extended resources: pod {} node {} resourceclaim {}", Ref(pod.metadata), node_name,
           Ref((*created)->metadata));
    // From now on the created claim is tracked (Unreserve deletes it).
    info.claim = *created;
  }
  const std::string ref = Ref(info.claim->metadata);

  util::StatusOr<dra::ClaimPtr> result = [&]() -> util::StatusOr<dra::ClaimPtr> {
    if (claims_ == nullptr) return Failed("no API client for ResourceClaims");
    api::ResourceClaim claim = *info.claim;
    util::Status last;
    for (int attempt = 0; attempt < kBindClaimAttempts; ++attempt) {
      if (attempt > 0) {
        // A conflict: start again from the stored claim.
        util::StatusOr<api::ResourceClaim> fresh =
            claims_->GetResourceClaim(claim.metadata.namespace_, claim.metadata.name);
        if (!fresh.ok()) {
          return util::Status(fresh.status().code(),
                              "get updated claim " + ref + " after conflict: " + fresh.status().message());
        }
        claim = std::move(fresh).value();
      }
      if (claim.metadata.deletion_timestamp) {
        return Failed("claim " + ref + " got deleted in the meantime");
      }
      if (allocation) {
        if (claim.status.allocation) {
          return Failed("claim " + ref + " got allocated elsewhere in the meantime");
        }
        if (!HasFinalizer(claim.metadata)) {
          claim.metadata.finalizers.emplace_back(kDeleteProtectionFinalizer);
          util::StatusOr<api::ResourceClaim> updated = claims_->UpdateResourceClaim(claim);
          if (!updated.ok()) {
            last = util::Status(updated.status().code(),
                                "add finalizer to claim " + ref + ": " + updated.status().message());
            if (updated.status().code() == util::StatusCode::kConflict) continue;
            return last;
          }
          claim = std::move(updated).value();
        }
        claim.status.allocation = allocation;
      }
      claim.status.reserved_for.push_back(
          api::ResourceClaimConsumerReference{"", "pods", pod.metadata.name, pod.metadata.uid});
      if (features_.DraBindingConditions()) {
        // The bindingTimeout counts from the first reservation.
        if (!claim.status.allocation) return Failed("claim " + ref + " got deallocated elsewhere in the meantime");
        if (!claim.status.allocation->allocation_timestamp) {
          claim.status.allocation->allocation_timestamp = clock_.WallNow();
        }
      }
      util::StatusOr<api::ResourceClaim> updated = claims_->UpdateResourceClaimStatus(claim);
      if (!updated.ok()) {
        last = util::Status(updated.status().code(),
                            std::string(allocation ? "add allocation and reservation to claim " : "add reservation to claim ") +
                                ref + ": " + updated.status().message());
        if (updated.status().code() == util::StatusCode::kConflict) continue;
        return last;
      }
      return dra::ClaimPtr(std::make_shared<const api::ResourceClaim>(std::move(updated).value()));
    }
    return last;
  }();

  if (allocation) {
    // The allocation is written or abandoned: no longer in flight. A
    // written claim is assumed first so that its devices stay taken until
    // the informer shows them.
    if (result.ok()) {
      if (is_extended) {
        // Created just now: the informer may not have it yet.
        WaitForExtendedClaimInAssumeCache(*result);
      } else {
        util::Status assumed = tracker_->AssumeClaimAfterAPICall(*result);
        if (!assumed.ok()) KLOG_V(5, "Claim not stored in assume cache: {}", assumed.message());
      }
    }
    tracker_->RemoveClaimPendingAllocation(uid);
  }
  if (result.ok() && is_extended) {
    if (node_extended == nullptr || node_extended->mappings.empty()) {
      return Failed("nil or empty request mappings, no update of pod " + Ref(pod.metadata) +
                    " ExtendedResourceClaimStatus");
    }
    api::PodExtendedResourceClaimStatus status{node_extended->mappings, (*result)->metadata.name};
    util::Status patched =
        claims_->PatchPodExtendedResourceClaimStatus(pod.metadata.namespace_, pod.metadata.name, status);
    if (!patched.ok()) {
      return util::Status(patched.code(), "update pod " + Ref(pod.metadata) +
                                              " ExtendedResourceClaimStatus: " + patched.message());
    }
  }
  return result;
}

Status DynamicResources::PreBindPreFlight(framework::CycleState& state, const api::Pod&, std::string_view) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycle state: not found");
  return s->claims.empty() ? Status(Code::kSkip) : Status();
}

Status DynamicResources::PreBind(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) {
  StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr) return Status::Error("reading \"" + std::string(kStateKey) + "\" from cycle state: not found");
  for (size_t i = 0; i < s->claims.size(); ++i) {
    if (IsReservedForPod(pod, *s->claims[i].claim)) continue;
    util::StatusOr<dra::ClaimPtr> written = BindClaim(*s, i, pod, node_name);
    if (!written.ok()) return Status::FromError(written.status());
    // Unreserve then sees the reservation it has to take back.
    s->claims[i].claim = std::move(written).value();
    KLOG_V(5, "reserved: pod {} node {} resourceclaim {}", Ref(pod.metadata), node_name, Ref(s->claims[i].claim->metadata));
  }
  if (!features_.DraBindingConditions() || assume_binding_conditions_met_) return Status();
  return WaitForBindingConditions(*s, pod, node_name, state.PreBindCancellation());
}

util::StatusOr<bool> DynamicResources::PodReadyForBinding(StateData& s) const {
  for (ClaimInfo& info : s.claims) {
    // An extended resource claim the node serves itself exists only here.
    if (info.claim->metadata.name == dra::kSpecialClaimName) continue;
    util::StatusOr<dra::ClaimPtr> fresh = tracker_->Get(info.claim->metadata.namespace_, info.claim->metadata.name);
    if (!fresh.ok()) return fresh.status();
    info.claim = *fresh;
    util::StatusOr<bool> ready = dra::CheckClaimBinding(*info.claim, binding_timeout_, clock_.WallNow());
    if (!ready.ok() || !*ready) return ready;
  }
  return true;
}

Status DynamicResources::WaitForBindingConditions(StateData& s, const api::Pod& pod, std::string_view node_name,
                                                  framework::Cancellation* cancellation) {
  const bool need_to_wait = std::any_of(s.claims.begin(), s.claims.end(),
                                        [](const ClaimInfo& info) { return dra::HasBindingConditions(*info.claim); });
  if (!need_to_wait) return Status();
  KLOG_V(5, "waiting for binding conditions for device on node {}: pod {}", node_name, Ref(pod.metadata));
  const util::TimePoint start = clock_.Now();
  util::Status waited = binding_waits_.PollUntil(clock_, kBindingConditionsPollPeriod, binding_timeout_,
                                                 /*immediate=*/true, [&] { return PodReadyForBinding(s); },
                                                 cancellation);
  const double seconds = util::Seconds(clock_.Since(start));
  std::string_view outcome = dra::kBindingOutcomeSuccess;
  if (waited.code() == util::StatusCode::kDeadlineExceeded) {
    outcome = dra::kBindingOutcomeTimeout;
    if (waited.message().rfind(dra::kErrDeviceBindingTimeout, 0) != 0) {
      waited = util::Status(waited.code(), std::string(dra::kErrDeviceBindingTimeout) + ": " + waited.message());
    }
  } else if (!waited.ok()) {
    outcome = waited.message().rfind(dra::kErrDeviceBindingFailed, 0) == 0 ? dra::kBindingOutcomeFailed
                                                                            : dra::kBindingOutcomeError;
  }
  dra::DraMetrics* metrics = dra::CurrentDraMetrics();
  std::vector<dra::BindingConditionsStatus> devices;
  for (const ClaimInfo& info : s.claims) {
    std::vector<dra::BindingConditionsStatus> of_claim = dra::ListBindingConditionsStatus(*info.claim);
    if (metrics != nullptr && info.claim->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r : info.claim->status.allocation->devices.results) {
        metrics->ObserveWait(profile_, r.driver, outcome, seconds);
      }
      for (const dra::BindingConditionsStatus& d : of_claim) metrics->CountAllocation(profile_, d.driver, outcome);
    }
    devices.insert(devices.end(), of_claim.begin(), of_claim.end());
  }
  KLOG_V(5, "binding conditions {}: pod {} node {} devices {}", outcome, Ref(pod.metadata), node_name,
         dra::FormatBindingConditionsStatus(devices, outcome));
  // An error makes the framework unreserve the pod and retry it; the next
  // attempt's Filter sees the failure or timeout and PostFilter frees the
  // claim.
  if (!waited.ok()) return Status::FromError(waited);
  return Status();
}

Status DynamicResources::ClaimsOnNode(const StateData& s, const api::Pod& pod, const framework::NodeInfo& node_info,
                                      NodeClaims& out) const {
  const api::Node& node = *node_info.node();
  if (s.extended_claim) {
    Status st = FilterExtendedResources(s, pod, node_info, out.extended);
    if (!st.IsSuccess()) return st;
    // Only extended resources, all the node's own: nothing to allocate.
    if (out.extended.claim == nullptr && s.NumUserClaims() == 0) {
      out.nothing_to_allocate = true;
      return Status();
    }
  }
  for (size_t i = 0; i < s.claims.size(); ++i) {
    const ClaimInfo& info = s.claims[i];
    if (info.available_on_nodes && !info.available_on_nodes->Match(node)) {
      KLOG_V(5, "allocation's node selector does not match: pod {} node {} resourceclaim {}", Ref(pod.metadata),
             node.metadata.name, Ref(info.claim->metadata));
      out.unavailable.push_back(i);
      continue;
    }
    // PostFilter frees it, so that the next attempt can pick other devices.
    if (info.binding_failed) out.unavailable.push_back(i);
  }
  if (out.extended.claim != nullptr) out.with_node_claim = s.ToAllocate(out.extended.claim);
  return Status();
}

util::StatusOr<std::vector<dra::RequestDeviceTally>> DynamicResources::TallyDevices(
    const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (node_info.node() == nullptr) return util::InvalidArgument("node not found");
  framework::CycleState state;
  Status st = PreFilter(state, pod, {}).second;
  if (st.IsSkip()) return std::vector<dra::RequestDeviceTally>{};
  if (!st.IsSuccess()) return util::Status(util::StatusCode::kUnavailable, st.Message());
  const StateData* s = state.Lookup<StateData>(Key());
  if (s == nullptr || !s->allocator) return std::vector<dra::RequestDeviceTally>{};
  NodeClaims on_node;
  st = ClaimsOnNode(*s, pod, node_info, on_node);
  if (!st.IsSuccess()) return util::Status(util::StatusCode::kUnavailable, st.Message());
  if (on_node.nothing_to_allocate || on_node.ToAllocate(*s).empty()) return std::vector<dra::RequestDeviceTally>{};
  util::StatusOr<std::vector<dra::RequestDeviceTally>> tallies =
      s->allocator->Tally(*node_info.node(), on_node.ToAllocate(*s));
  if (!tallies.ok() || on_node.extended.claim == nullptr) return tallies;
  // The extended resource claim has no name until PreBind creates it.
  const std::string unnamed = api::KeyOf(on_node.extended.claim->metadata);
  for (dra::RequestDeviceTally& t : *tallies) {
    if (t.claim == unnamed) t.claim = std::string(kExtendedResourcesClaim);
  }
  return tallies;
}

dra::ClaimPtr DynamicResources::PreFilterExtendedResources(const api::Pod& pod, StateData& s) {
  std::shared_ptr<const framework::ExtendedResourceClasses> classes = extended_classes_.Snapshot();
  if (classes->empty()) return nullptr;
  const api::ResourceList requests = api::PodRequests(pod);
  if (!dra::HasDeviceClassMappedExtendedResource(requests, *classes)) return nullptr;
  s.pod_scalar_resources = framework::Resource(requests).scalar_resources;
  s.extended_classes = classes;
  // A claim created by an earlier attempt whose binding failed: Filter
  // rejects it and PostFilter deletes it, so that the next attempt starts
  // afresh.
  if (dra::ClaimPtr found = dra::FindExtendedResourceClaim(pod, tracker_->List())) return found;
  std::string temporary_uid =
      "extended-resources-" + pod.metadata.uid + "-" + std::to_string(next_temporary_uid_.fetch_add(1));
  return std::make_shared<const api::ResourceClaim>(dra::NewExtendedResourceClaim(pod, std::move(temporary_uid)));
}

Status DynamicResources::FilterExtendedResources(const StateData& s, const api::Pod& pod,
                                                 const framework::NodeInfo& node_info,
                                                 StateData::NodeExtendedClaim& out) const {
  const api::ResourceClaim& claim = *s.claims[*s.extended_claim].claim;
  if (!claim.spec.devices.requests.empty()) {
    KLOG_V(5, "cannot schedule extended resource claim: pod {} node {} resourceclaim {}", Ref(pod.metadata),
           node_info.node()->metadata.name, Ref(claim.metadata));
    return Status(Code::kUnschedulableAndUnresolvable, "cannot schedule extended resource claim");
  }
  std::map<std::string, int64_t, std::less<>> extended;
  const auto& allocatable = node_info.allocatable().scalar_resources;
  for (const auto& [name, quantity] : s.pod_scalar_resources) {
    if (quantity == 0 || !framework::IsDraExtendedResourceName(name)) continue;
    auto it = allocatable.find(name);
    const int64_t node_has = it == allocatable.end() ? 0 : it->second;
    if (node_has == 0 && s.extended_classes->Lookup(name) != nullptr) {
      extended[name] = quantity;
    } else if (it == allocatable.end()) {
      // Neither the node's own nor served through DRA.
      return Status(Code::kUnschedulableAndUnresolvable, "cannot fit resource");
    }
  }
  if (s.NumUserClaims() == 0 && extended.empty()) return Status();
  if (claim.status.allocation) return Status();
  dra::ExtendedRequests made = dra::CreateRequestsAndMappings(pod, extended, *s.extended_classes);
  auto node_claim = std::make_shared<api::ResourceClaim>(claim);
  node_claim->spec.devices.requests = std::move(made.requests);
  out.claim = std::move(node_claim);
  out.mappings = std::move(made.mappings);
  return Status();
}

util::Status DynamicResources::DeleteClaim(api::ResourceClaim claim) {
  if (claims_ == nullptr) return Failed("no API client for ResourceClaims");
  const std::string ref = Ref(claim.metadata);
  util::Status last;
  bool updated = false;
  for (int attempt = 0; attempt < kBindClaimAttempts && !updated; ++attempt) {
    if (attempt > 0) {
      util::StatusOr<api::ResourceClaim> fresh =
          claims_->GetResourceClaim(claim.metadata.namespace_, claim.metadata.name);
      if (!fresh.ok()) {
        return util::Status(fresh.status().code(), "get resourceclaim " + ref + ": " + fresh.status().message());
      }
      claim = std::move(fresh).value();
    }
    // The finalizer goes first, so that the deletion is not held up.
    auto& f = claim.metadata.finalizers;
    f.erase(std::remove(f.begin(), f.end(), kDeleteProtectionFinalizer), f.end());
    util::StatusOr<api::ResourceClaim> r = claims_->UpdateResourceClaim(claim);
    if (r.ok()) {
      updated = true;
    } else {
      last = util::Status(r.status().code(), "update resourceclaim " + ref + ": " + r.status().message());
      if (r.status().code() != util::StatusCode::kConflict) return last;
    }
  }
  if (!updated) return last;
  KLOG_V(5, "Delete: resourceclaim {}", ref);
  util::Status deleted = claims_->DeleteResourceClaim(claim.metadata.namespace_, claim.metadata.name);
  if (!deleted.ok() && deleted.code() != util::StatusCode::kNotFound) return deleted;
  return util::Status();
}

void DynamicResources::UnreserveExtendedResourceClaim(StateData& s, const api::Pod& pod) {
  if (!s.extended_claim) return;
  const api::ResourceClaim& claim = *s.claims[*s.extended_claim].claim;
  if (tracker_->RemoveClaimPendingAllocation(s.initial_extended_uid)) {
    tracker_->AssumedClaimRestore(claim.metadata.namespace_, claim.metadata.name);
  }
  // Only in memory: nothing to delete.
  if (claim.metadata.name == dra::kSpecialClaimName) return;
  KLOG_V(5, "delete extended resource backed by DRA: resourceclaim {} pod {}", Ref(claim.metadata),
         Ref(pod.metadata));
  util::Status deleted = DeleteClaim(claim);
  if (!deleted.ok()) KLOG_ERRORS(deleted.message(), "delete", {"resourceclaim", Ref(claim.metadata)});
}

void DynamicResources::WaitForExtendedClaimInAssumeCache(const dra::ClaimPtr& claim) {
  // kube polls once a second; a shorter period binds sooner and changes
  // nothing else.
  constexpr util::Duration kPollPeriod = std::chrono::milliseconds(20);
  util::Status waited = binding_waits_.PollUntil(clock_, kPollPeriod, kAssumeExtendedClaimTimeout,
                                                 /*immediate=*/true, [&]() -> util::StatusOr<bool> {
                                                   util::Status assumed = tracker_->AssumeClaimAfterAPICall(claim);
                                                   if (assumed.ok()) return true;
                                                   if (assumed.code() != util::StatusCode::kNotFound) return assumed;
                                                   return false;
                                                 });
  if (waited.code() == util::StatusCode::kDeadlineExceeded) {
    // The claim exists; only the next cycles may not see it for a while.
    KLOG_V(5, "Claim not stored in assume cache after retries: resourceclaim {}", Ref(claim->metadata));
  } else if (!waited.ok()) {
    KLOG_V(5, "Claim not stored in assume cache: {}", waited.message());
  }
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> DynamicResources::EventsToRegister() const {
  // Without hints the node pre-check may swallow a Node/Add
  // (kubernetes#109437), so taint updates are registered too.
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeAllocatable;
  if (!features_.scheduler_queueing_hints) node_actions |= ActionType::kUpdateNodeTaint;
  namespace r = framework::resource;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back({framework::ClusterEvent(r::kNode, node_actions), nullptr});
  events.push_back({framework::ClusterEvent(r::kResourceClaim, ActionType::kAdd | ActionType::kUpdate),
                    [this](const api::Pod& pod, const framework::EventObject& o, const framework::EventObject& n) {
                      return IsSchedulableAfterClaimChange(pod, o, n);
                    }});
  events.push_back({framework::ClusterEvent(r::kPod, ActionType::kUpdatePodGeneratedResourceClaim),
                    [this](const api::Pod& pod, const framework::EventObject& o, const framework::EventObject& n) {
                      return IsSchedulableAfterPodChange(pod, o, n);
                    }});
  events.push_back({framework::ClusterEvent(r::kDeviceClass, ActionType::kAdd | ActionType::kUpdate), nullptr});
  events.push_back({framework::ClusterEvent(r::kResourceSlice, ActionType::kAdd | ActionType::kUpdate), nullptr});
  return events;
}

util::StatusOr<QueueingHint> DynamicResources::IsSchedulableAfterClaimChange(
    const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj) const {
  const api::ResourceClaim* modified = new_obj.As<api::ResourceClaim>();
  if (modified == nullptr) {
    return util::InvalidArgument("unexpected object in isSchedulableAfterClaimChange");
  }
  const api::ResourceClaim* original = old_obj.As<api::ResourceClaim>();
  // The pod still lacks a claim: this change cannot help yet.
  if (AwaitsGeneratedClaim(pod)) return QueueingHint::kQueueSkip;
  bool uses_claim = false;
  util::Status s = ForEachPodResourceClaim(*tracker_, pod, [&](const dra::ClaimPtr& c) {
    if (c->metadata.uid == modified->metadata.uid) uses_claim = true;
  });
  // The pod still lacks a claim: this change cannot help yet.
  if (!s.ok()) return QueueingHint::kQueueSkip;
  // A deallocation frees devices other pods may be waiting for.
  if (original != nullptr && original->status.allocation && !modified->status.allocation) {
    return QueueingHint::kQueue;
  }
  if (!uses_claim) return QueueingHint::kQueueSkip;
  if (original == nullptr) return QueueingHint::kQueue;
  // Changes outside the status (a finalizer, labels) do not matter.
  if (api::ToJson(*original)["status"] == api::ToJson(*modified)["status"]) return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

util::StatusOr<QueueingHint> DynamicResources::IsSchedulableAfterPodChange(
    const api::Pod& pod, const framework::EventObject&, const framework::EventObject& new_obj) const {
  const api::Pod* modified = new_obj.As<api::Pod>();
  if (modified == nullptr) return util::InvalidArgument("unexpected object in isSchedulableAfterClaimChange");
  if (pod.metadata.uid != modified->metadata.uid) return QueueingHint::kQueueSkip;
  util::Status s = ForEachPodResourceClaim(*tracker_, *modified, [](const dra::ClaimPtr&) {});
  if (!s.ok()) return QueueingHint::kQueueSkip;
  return QueueingHint::kQueue;
}

StateData* DynamicResources::ScoringState(framework::CycleState& state) const {
  StateData* s = state.Lookup<StateData>(Key());
  // Only firstAvailable requests score: without one every node scores 0.
  return s != nullptr && !s->claims.empty() && s->prioritized ? s : nullptr;
}

std::pair<int64_t, Status> DynamicResources::PrioritizedListScore(framework::CycleState& state,
                                                                  std::string_view node_name) const {
  StateData* s = ScoringState(state);
  if (s == nullptr) return {0, Status()};
  // The entry stays put once Filter wrote it (std::map nodes are stable, and
  // no Filter of this cycle runs during Score): read it after the lookup.
  const dra::NodeAllocation* node_allocation = nullptr;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    auto it = s->node_allocations.find(node_name);
    if (it == s->node_allocations.end()) return {0, Status()};
    node_allocation = &it->second;
  }
  const dra::NodeAllocation& allocations = *node_allocation;
  // kube's resourceapi.FirstAvailableDeviceRequestMaxSize.
  constexpr int64_t kFirstAvailableMaxSize = 8;
  int64_t score = 0;
  size_t unallocated = 0;
  for (const ClaimInfo& info : s->claims) {
    const api::ResourceClaim& claim = *info.claim;
    std::vector<std::string> requests;  // what the claim's devices serve
    if (claim.status.allocation) {
      for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
        requests.push_back(r.request);
      }
    } else if (unallocated < allocations.claims()) {
      requests = allocations.Requests(unallocated++);
    } else {
      return {0, Status::Error("number of allocations " + std::to_string(allocations.claims()) +
                               " is smaller than number of claims needing allocation")};
    }
    std::set<std::string_view> chosen;
    for (const std::string& request : requests) {
      if (request.find('/') != std::string::npos) chosen.insert(request);
    }
    for (const api::DeviceRequest& request : claim.spec.devices.requests) {
      if (request.exactly) continue;
      for (size_t i = 0; i < request.first_available.size(); ++i) {
        if (chosen.count(request.name + "/" + request.first_available[i].name)) {
          score += kFirstAvailableMaxSize - static_cast<int64_t>(i);
        }
      }
    }
  }
  return {score, Status()};
}

std::pair<int64_t, Status> ScoringDynamicResources::Score(framework::CycleState& state, const api::Pod& /*pod*/,
                                                          const framework::NodeInfo& node_info) {
  return PrioritizedListScore(state, node_info.node()->metadata.name);
}

Status ScoringDynamicResources::ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                                           std::span<const framework::NodeInfo* const> nodes,
                                           framework::NodeScore* out) {
  if (ScoringState(state) != nullptr) return ScorePlugin::ScoreNodes(state, pod, nodes, out);
  for (size_t i = 0; i < nodes.size(); ++i) out[i].score = 0;
  return Status();
}

Status ScoringDynamicResources::NormalizeScore(framework::CycleState& /*state*/, const api::Pod& /*pod*/,
                                               framework::NodeScoreList& scores) {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
  return Status();
}

util::StatusOr<std::unique_ptr<DynamicResources>> New(const config::PluginArgs& args, framework::Handle& handle,
                                                      bool assume_binding_conditions_met) {
  util::StatusOr<DynamicResourcesArgs> a = config::ArgsAs<DynamicResourcesArgs>(args);
  if (!a.ok()) return a.status();
  framework::ResourceClaimClient* claims = nullptr;
  if (auto* source = dynamic_cast<framework::ResourceClaimClientSource*>(handle.Client())) {
    claims = source->ResourceClaims();
  }
  const framework::SharedListers& listers = handle.Listers();
  const util::Duration timeout = a->filter_timeout.value_or(kDefaultFilterTimeout);
  const util::Duration binding_timeout = a->binding_timeout.value_or(kDefaultBindingTimeout);
  std::unique_ptr<DynamicResources> plugin;
  if (handle.Features().dynamic_resources_score) {
    plugin = std::make_unique<ScoringDynamicResources>(listers, dra::SharedClaimTracker(listers.ResourceClaims()),
                                                       claims, handle.Features(), handle.Clock(), timeout,
                                                       binding_timeout, std::string(handle.ProfileName()));
  } else {
    plugin = std::make_unique<DynamicResources>(listers, dra::SharedClaimTracker(listers.ResourceClaims()), claims,
                                                handle.Features(), handle.Clock(), timeout, binding_timeout,
                                                std::string(handle.ProfileName()));
  }
  if (assume_binding_conditions_met) plugin->AssumeBindingConditionsMet();
  plugin->UseSnapshot(&handle.SnapshotSharedLister());
  return plugin;
}

framework::Status DynamicResources::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>&) const {
  if (!pod.spec.resource_claims.empty()) {
    return framework::Status(framework::Code::kUnschedulable, "pods with dra resource claims are not signable");
  }
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::dynamicresources
