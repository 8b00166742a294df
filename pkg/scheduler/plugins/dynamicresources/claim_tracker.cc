#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"

#include <iterator>
#include <utility>

#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

namespace ksched::scheduler::dra {

ClaimTracker::ClaimTracker(const framework::ObjectLister<api::ResourceClaim>& claims)
    : cache_(claims, "ResourceClaim") {}

util::StatusOr<ClaimPtr> ClaimTracker::Get(std::string_view ns, std::string_view name) const {
  return cache_.Get(ns, name);
}

std::vector<ClaimPtr> ClaimTracker::List() const { return cache_.List(); }

bool ClaimTracker::ClaimHasPendingAllocation(const std::string& uid) const {
  std::lock_guard<std::mutex> l(mu_);
  return in_flight_.count(uid) > 0;
}

void ClaimTracker::SignalClaimPendingAllocation(const std::string& uid, ClaimPtr allocated) {
  std::lock_guard<std::mutex> l(mu_);
  in_flight_[uid] = std::move(allocated);
}

bool ClaimTracker::RemoveClaimPendingAllocation(const std::string& uid) {
  std::lock_guard<std::mutex> l(mu_);
  return in_flight_.erase(uid) > 0;
}

size_t ClaimTracker::PendingAllocations() const {
  std::lock_guard<std::mutex> l(mu_);
  return in_flight_.size();
}

std::set<DeviceId> ClaimTracker::ListAllAllocatedDevices() const {
  std::set<DeviceId> out;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [uid, claim] : in_flight_) {
      if (claim->status.allocation) AddAllocatedDevices(*claim->status.allocation, &out);
    }
  }
  for (const ClaimPtr& claim : cache_.List()) {
    if (claim->status.allocation) AddAllocatedDevices(*claim->status.allocation, &out);
  }
  return out;
}

AllocatedState ClaimTracker::ListAllocatedState(bool consumable_capacity) const {
  AllocatedState out;
  std::set<std::string> in_flight;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [uid, claim] : in_flight_) {
      if (!claim->status.allocation) continue;
      AddAllocatedState(*claim->status.allocation, consumable_capacity, &out);
      in_flight.insert(uid);
    }
  }
  for (const ClaimPtr& claim : cache_.List()) {
    if (!claim->status.allocation || in_flight.count(claim->metadata.uid) != 0) continue;
    AddAllocatedState(*claim->status.allocation, consumable_capacity, &out);
  }
  return out;
}

util::Status ClaimTracker::AssumeClaimAfterAPICall(ClaimPtr claim) { return cache_.Assume(std::move(claim)); }

void ClaimTracker::AssumedClaimRestore(std::string_view ns, std::string_view name) { cache_.Restore(ns, name); }

std::shared_ptr<ClaimTracker> SharedClaimTracker(const framework::ObjectLister<api::ResourceClaim>& claims) {
  static std::mutex mu;
  static auto* const trackers = new std::map<const void*, std::weak_ptr<ClaimTracker>>();
  std::lock_guard<std::mutex> l(mu);
  std::weak_ptr<ClaimTracker>& slot = (*trackers)[&claims];
  std::shared_ptr<ClaimTracker> tracker = slot.lock();
  if (tracker == nullptr) {
    tracker = std::make_shared<ClaimTracker>(claims);
    slot = tracker;
  }
  // Entries of trackers no plugin holds any more are dropped here, so the
  // map stays as small as the live schedulers.
  for (auto it = trackers->begin(); it != trackers->end();) {
    it = it->second.expired() ? trackers->erase(it) : std::next(it);
  }
  return tracker;
}

}  // namespace ksched::scheduler::dra
