#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace ksched::scheduler::dra {

DeviceRef::DeviceRef(std::string_view driver, std::string_view pool, std::string_view device)
    : driver(driver), pool(pool), device(device) {
  const std::hash<std::string_view> h;
  hash = (h(driver) * 31 + h(pool)) * 31 + h(device);
}

namespace {

size_t ShardOf(const DeviceRef& id) { return id.hash % kHoldShards; }

// The slot of `id` in `shard`, or where it would go.
template <class Shard>
auto Seek(Shard& shard, const DeviceRef& id, bool* found) {
  auto it = std::lower_bound(shard.begin(), shard.end(), id.hash,
                             [](const HoldSlot& slot, size_t hash) { return slot.hash < hash; });
  for (; it != shard.end() && it->hash == id.hash; ++it) {
    if (DeviceIdEqual::Same(it->device->id, id)) {
      *found = true;
      return it;
    }
  }
  *found = false;
  return it;
}

}  // namespace

AllocatedState::AllocatedState(DeviceHolds holds) {
  auto shards = std::make_shared<HoldShards>(kHoldShards);
  for (auto& [id, hold] : holds) {
    const DeviceRef ref(id);
    std::shared_ptr<HoldShard>& shard = (*shards)[ShardOf(ref)];
    if (shard == nullptr) shard = std::make_shared<HoldShard>();
    bool found = false;
    auto at = Seek(*shard, ref, &found);
    shard->insert(at, HoldSlot{ref.hash, std::make_shared<HeldDevice>(HeldDevice{id, std::move(hold)})});
  }
  shards_ = std::move(shards);
}

namespace {

// Tally ids and removal stamps: unique in the process, never 0.
std::atomic<uint64_t> next_stamp{1};

// Owns a view's hold on a tally's table and counts it among the tally's
// live views until the view's last copy is gone. The release decrement
// pairs with the tally's acquire load (AllocatedCounts::BeginChange): what
// the view read happens before the tally writes in place.
struct ViewLease {
  ViewLease(std::shared_ptr<const HoldShards> shards, std::shared_ptr<std::atomic<uint64_t>> live)
      : shards(std::move(shards)), live(std::move(live)) {
    this->live->fetch_add(1, std::memory_order_relaxed);
  }
  ~ViewLease() {
    shards.reset();  // first: once the count drops, the tally may write in place
    live->fetch_sub(1, std::memory_order_release);
  }
  ViewLease(const ViewLease&) = delete;
  ViewLease& operator=(const ViewLease&) = delete;

  std::shared_ptr<const HoldShards> shards;
  const std::shared_ptr<std::atomic<uint64_t>> live;
};

}  // namespace

const DeviceHold* AllocatedState::Entry(const DeviceRef& id) const {
  if (shards_ == nullptr) return nullptr;
  const std::shared_ptr<HoldShard>& shard = (*shards_)[ShardOf(id)];
  if (shard == nullptr) return nullptr;
  bool found = false;
  auto it = Seek(std::as_const(*shard), id, &found);
  return found ? &it->device->hold : nullptr;
}

const DeviceHold* AllocatedState::Find(const DeviceRef& id) const {
  const DeviceHold* hold = Entry(id);
  return hold == nullptr || !hold->Held() ? nullptr : hold;
}

PoolMark AllocatedState::Mark(const DeviceRef& pool) const {
  if (tally_ == 0) return PoolMark{};
  const DeviceHold* entry = Entry(pool);
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

AllocatedCounts::AllocatedCounts()
    : shards_(std::make_shared<HoldShards>(kHoldShards)),
      live_views_(std::make_shared<std::atomic<uint64_t>>(0)),
      shard_generation_(kHoldShards, 0),
      id_(next_stamp++) {}

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

void AllocatedCounts::BeginChange() {
  if (!table_shared_) return;
  table_shared_ = false;
  // Views die on other threads; the acquire pairs with ViewLease's release.
  exclusive_ = live_views_->load(std::memory_order_acquire) == 0;
  if (exclusive_) return;
  shards_ = std::make_shared<HoldShards>(*shards_);
  ++table_generation_;
}

HoldShard& AllocatedCounts::WritableShard(const DeviceRef& id) {
  const size_t i = ShardOf(id);
  std::shared_ptr<HoldShard>& shard = (*shards_)[i];
  if (shard == nullptr) {
    shard = std::make_shared<HoldShard>();
  } else if (!exclusive_ && shard_generation_[i] != table_generation_) {
    shard = std::make_shared<HoldShard>(*shard);
  }
  shard_generation_[i] = table_generation_;
  return *shard;
}

template <class Change>
void AllocatedCounts::Update(const DeviceRef& id, Change&& change) {
  HoldShard& shard = WritableShard(id);
  bool found = false;
  auto it = Seek(shard, id, &found);
  if (found && exclusive_) {
    change(it->device->hold);
    if (it->device->hold.Empty()) shard.erase(it);
    return;
  }
  HeldDevice next = found ? *it->device : HeldDevice{id.Id(), DeviceHold{}};
  change(next.hold);
  if (next.hold.Empty()) {
    if (found) shard.erase(it);
    return;
  }
  auto device = std::make_shared<HeldDevice>(std::move(next));
  if (found) {
    it->device = std::move(device);
  } else {
    shard.insert(it, HoldSlot{id.hash, std::move(device)});
  }
}

void AllocatedCounts::Apply(const api::AllocationResult& allocation, bool consumable_capacity, int sign) {
  BeginChange();
  for (const api::DeviceRequestAllocationResult& result : allocation.devices.results) {
    if (result.admin_access.value_or(false)) continue;
    if (sign > 0) {
      ++additions_;
    } else {
      Update(DeviceRef(result.driver, result.pool, ""), [](DeviceHold& pool) { pool.removal_stamp = next_stamp++; });
    }
    Update(DeviceRef(result.driver, result.pool, result.device), [&](DeviceHold& hold) {
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
    });
  }
}

AllocatedState AllocatedCounts::State() {
  table_shared_ = true;
  auto lease = std::make_shared<ViewLease>(shards_, live_views_);
  // The view's table pointer shares the lease's ownership.
  return AllocatedState(std::shared_ptr<const HoldShards>(lease, lease->shards.get()), id_, additions_);
}

bool SameHolds(const api::AllocationResult& a, const api::AllocationResult& b, bool consumable_capacity) {
  const auto& x = a.devices.results;
  const auto& y = b.devices.results;
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [&](const auto& r, const auto& s) {
    return r.driver == s.driver && r.pool == s.pool && r.device == s.device &&
           r.admin_access.value_or(false) == s.admin_access.value_or(false) &&
           (!consumable_capacity || (r.share_id == s.share_id && r.consumed_capacity == s.consumed_capacity));
  });
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
