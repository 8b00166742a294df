// ClaimTracker: what the scheduler knows about ResourceClaims beyond the
// informer (kube's claimTracker behind SharedDRAManager):
//   - in-flight allocations: claims Reserve allocated whose status PreBind
//     has not written yet, by claim uid. Their devices count as taken, so
//     the next pod's Filter cannot pick them, and another pod sharing such a
//     claim waits ("is in the process of being allocated") instead of
//     racing the first pod's write;
//   - assumed claims: the claim PreBind wrote, served in place of the
//     informer's copy until the informer delivers that resourceVersion or a
//     newer one, so the next cycle sees the allocation even when the watch
//     is behind.
//
// PreBind assumes the written claim before it drops the in-flight entry,
// and the listings read the in-flight entries before the claims; so a claim
// moving from in flight to assumed is never missed (kube re-checks a
// revision counter for the same race).
//
// ListAllocatedState runs once per scheduling cycle. It keeps the tally of
// the claims' allocations between calls (AllocatedCounts) and updates it
// from the claims changed since, which the informer's store and the assume
// cache name (ChangedSince); only when they cannot (the first call, a
// relist, more changes than they keep) does it list every claim.
//
// Thread-safety: all methods are thread-safe (one mutex for the in-flight
// map, one for the tally, the assume cache has its own; no call holds two).
// Complexity: ListAllAllocatedDevices and List are linear in the claims;
// ListAllocatedState is O(changed claims and their devices), linear in the
// claims when it has to list them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/scheduler/plugins/volumebinding/assume_cache.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;

class ClaimTracker {
 public:
  // `claims` (the informer's lister) must outlive the tracker.
  explicit ClaimTracker(const framework::ObjectLister<api::ResourceClaim>& claims);

  // The claim (its assumed version while that stands); NotFound
  // "could not find ResourceClaim \"ns/name\"" (kube's text) when absent.
  util::StatusOr<ClaimPtr> Get(std::string_view ns, std::string_view name) const;
  // Every claim, assumed versions where they stand.
  std::vector<ClaimPtr> List() const;

  bool ClaimHasPendingAllocation(const std::string& uid) const;
  // Records `allocated` (the claim with its allocation) as in flight.
  void SignalClaimPendingAllocation(const std::string& uid, ClaimPtr allocated);
  // Drops the in-flight entry; true when there was one.
  bool RemoveClaimPendingAllocation(const std::string& uid);
  size_t PendingAllocations() const;

  // The devices of allocated claims and of in-flight allocations.
  std::set<DeviceId> ListAllAllocatedDevices() const;
  // The same with shares of multi-allocatable devices and the capacity they
  // consume (AllocatedCounts::Add); a claim both in flight and allocated in
  // the informer's copy (PreBind's write seen) counts once.
  AllocatedState ListAllocatedState(bool consumable_capacity) const;

  // Serves `claim` (as the API server returned it) until the informer
  // catches up; an error when the informer lacks the claim or has a newer
  // version already.
  util::Status AssumeClaimAfterAPICall(ClaimPtr claim);
  // Drops the assumed version of the claim, if any.
  void AssumedClaimRestore(std::string_view ns, std::string_view name);

 private:
  plugins::volumebinding::AssumeCache<api::ResourceClaim> cache_;
  using Revision = plugins::volumebinding::AssumeCache<api::ResourceClaim>::Revision;
  // The allocations of the claims as the last ListAllocatedState saw them,
  // for one value of its consumable_capacity.
  struct Tally {
    AllocatedCounts counts;
    // Every counted claim (allocated when read), by key.
    std::unordered_map<std::string, ClaimPtr> counted;
    // The counted object of each claim uid.
    std::unordered_map<std::string, const api::ResourceClaim*> by_uid;
    // Where the claims stood when the tally was brought to them (nothing
    // counted at revision zero: no claim had been seen).
    Revision seen;
    // The in-flight allocations the last view counted, each in place of
    // its listed claim's (null: none), until the next call undoes them. They
    // stay counted meanwhile, so that the tally changes only before a view
    // is taken, when the previous view is usually gone (AllocatedCounts then
    // copies nothing).
    std::vector<std::pair<ClaimPtr, const api::ResourceClaim*>> overlay;
  };
  // Brings `tally` to the claims now: re-reads the claims changed since it
  // last looked, or, when the cache cannot name them, lists every claim.
  void Update(bool consumable_capacity, Tally& tally) const;
  // Takes the last view's in-flight overlay out of `tally`'s counts.
  static void UndoOverlay(bool consumable_capacity, Tally& tally);
  // Counts `claim` (null: none) as the claim under `key`.
  static void Count(const std::string& key, const ClaimPtr& claim, bool consumable_capacity, Tally& tally);

  mutable std::mutex mu_;
  std::map<std::string, ClaimPtr, std::less<>> in_flight_;  // guarded by mu_
  mutable std::mutex tally_mu_;
  mutable std::unique_ptr<Tally> tallies_[2];  // by consumable_capacity; guarded by tally_mu_
};

// The tracker shared by every DynamicResources plugin reading `claims`
// (all profiles of one scheduler share their listers, and kube shares the
// tracker across profiles); created on first use, kept while a plugin
// holds it.
std::shared_ptr<ClaimTracker> SharedClaimTracker(const framework::ObjectLister<api::ResourceClaim>& claims);

}  // namespace ksched::scheduler::dra
