#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"

#include <iterator>
#include <utility>

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

void ClaimTracker::Update(const std::vector<ClaimPtr>& claims, bool consumable_capacity, Tally& tally) {
  const uint64_t call = ++tally.calls;
  size_t listed = 0;
  for (const ClaimPtr& claim : claims) {
    if (!claim->status.allocation) continue;
    ++listed;
    auto [it, added] = tally.counted.try_emplace(claim.get(), claim, call);
    if (!added) {
      it->second.second = call;
      continue;
    }
    tally.counts.Add(*claim->status.allocation, consumable_capacity);
    tally.by_uid[claim->metadata.uid] = claim.get();
  }
  // Every listed claim is counted; more counted ones means some are gone
  // (deleted, replaced by a newer object, or no longer allocated).
  if (tally.counted.size() == listed) return;
  for (auto it = tally.counted.begin(); it != tally.counted.end();) {
    if (it->second.second == call) {
      ++it;
      continue;
    }
    const api::ResourceClaim& gone = *it->second.first;
    tally.counts.Remove(*gone.status.allocation, consumable_capacity);
    if (auto by_uid = tally.by_uid.find(gone.metadata.uid); by_uid != tally.by_uid.end() && by_uid->second == &gone) {
      tally.by_uid.erase(by_uid);
    }
    it = tally.counted.erase(it);
  }
}

AllocatedState ClaimTracker::ListAllocatedState(bool consumable_capacity) const {
  std::vector<std::pair<std::string, ClaimPtr>> in_flight;  // uid, claim
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [uid, claim] : in_flight_) {
      if (claim->status.allocation) in_flight.emplace_back(uid, claim);
    }
  }
  const std::vector<ClaimPtr> claims = cache_.List();
  std::lock_guard<std::mutex> l(tally_mu_);
  std::unique_ptr<Tally>& tally = tallies_[consumable_capacity ? 1 : 0];
  if (tally == nullptr) tally = std::make_unique<Tally>();
  Update(claims, consumable_capacity, *tally);
  if (in_flight.empty()) return tally->counts.State();
  // An in-flight allocation counts in place of its claim's listed copy
  // (PreBind's write may have reached the informer already): swapped in
  // for this view, then swapped back.
  std::vector<const api::ResourceClaim*> listed;
  for (const auto& [uid, claim] : in_flight) {
    if (auto it = tally->by_uid.find(uid); it != tally->by_uid.end()) listed.push_back(it->second);
  }
  for (const api::ResourceClaim* claim : listed) tally->counts.Remove(*claim->status.allocation, consumable_capacity);
  for (const auto& [uid, claim] : in_flight) tally->counts.Add(*claim->status.allocation, consumable_capacity);
  AllocatedState state = tally->counts.State();
  for (const auto& [uid, claim] : in_flight) tally->counts.Remove(*claim->status.allocation, consumable_capacity);
  for (const api::ResourceClaim* claim : listed) tally->counts.Add(*claim->status.allocation, consumable_capacity);
  return state;
}

util::Status ClaimTracker::AssumeClaimAfterAPICall(ClaimPtr claim) { return cache_.AssumeWritten(std::move(claim)); }

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
