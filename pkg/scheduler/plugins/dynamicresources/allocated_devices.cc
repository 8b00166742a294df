#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

#include <atomic>

namespace ksched::scheduler::dra {

DeviceRef::DeviceRef(std::string_view driver, std::string_view pool, std::string_view device)
    : driver(driver), pool(pool), device(device) {
  const std::hash<std::string_view> h;
  hash = (h(driver) * 31 + h(pool)) * 31 + h(device);
}

AllocatedState::AllocatedState(DeviceHolds holds) : base_(std::make_shared<const DeviceHolds>(std::move(holds))) {}

namespace {

// Tally ids and removal stamps: unique in the process, never 0.
std::atomic<uint64_t> next_stamp{1};

}  // namespace

const DeviceHold* AllocatedState::Entry(const DeviceRef& id) const {
  if (changes_ != nullptr && !changes_->empty()) {
    if (auto it = changes_->find(id); it != changes_->end()) return &it->second;
  }
  if (base_ != nullptr) {
    if (auto it = base_->find(id); it != base_->end()) return &it->second;
  }
  return nullptr;
}

const DeviceHold* AllocatedState::Find(const DeviceRef& id) const {
  const DeviceHold* hold = Entry(id);
  return hold == nullptr || !hold->Held() ? nullptr : hold;
}

PoolMark AllocatedState::Mark(std::string_view driver, std::string_view pool) const {
  if (tally_ == 0) return PoolMark{};
  const DeviceHold* entry = Entry(DeviceRef(driver, pool, ""));
  return PoolMark{tally_, entry == nullptr ? 0 : entry->removal_stamp, additions_};
}

size_t HeldPrefix::Get(const PoolMark& now) const {
  std::lock_guard<std::mutex> l(mu_);
  return now.Continues(mark_) ? count_ : 0;
}

void HeldPrefix::Set(const PoolMark& now, size_t count) const {
  if (now.tally == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  if (now.Continues(mark_) && count <= count_) return;  // what is known holds for `now` too
  mark_ = now;
  count_ = count;
}

AllocatedCounts::AllocatedCounts() : id_(next_stamp++) {}

bool AllocatedState::TakenWhole(const DeviceRef& id) const {
  const DeviceHold* hold = Find(id);
  return hold != nullptr && hold->whole > 0;
}

bool AllocatedState::HasShares(const DeviceRef& id) const {
  const DeviceHold* hold = Find(id);
  return hold != nullptr && hold->shares > 0;
}

const CapacityMap* AllocatedState::Consumed(const DeviceRef& id) const {
  const DeviceHold* hold = Find(id);
  return hold == nullptr || hold->consumed.empty() ? nullptr : &hold->consumed;
}

void AllocatedCounts::Add(const api::AllocationResult& allocation, bool consumable_capacity) {
  Apply(allocation, consumable_capacity, 1);
}

void AllocatedCounts::Remove(const api::AllocationResult& allocation, bool consumable_capacity) {
  Apply(allocation, consumable_capacity, -1);
}

DeviceHolds::iterator AllocatedCounts::Changed(const DeviceId& id) {
  auto it = changes_.find(id);
  if (it == changes_.end()) {
    auto in_base = base_->find(id);
    it = changes_.emplace(id, in_base == base_->end() ? DeviceHold{} : in_base->second).first;
  }
  return it;
}

void AllocatedCounts::Apply(const api::AllocationResult& allocation, bool consumable_capacity, int sign) {
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    if (sign > 0) {
      ++additions_;
    } else {
      Changed(DeviceId{result.driver, result.pool, ""})->second.removal_stamp = next_stamp++;
    }
    DeviceId id{result.driver, result.pool, result.device};
    auto it = Changed(id);
    DeviceHold& hold = it->second;
    if (consumable_capacity && result.share_id) {
      hold.shares += sign;
      for (const auto& [name, amount] : result.consumed_capacity) {
        if (sign > 0) {
          hold.consumed[name] += amount;
        } else {
          hold.consumed[name] -= amount;
        }
      }
      if (hold.shares == 0) hold.consumed.clear();
    } else {
      hold.whole += sign;
    }
    if (hold.Empty() && base_->count(id) == 0) changes_.erase(it);
  }
  frozen_changes_ = nullptr;
}

AllocatedState AllocatedCounts::State() {
  if (frozen_changes_ == nullptr) {
    // Folding costs a copy of every held device; folding once the changes
    // pass 2·sqrt(held) keeps both the fold and each view's copy of the
    // changes at O(sqrt(held)) per changed device.
    if (changes_.size() > 16 && changes_.size() * changes_.size() > 4 * base_->size()) {
      auto base = std::make_shared<DeviceHolds>(*base_);
      for (auto& [id, hold] : changes_) {
        if (hold.Empty()) {
          base->erase(id);
        } else {
          (*base)[id] = std::move(hold);
        }
      }
      base_ = std::move(base);
      changes_.clear();
    }
    frozen_changes_ = std::make_shared<const DeviceHolds>(changes_);
  }
  return AllocatedState(base_, frozen_changes_, id_, additions_);
}

void AddAllocatedDevices(const api::AllocationResult& allocation, std::set<DeviceId>* out) {
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    out->insert(DeviceId{result.driver, result.pool, result.device});
  }
}

std::set<DeviceId> AllocatedDevices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) {
  std::set<DeviceId> out;
  for (const auto& claim : claims) {
    if (claim->status.allocation) AddAllocatedDevices(*claim->status.allocation, &out);
  }
  return out;
}

}  // namespace ksched::scheduler::dra
