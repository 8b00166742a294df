#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"

#include <algorithm>
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

void ClaimTracker::Count(const std::string& key, const ClaimPtr& claim, bool consumable_capacity, Tally& tally) {
  const ClaimPtr& now = claim != nullptr && claim->status.allocation ? claim : nullptr;
  auto it = tally.counted.find(key);
  const api::ResourceClaim* before = it == tally.counted.end() ? nullptr : it->second.get();
  if (before == now.get()) return;
  // Another version of the claim (reservedFor, finalizers, device status)
  // that holds the same devices leaves the counts alone, and so the pools'
  // marks (a removal would end them).
  const bool same = before != nullptr && now != nullptr &&
                    SameHolds(*before->status.allocation, *now->status.allocation, consumable_capacity);
  if (before != nullptr) {
    if (!same) tally.counts.Remove(*before->status.allocation, consumable_capacity);
    if (auto by_uid = tally.by_uid.find(before->metadata.uid); by_uid != tally.by_uid.end() && by_uid->second == before) {
      tally.by_uid.erase(by_uid);
    }
    tally.counted.erase(it);
  }
  if (now != nullptr) {
    if (!same) tally.counts.Add(*now->status.allocation, consumable_capacity);
    tally.by_uid[now->metadata.uid] = now.get();
    tally.counted.emplace(key, now);
  }
}

void ClaimTracker::Update(bool consumable_capacity, Tally& tally) const {
  std::vector<std::string> keys;
  Revision now;
  if (cache_.ChangedSince(tally.seen, &keys, &now)) {
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const std::string& key : keys) {
      util::StatusOr<ClaimPtr> claim = cache_.GetByKey(key);
      Count(key, claim.ok() ? *claim : nullptr, consumable_capacity, tally);
    }
  } else {
    keys.clear();  // what the lister named before the assume cache could not tell
    std::unordered_map<std::string, ClaimPtr> listed;
    for (ClaimPtr& claim : cache_.List()) {
      if (claim->status.allocation) listed.emplace(api::KeyOf(claim->metadata), std::move(claim));
    }
    for (const auto& [key, claim] : tally.counted) {
      if (listed.count(key) == 0) keys.push_back(key);
    }
    for (const std::string& gone : keys) Count(gone, nullptr, consumable_capacity, tally);
    for (const auto& [key, claim] : listed) Count(key, claim, consumable_capacity, tally);
  }
  tally.seen = now;
}

AllocatedState ClaimTracker::ListAllocatedState(bool consumable_capacity) const {
  std::vector<std::pair<std::string, ClaimPtr>> in_flight;  // uid, claim
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [uid, claim] : in_flight_) {
      if (claim->status.allocation) in_flight.emplace_back(uid, claim);
    }
  }
  std::lock_guard<std::mutex> l(tally_mu_);
  std::unique_ptr<Tally>& tally = tallies_[consumable_capacity ? 1 : 0];
  if (tally == nullptr) tally = std::make_unique<Tally>();
  UndoOverlay(consumable_capacity, *tally);
  Update(consumable_capacity, *tally);
  // An in-flight allocation counts in place of its claim's listed copy
  // (PreBind's write may have reached the informer already).
  for (auto& [uid, claim] : in_flight) {
    const api::ResourceClaim* listed = nullptr;
    if (auto it = tally->by_uid.find(uid); it != tally->by_uid.end()) {
      // The informer has PreBind's write already: nothing to swap.
      if (SameHolds(*it->second->status.allocation, *claim->status.allocation, consumable_capacity)) continue;
      listed = it->second;
      tally->counts.Remove(*listed->status.allocation, consumable_capacity);
    }
    tally->counts.Add(*claim->status.allocation, consumable_capacity);
    tally->overlay.emplace_back(std::move(claim), listed);
  }
  return tally->counts.State();
}

void ClaimTracker::UndoOverlay(bool consumable_capacity, Tally& tally) {
  for (auto it = tally.overlay.rbegin(); it != tally.overlay.rend(); ++it) {
    tally.counts.Remove(*it->first->status.allocation, consumable_capacity);
    if (it->second != nullptr) tally.counts.Add(*it->second->status.allocation, consumable_capacity);
  }
  tally.overlay.clear();
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
