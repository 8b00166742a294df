#include "pkg/scheduler/plugins/dynamicresources/allocator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory_resource>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "pkg/api/device_taints.h"
#include "pkg/scheduler/plugins/dynamicresources/pools.h"

namespace ksched::scheduler::dra {

namespace {

const std::vector<api::DeviceToleration> kNoTolerations;

struct Candidate {
  DeviceRef id;  // names owned by `slice`
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  const Pool* pool = nullptr;
  const SlicePtr* owner = nullptr;  // the slice object, for CelCache's verdicts
};

// Counter values per counter set, per counter.
using CounterTotals = std::map<std::string, std::map<std::string, api::Quantity>>;

// The counters of a pool that allocated devices have not consumed (kube's
// availableCounters; negative where they over-consume).
CounterTotals AvailableCounters(const Pool& pool, const AllocatedState& allocated) {
  CounterTotals available;
  for (const auto& [name, set] : pool.counter_sets) {
    for (const auto& [counter, value] : set->counters) available[name][counter] = value.value;
  }
  for (const std::vector<SlicePtr>* slices : {&pool.slices, &pool.slices_elsewhere}) {
    for (const SlicePtr& slice : *slices) {
      for (const api::Device& device : slice->spec.devices) {
        if (device.consumes_counters.empty()) continue;
        if (!allocated.Holds(DeviceRef(pool.driver, pool.name, device.name))) continue;
        for (const api::DeviceCounterConsumption& consumption : device.consumes_counters) {
          auto set = available.find(consumption.counter_set);
          if (set == available.end()) continue;
          for (const auto& [counter, value] : consumption.counters) {
            if (auto it = set->second.find(counter); it != set->second.end()) it->second -= value.value;
          }
        }
      }
    }
  }
  return available;
}

// How a search step ended: every claim from there on allocated, no
// allocation, or no allocation because some claim would get more than
// kAllocationResultsMaxSize devices (kube backtracks further on that).
enum class Step { kFailed, kDone, kTooMany };

// Where the search for a request's next device starts: after the device
// its previous one took (kube's deviceLocation), so a request takes
// devices in slice order and a shared device at most once.
struct Location {
  size_t pool = 0;
  size_t slice = 0;
  size_t device = 0;
};

// The place of pool `pi`'s `n`-th device in search order (its slices, then
// each slice's devices); past its last slice when it has no more devices.
Location DeviceAt(const Pool& pool, size_t pi, size_t n) {
  size_t si = 0;
  while (si < pool.slices.size() && n >= pool.slices[si]->spec.devices.size()) {
    n -= pool.slices[si]->spec.devices.size();
    ++si;
  }
  return Location{pi, si, n};
}

struct RequestKey {
  size_t claim = 0;
  size_t request = 0;
  size_t sub = 0;
  auto operator<=>(const RequestKey&) const = default;
};

struct MatchKey {
  const api::Device* device = nullptr;
  RequestKey request;
  bool operator==(const MatchKey&) const = default;
};
struct MatchKeyHash {
  size_t operator()(const MatchKey& k) const {
    const std::hash<size_t> h;
    return ((h(reinterpret_cast<size_t>(k.device)) * 31 + k.request.claim) * 31 + k.request.request) * 31 +
           k.request.sub;
  }
};

// Per-device state of a search, looked up by a candidate's DeviceRef.
template <typename T>
using DeviceMap = std::unordered_map<DeviceId, T, DeviceIdHash, DeviceIdEqual>;

// The entry for `id`, added when missing (operator[] cannot take a
// DeviceRef before C++26).
template <typename T>
T& Entry(DeviceMap<T>& map, const DeviceRef& id) {
  auto it = map.find(id);
  if (it == map.end()) it = map.emplace(id.Id(), T{}).first;
  return it->second;
}

// A request's (or subrequest's) part of one node's search.
struct RequestData {
  using allocator_type = std::pmr::polymorphic_allocator<std::byte>;
  explicit RequestData(const allocator_type& arena) : all_devices(arena) {}
  RequestData(RequestData&& other, const allocator_type& arena)
      : prepared(other.prepared),
        num_devices(other.num_devices),
        all_devices(std::move(other.all_devices), arena),
        selected_sub(other.selected_sub) {}

  const PreparedRequest* prepared = nullptr;  // owned by the allocator's ClaimRequestTable
  size_t num_devices = 0;
  std::pmr::vector<Candidate> all_devices;  // All mode: the devices to take
  size_t selected_sub = 0;                  // on the sub-0 entry: the subrequest that won

  const RequestView& request() const { return prepared->request; }
  const std::optional<std::string_view>& parent() const { return prepared->parent; }
};

// A search's requests, flat: claim by claim, the entries of each one's
// ClaimRequests.
class SearchRequests {
 public:
  SearchRequests(ClaimRequestTable& table, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                 std::pmr::memory_resource* arena)
      : claims_(arena), base_(arena), data_(arena) {
    claims_.reserve(claims.size());
    base_.reserve(claims.size());
    size_t total = 0;
    for (const auto& claim : claims) {
      claims_.push_back(table.Get(claim));
      base_.push_back(total);
      total += claims_.back()->entries.size();
    }
    data_.resize(total);
  }
  const ClaimRequests& Claim(size_t claim) const { return *claims_[claim]; }
  RequestData& operator[](const RequestKey& key) { return data_[Index(key)]; }
  const RequestData& operator[](const RequestKey& key) const { return data_[Index(key)]; }
  // Whether `key.sub` names one of the request's entries.
  bool Has(const RequestKey& key) const { return key.sub < claims_[key.claim]->Entries(key.request); }

 private:
  size_t Index(const RequestKey& key) const { return base_[key.claim] + claims_[key.claim]->first[key.request] + key.sub; }

  std::pmr::vector<const ClaimRequests*> claims_;  // owned by the table
  std::pmr::vector<size_t> base_;                  // per claim, its first entry in data_
  std::pmr::vector<RequestData> data_;
};

struct DeviceResult {
  std::string_view request;  // views into the claim, as RequestView's
  std::optional<std::string_view> parent;
  DeviceRef id{"", "", "", 0};  // names owned by the pool and `slice`
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
  std::optional<bool> admin_access;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;  // the request's
  bool multi = false;             // a share of a multi-allocatable device
  bool counters_charged = false;  // its counters were reserved for it
  CapacityMap consumed;           // multi: what the share consumes

  std::string RequestName() const {
    return parent ? std::string(*parent) + "/" + std::string(request) : std::string(request);
  }
};

// The attribute `name` ("domain/id") of a device of `driver`: the fully
// qualified key, else the bare id when the domain is the driver's.
const api::DeviceAttributeValue* LookupAttribute(const api::Device& device, std::string_view driver,
                                                 const std::string& name) {
  if (auto it = device.attributes.find(name); it != device.attributes.end()) return &it->second;
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.substr(0, slash) != driver) return nullptr;
  if (auto it = device.attributes.find(name.substr(slash + 1)); it != device.attributes.end()) return &it->second;
  return nullptr;
}

bool SameValue(const api::DeviceAttributeValue& a, const api::DeviceAttributeValue& first) {
  if (a.string_value) return first.string_value && *a.string_value == *first.string_value;
  if (a.int_value) return first.int_value && *a.int_value == *first.int_value;
  if (a.bool_value) return first.bool_value && *a.bool_value == *first.bool_value;
  // Versions are minimal semver: equal values are equal strings.
  if (a.version_value) return first.version_value && *a.version_value == *first.version_value;
  return false;  // no known value kind
}

// The values' kinds match and so do the values (distinctAttribute's
// duplicate test).
bool SameKindAndValue(const api::DeviceAttributeValue& a, const api::DeviceAttributeValue& b) {
  if (a.string_value) return b.string_value && *a.string_value == *b.string_value;
  if (a.int_value) return b.int_value && *a.int_value == *b.int_value;
  if (a.bool_value) return b.bool_value && *a.bool_value == *b.bool_value;
  if (a.version_value) return b.version_value && *a.version_value == *b.version_value;
  return true;  // no known value kind: never distinct
}

// matchAttribute: all devices of the named requests share one value of the
// attribute. distinctAttribute: they all have it, with pairwise different
// values.
class MatchAttributeConstraint {
 public:
  explicit MatchAttributeConstraint(const ConstraintSpec& spec) : spec_(&spec) {}

  bool Add(std::string_view request, const std::optional<std::string_view>& sub, const Candidate& c) {
    if (!Applies(request, sub)) return true;
    const api::DeviceAttributeValue* value = LookupAttribute(*c.device, c.id.driver, spec_->attribute);
    if (value == nullptr) return false;
    if (spec_->distinct && spec_->per_request) {
      if (count_ > 0) {
        for (const auto& [name, seen] : by_request_) {
          if (SameKindAndValue(*value, *seen)) return false;
        }
      }
      by_request_[std::string(request)] = value;
      ++count_;
      return true;
    }
    if (spec_->distinct) {
      for (const api::DeviceAttributeValue* seen : distinct_values_) {
        if (SameKindAndValue(*value, *seen)) return false;
      }
      distinct_values_.push_back(value);
      return true;
    }
    if (count_ == 0) {
      first_ = value;
      count_ = 1;
      return true;
    }
    if (!SameValue(*value, *first_)) return false;
    ++count_;
    return true;
  }

  void Remove(std::string_view request, const std::optional<std::string_view>& sub) {
    if (!Applies(request, sub)) return;
    if (spec_->distinct && spec_->per_request) {
      if (auto it = by_request_.find(request); it != by_request_.end()) by_request_.erase(it);
      --count_;
    } else if (spec_->distinct) {
      distinct_values_.pop_back();
    } else {
      --count_;
    }
  }

 private:
  bool Applies(std::string_view request, const std::optional<std::string_view>& sub) const {
    const std::set<std::string, std::less<>>& requests = spec_->requests;
    if (requests.empty()) return true;
    if (requests.count(request) != 0) return true;
    return sub && requests.count(std::string(request) + "/" + std::string(*sub)) != 0;
  }

  const ConstraintSpec* spec_;  // owned by the search's ClaimRequests
  // spec_->per_request: base request -> value
  std::map<std::string, const api::DeviceAttributeValue*, std::less<>> by_request_;
  const api::DeviceAttributeValue* first_ = nullptr;
  int count_ = 0;
  std::vector<const api::DeviceAttributeValue*> distinct_values_;
};

std::string ClaimRef(const api::ResourceClaim& claim) { return api::KeyOf(claim.metadata); }

}  // namespace

// What a search that found an allocation hands on (NodeAllocation::Build
// reads it); the search's results point into its claims and pools.
struct NodeAllocation::State {
  struct Claim {
    const ClaimRequests* requests = nullptr;
    std::vector<const PreparedRequest*> served;  // per request: its entry (the subrequest) that won
    std::vector<DeviceResult> results;
  };
  AllocatorFeatures features;
  ShareIdSource share_ids;
  std::string node_name;
  Pools pools;  // owns the slices the results point into
  // Owns the claims and classes the results point into.
  std::shared_ptr<const ClaimRequestTable> table;
  std::vector<Claim> claims;
};

namespace {

// One Allocate call's search state (kube's `allocator`).
class Search {
 public:
  // The search's own state lives in `arena`, which must outlive it.
  Search(const AllocatorFeatures& features, const AllocatedState& allocated, const ShareIdSource& share_ids,
         CelCache& cel_cache, const std::shared_ptr<ClaimRequestTable>& table, const api::Node& node,
         const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims, Pools pools,
         const std::function<bool()>& stop, std::pmr::memory_resource* arena)
      : features_(features),
        allocated_(allocated),
        share_ids_(share_ids),
        cel_cache_(cel_cache),
        table_(table),
        node_(node),
        claims_(claims),
        pools_(std::move(pools)),
        stop_(stop),
        requests_(*table, claims, arena),
        constraints_(claims.size(), arena),
        matches_(arena),
        allocating_(arena),
        results_(claims.size(), arena) {}

  // Whether there is an allocation; Found() hands it on.
  util::StatusOr<bool> Find();
  NodeAllocation Found();
  util::StatusOr<std::vector<RequestDeviceTally>> Tally();
  util::StatusOr<RequestDeviceTally> TallyRequest(const RequestKey& key, const RequestData& data);

 private:
  // Why `c` cannot serve the request, checked alone (Allocator::Tally); ""
  // when it can.
  util::StatusOr<std::string> WhyNotUsable(const RequestKey& key, const RequestData& data, const Candidate& c);
  util::Status Prepare();
  // An All request's devices on this node; `key` names the claim and is
  // the key their selection is remembered under.
  util::Status SelectAll(RequestData& data, const RequestKey& key);
  // "claim <ns/name>, request <request><what>".
  util::Status RequestError(size_t claim, std::string_view request, const std::string& what) const;
  // Searches devices for the claims from r on.
  util::StatusOr<Step> AllocateOne(RequestKey r, size_t device_index, bool allocating_sub, Location start = {});
  // Consumable capacity: whether the request has room on `c` next to the
  // allocated claims' and this search's shares.
  util::StatusOr<bool> CapacityFitsNow(const RequestData& data, const Candidate& c) const;
  // A share of `c` is held by an allocated claim or this search (its
  // counters are charged already).
  bool DeviceCapacityInUse(const DeviceRef& id) const;
  util::StatusOr<bool> IsSelectable(const RequestKey& key, const RequestData& data, const Candidate& c);
  util::StatusOr<bool> SelectorsMatch(const RequestKey& key, const Candidate& c, const api::DeviceClass* device_class,
                                      const std::vector<CelCache::Compiled>& programs);
  // Takes `c` for the request at `key` if it is free and fits the claim's
  // constraints; `must` turns a constraint failure into an error (All mode).
  util::StatusOr<bool> AllocateDevice(const RequestKey& key, const Candidate& c, bool must);
  void Deallocate(const RequestKey& key, const Candidate& c, size_t previous_results);
  bool InUse(const Candidate& c) const { return allocated_.TakenWhole(c.id) || Allocating(c); }
  // This search has picked the device (for any request).
  bool Allocating(const Candidate& c) const;
  // Adds what `c` consumes to its pool's counters; false (and nothing
  // added) when some counter of the pool would then be over-consumed.
  bool ReserveCounters(const Candidate& c);
  void ReleaseCounters(const Candidate& c);
  // Whether the caller asked to give up: asked at the first device
  // considered and every kStopCheckEvery after it (a clock read is not free).
  bool Stopped() { return stop_ && stop_checks_++ % kStopCheckEvery == 0 && stop_(); }
  static constexpr size_t kStopCheckEvery = 64;
  static util::Status Aborted() {
    return util::Status(util::StatusCode::kDeadlineExceeded, "filter operation aborted");
  }
  bool AllocatingForClaim(const Candidate& c, size_t claim) const;

  const AllocatorFeatures& features_;
  const AllocatedState& allocated_;
  const ShareIdSource& share_ids_;
  CelCache& cel_cache_;
  const std::shared_ptr<ClaimRequestTable>& table_;
  const api::Node& node_;
  const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims_;
  Pools pools_;  // never null
  const std::function<bool()>& stop_;
  size_t stop_checks_ = 0;
  SearchRequests requests_;
  std::pmr::vector<std::pmr::vector<MatchAttributeConstraint>> constraints_;
  // Selector verdicts per device and request while Prepare selects All
  // requests' devices (kube keys them by device id; a device object is one
  // id here, as invalid pools, the only place ids repeat, are never
  // searched). They decide kube 1.34's verdicts for a second All
  // subrequest (all_subrequest_quirks); the search itself asks CelCache,
  // which remembers verdicts across cycles, as kube's starts without them.
  std::pmr::unordered_map<MatchKey, bool, MatchKeyHash> matches_;
  bool remember_matches_ = true;
  // The devices picked whole so far and the claim each was picked for, by
  // device object (one per id, as above); a search picks few devices.
  std::pmr::vector<std::pair<const api::Device*, size_t>> allocating_;
  // Shares of multi-allocatable devices picked so far, and what they
  // consume (kube's allocatingCapacity).
  DeviceMap<int> allocating_shares_;
  DeviceMap<CapacityMap> allocating_capacity_;
  std::pmr::vector<std::pmr::vector<DeviceResult>> results_;
  // Per pool: counters left by allocated devices (computed when first
  // needed) and counters this search's devices consume.
  std::map<const Pool*, CounterTotals> available_counters_;
  std::map<const Pool*, CounterTotals> consumed_counters_;
};

util::Status Search::RequestError(size_t claim, std::string_view request, const std::string& what) const {
  return util::InvalidArgument("claim " + ClaimRef(*claims_[claim]) + ", request " + std::string(request) + what);
}

util::Status Search::SelectAll(RequestData& data, const RequestKey& key) {
  const RequestView& request = data.request();
  auto invalid = [&](const std::string& what) { return RequestError(key.claim, request.name, what); };
  for (const Pool& pool : *pools_) {
    if (pool.incomplete) {
      return invalid(": asks for all devices, but resource pool " + pool.Id() + " is currently being updated");
    }
    if (pool.invalid) {
      return invalid(": asks for all devices, but resource pool " + pool.Id() + " is currently invalid");
    }
    for (const auto& slice : pool.slices) {
      for (const api::Device& device : slice->spec.devices) {
        Candidate c{DeviceRef(slice->spec.driver, slice->spec.pool.name, device.name), &device, slice.get(), &pool,
                    &slice};
        util::StatusOr<bool> selectable = IsSelectable(key, data, c);
        if (!selectable.ok()) return selectable.status();
        if (!*selectable) continue;
        if (features_.consumable_capacity) {
          // kube 1.37 looks at the whole capacity here, so a device whose
          // capacity is taken stays in and fails the request; 1.36 at
          // what is left.
          util::StatusOr<bool> fits = features_.static_capacity_for_all
                                          ? CapacityFits(request.capacity, device, nullptr, nullptr, true,
                                                         pool.CapacityValuesOf(device))
                                          : CapacityFitsNow(data, c);
          if (!fits.ok()) {
            if (!features_.static_capacity_for_all) continue;
            return invalid(": checking capacity for device " + device.name + ": " + fits.status().message());
          }
          if (!*fits) continue;
        }
        data.all_devices.push_back(c);
      }
    }
  }
  data.num_devices = data.all_devices.size();
  return util::Status::Ok();
}

util::Status Search::Prepare() {
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const ClaimRequests& prepared = requests_.Claim(ci);
    size_t min_devices = 0;
    for (size_t ri = 0; ri + 1 < prepared.first.size(); ++ri) {
      size_t min_request = std::numeric_limits<size_t>::max();
      for (size_t si = 0; si < prepared.Entries(ri); ++si) {
        const RequestKey key{ci, ri, si};
        RequestData& data = requests_[key];
        data.prepared = &prepared.entries[prepared.first[ri] + si];
        if (!data.prepared->error.ok()) return data.prepared->error;
        if (data.prepared->all) {
          // kube v1.34 selects an All subrequest's devices under its
          // predecessor's cache key; the cache is dropped before the
          // search, so only the second subrequest, keyed as the first,
          // is affected: when both are All it takes the first's devices.
          const bool quirk = features_.all_subrequest_quirks && si > 0;
          if (util::Status st = SelectAll(data, RequestKey{ci, ri, quirk ? si - 1 : si}); !st.ok()) return st;
        } else {
          data.num_devices = static_cast<size_t>(data.request().count);
        }
        min_request = std::min(min_request, data.num_devices);
      }
      min_devices += min_request;
    }
    if (min_devices > kAllocationResultsMaxSize) {
      return util::InvalidArgument("claim " + ClaimRef(*claims_[ci]) + ": number of requested devices " +
                                   std::to_string(min_devices) + " exceeds the claim limit of " +
                                   std::to_string(kAllocationResultsMaxSize));
    }
    if (!prepared.constraint_error.ok()) return prepared.constraint_error;
    for (const ConstraintSpec& spec : prepared.constraints) constraints_[ci].emplace_back(spec);
  }
  remember_matches_ = false;
  matches_.clear();
  return util::Status::Ok();
}

util::StatusOr<bool> Search::SelectorsMatch(const RequestKey& key, const Candidate& c,
                                            const api::DeviceClass* device_class,
                                            const std::vector<CelCache::Compiled>& programs) {
  const auto owner = [&] {
    return device_class != nullptr ? "class " + device_class->metadata.name : "claim " + ClaimRef(*claims_[key.claim]);
  };
  // kube 1.35's allocator does not hand allowMultipleAllocations to CEL.
  const bool hide_multiple = !features_.consumable_capacity && !features_.capacity_known_when_off;
  std::optional<cel::Device> device;  // built once, for the first selector evaluated
  for (size_t i = 0; i < programs.size(); ++i) {
    const CelCache::Compiled& program = programs[i];
    if (program == nullptr) {
      return util::InvalidArgument(owner() + ": selector #" + std::to_string(i) +
                                   ": CEL expression empty (unsupported selector type?)");
    }
    if (!program->ok()) {
      return util::InvalidArgument(owner() + ": selector #" + std::to_string(i) +
                                   ": CEL compile error: " + program->status().message());
    }
    util::StatusOr<bool> matches =
        cel_cache_.Evaluate(program, c.owner, c.slice->spec.driver, *c.device, hide_multiple, device);
    if (!matches.ok()) {
      return util::InvalidArgument(owner() + ": selector #" + std::to_string(i) +
                                   ": CEL runtime error: " + matches.status().message());
    }
    if (!*matches) return false;
  }
  return true;
}

util::StatusOr<bool> Search::IsSelectable(const RequestKey& key, const RequestData& data, const Candidate& c) {
  // Without the feature such a device is not allocatable at all.
  if (!features_.binding_conditions && !c.device->binding_conditions.empty()) return false;
  const MatchKey cache_key{c.device, key};
  if (remember_matches_) {
    if (auto it = matches_.find(cache_key); it != matches_.end()) return it->second;
  }
  const PreparedRequest& prepared = *data.prepared;
  util::StatusOr<bool> match = SelectorsMatch(key, c, prepared.device_class.get(), prepared.class_programs);
  if (!match.ok()) return match;
  if (*match) {
    match = SelectorsMatch(key, c, nullptr, prepared.request_programs);
    if (!match.ok()) return match;
  }
  if (*match && c.slice->spec.per_device_node_selection.value_or(false)) {
    match = DeviceReachesNode(*c.device, node_);
    if (!match.ok()) return match;
  }
  if (remember_matches_) matches_[cache_key] = *match;
  return match;
}

util::StatusOr<bool> Search::CapacityFitsNow(const RequestData& data, const Candidate& c) const {
  const bool nothing_requested = data.request().capacity == nullptr || data.request().capacity->requests.empty();
  // CapacityFits' answer for a device without capacity, told without lookups.
  if (c.device->capacity.empty()) return nothing_requested;
  const CapacityMap* allocated = allocated_.Consumed(c.id);
  const CapacityMap* allocating = nullptr;
  if (!allocating_capacity_.empty()) {
    if (auto it = allocating_capacity_.find(c.id); it != allocating_capacity_.end()) allocating = &it->second;
  }
  // And for a device nothing else consumes, in a pool whose capacities all
  // fit whole.
  if (nothing_requested && allocated == nullptr && allocating == nullptr && c.pool->whole_capacity_fits) return true;
  return CapacityFits(data.request().capacity, *c.device, allocated, allocating, features_.static_capacity_for_all,
                      c.pool->CapacityValuesOf(*c.device));
}

bool Search::DeviceCapacityInUse(const DeviceRef& id) const {
  if (allocated_.HasShares(id)) return true;
  auto it = allocating_shares_.find(id);
  return it != allocating_shares_.end() && it->second > 0;
}

bool Search::Allocating(const Candidate& c) const {
  return std::any_of(allocating_.begin(), allocating_.end(), [&](const auto& pick) { return pick.first == c.device; });
}

bool Search::ReserveCounters(const Candidate& c) {
  auto available = available_counters_.find(c.pool);
  if (available == available_counters_.end()) {
    available = available_counters_.emplace(c.pool, AvailableCounters(*c.pool, allocated_)).first;
  }
  CounterTotals& consumed = consumed_counters_[c.pool];
  for (const api::DeviceCounterConsumption& consumption : c.device->consumes_counters) {
    for (const auto& [counter, value] : consumption.counters) consumed[consumption.counter_set][counter] += value.value;
  }
  // As kube's: every counter of the pool is checked, not only this
  // device's, so a counter that allocated devices over-consume blocks the
  // whole pool.
  for (const auto& [set, counters] : available->second) {
    const auto consumed_set = consumed.find(set);
    for (const auto& [counter, left] : counters) {
      api::Quantity used;
      if (consumed_set != consumed.end()) {
        if (auto it = consumed_set->second.find(counter); it != consumed_set->second.end()) used = it->second;
      }
      if (left.Cmp(used) < 0) {
        ReleaseCounters(c);
        return false;
      }
    }
  }
  return true;
}

void Search::ReleaseCounters(const Candidate& c) {
  CounterTotals& consumed = consumed_counters_[c.pool];
  for (const api::DeviceCounterConsumption& consumption : c.device->consumes_counters) {
    for (const auto& [counter, value] : consumption.counters) consumed[consumption.counter_set][counter] -= value.value;
  }
}

bool Search::AllocatingForClaim(const Candidate& c, size_t claim) const {
  return std::find(allocating_.begin(), allocating_.end(), std::make_pair(c.device, claim)) != allocating_.end();
}

util::StatusOr<bool> Search::AllocateDevice(const RequestKey& key, const Candidate& c, bool must) {
  const RequestData& data = requests_[key];
  // A device that allows multiple allocations is shared, not taken.
  const bool multi = features_.consumable_capacity && c.device->allow_multiple_allocations.value_or(false);
  if (data.request().admin_access ? (!multi && AllocatingForClaim(c, key.claim)) : InUse(c)) return false;
  const bool consumes_counters = !c.device->consumes_counters.empty();
  if (consumes_counters && !features_.partitionable_devices) return false;
  // A further share of a shared device does not charge its counters again.
  const bool charge_counters = consumes_counters && !(multi && DeviceCapacityInUse(c.id));
  if (charge_counters && !ReserveCounters(c)) return false;
  const std::vector<api::DeviceToleration>& tolerations =
      data.request().tolerations != nullptr ? *data.request().tolerations : kNoTolerations;
  if (features_.device_taints && api::DeviceTaintPreventsAllocation(*c.device, tolerations)) {
    if (charge_counters) ReleaseCounters(c);
    return false;
  }
  const std::string_view base = data.parent() ? *data.parent() : data.request().name;
  std::optional<std::string_view> sub;
  if (data.parent()) sub = data.request().name;
  std::pmr::vector<MatchAttributeConstraint>& constraints = constraints_[key.claim];
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (constraints[i].Add(base, sub, c)) continue;
    for (size_t e = i; e-- > 0;) constraints[e].Remove(base, sub);
    if (charge_counters) ReleaseCounters(c);
    if (must) {
      return RequestError(key.claim, data.request().name,
                          ": cannot add device " + c.id.String() + " because a claim constraint would not be satisfied");
    }
    return false;
  }
  CapacityMap consumed;
  if (features_.consumable_capacity) {
    util::StatusOr<bool> fits = CapacityFitsNow(data, c);
    util::StatusOr<CapacityMap> share = CapacityMap();
    if (fits.ok() && *fits && multi) {
      share = ConsumedCapacity(data.request().capacity, *c.device, features_.static_capacity_for_all,
                               c.pool->CapacityValuesOf(*c.device));
    }
    if (!fits.ok() || !*fits || !share.ok()) {
      for (size_t e = constraints.size(); e-- > 0;) constraints[e].Remove(base, sub);
      if (charge_counters) ReleaseCounters(c);
      const util::Status error = !fits.ok() ? fits.status() : share.status();
      if (error.ok() || !features_.static_capacity_for_all) return false;
      return RequestError(key.claim, data.request().name,
                          ": rechecking capacity for device " + c.id.String() + ": " + error.message());
    }
    consumed = std::move(share).value();
  }
  if (multi) {
    ++Entry(allocating_shares_, c.id);
    CapacityMap& total = Entry(allocating_capacity_, c.id);
    for (const auto& [name, amount] : consumed) total[name] += amount;
  } else {
    allocating_.emplace_back(c.device, key.claim);
  }
  DeviceResult result{data.request().name, data.parent(), c.id, c.slice, c.device, std::nullopt, &tolerations};
  if (data.request().admin_access) result.admin_access = true;
  result.multi = multi;
  result.counters_charged = charge_counters;
  result.consumed = std::move(consumed);
  results_[key.claim].push_back(std::move(result));
  return true;
}

void Search::Deallocate(const RequestKey& key, const Candidate& c, size_t previous_results) {
  const RequestData& data = requests_[key];
  const std::string_view base = data.parent() ? *data.parent() : data.request().name;
  std::optional<std::string_view> sub;
  if (data.parent()) sub = data.request().name;
  std::pmr::vector<MatchAttributeConstraint>& constraints = constraints_[key.claim];
  for (size_t e = constraints.size(); e-- > 0;) constraints[e].Remove(base, sub);
  const DeviceResult& result = results_[key.claim][previous_results];
  if (result.counters_charged) ReleaseCounters(c);
  if (result.multi) {
    CapacityMap& total = Entry(allocating_capacity_, c.id);
    for (const auto& [name, amount] : result.consumed) total[name] -= amount;
    if (--Entry(allocating_shares_, c.id) == 0) {
      allocating_shares_.erase(allocating_shares_.find(c.id));
      allocating_capacity_.erase(allocating_capacity_.find(c.id));
    }
  } else {
    // Picks are undone last first.
    auto pick = std::find(allocating_.rbegin(), allocating_.rend(), std::make_pair(c.device, key.claim));
    if (pick != allocating_.rend()) allocating_.erase(std::next(pick).base());
  }
  results_[key.claim].resize(previous_results);
}

util::StatusOr<Step> Search::AllocateOne(RequestKey r, size_t device_index, bool allocating_sub, Location start) {
  if (r.claim >= claims_.size()) return Step::kDone;
  if (Stopped()) return Aborted();
  const api::ResourceClaim& claim = *claims_[r.claim];
  if (r.request >= claim.spec.devices.requests.size()) {
    util::StatusOr<Step> next = AllocateOne(RequestKey{r.claim + 1, 0, 0}, 0, false);
    // Too many devices in a later claim: other choices in this one may
    // still let that claim pick smaller subrequests.
    if (next.ok() && *next == Step::kTooMany) return Step::kFailed;
    return next;
  }

  RequestData& data = requests_[r];
  // A firstAvailable request: the first subrequest that leads to a full
  // solution wins. Only when every subrequest ran over the device limit
  // does the request pass kTooMany on (no other device choice before it
  // can help).
  if (!allocating_sub && data.parent()) {
    bool all_too_many = true;
    for (size_t sub = 0;; ++sub) {
      RequestKey sub_key{r.claim, r.request, sub};
      if (!requests_.Has(sub_key)) return all_too_many ? Step::kTooMany : Step::kFailed;
      util::StatusOr<Step> step = AllocateOne(sub_key, device_index, true);
      if (step.ok() && *step == Step::kTooMany) continue;
      all_too_many = false;
      if (!step.ok()) return step;
      if (*step == Step::kDone) {
        requests_[RequestKey{r.claim, r.request, 0}].selected_sub = sub;
        return Step::kDone;
      }
    }
  }

  const bool all = data.request().mode == api::kDeviceAllocationModeAll;
  if (all && data.all_devices.empty()) return Step::kFailed;  // All needs at least one device
  if (device_index >= data.num_devices) return AllocateOne(RequestKey{r.claim, r.request + 1, 0}, 0, false);
  if (results_[r.claim].size() + data.num_devices - device_index > kAllocationResultsMaxSize) return Step::kTooMany;

  if (all) {
    // The devices are known; only whether they are all free is open.
    const Candidate c = data.all_devices[device_index];
    const size_t previous = results_[r.claim].size();
    util::StatusOr<bool> taken = AllocateDevice(r, c, true);
    if (!taken.ok()) return taken.status();
    if (!*taken) return Step::kFailed;
    // kube 1.34 and 1.35 go on with the request's first subrequest (index
    // 0), not this one: after an All subrequest's first device the rest is
    // searched as that subrequest, and ksched's verdicts follow kube's.
    const RequestKey next{r.claim, r.request, features_.all_subrequest_quirks ? size_t{0} : r.sub};
    util::StatusOr<Step> step = AllocateOne(next, device_index + 1, allocating_sub);
    if (!step.ok() || *step != Step::kDone) Deallocate(r, c, previous);
    return step;
  }

  for (size_t pi = start.pool; pi < pools_->size(); ++pi) {
    const Pool& pool = (*pools_)[pi];
    if (features_.skip_unusable_pools) {
      if (pool.incomplete || pool.invalid) continue;
    } else if (pool.invalid) {
      // Allocating from a pool with duplicate names could hand out a device
      // twice: stop instead.
      return util::InvalidArgument("pool " + pool.name + " is invalid: " + pool.invalid_reason);
    }
    // Where the scan of this pool begins: after the previous pick, or, for
    // a request that needs free devices, past those allocated claims are
    // known to hold. A scan from there counts the held devices it meets
    // first, for later searches.
    Location from = pi == start.pool ? start : Location{pi, 0, 0};
    const bool needs_free = !data.request().admin_access;
    bool counting_held = needs_free && from.slice == 0 && from.device == 0;
    PoolMark mark;
    size_t held = 0;
    if (counting_held) {
      mark = allocated_.Mark(pool.MarkRef());
      held = pool.held_prefix.Get(mark);
      from = DeviceAt(pool, pi, held);
    }
    for (size_t si = from.slice; si < pool.slices.size(); ++si) {
      const SlicePtr& slice = pool.slices[si];
      for (size_t di = si == from.slice ? from.device : 0; di < slice->spec.devices.size(); ++di) {
        const api::Device& device = slice->spec.devices[di];
        if (Stopped()) return Aborted();
        Candidate c{pool.Ref(si, di), &device, slice.get(), &pool, &slice};
        if (needs_free) {
          const bool held_whole = allocated_.TakenWhole(c.id);
          if (counting_held) {
            if (held_whole) {
              ++held;
            } else {
              pool.held_prefix.Set(mark, held);
              counting_held = false;
            }
          }
          if (held_whole || Allocating(c)) continue;
        } else if (AllocatingForClaim(c, r.claim)) {
          continue;
        }
        util::StatusOr<bool> selectable = IsSelectable(r, data, c);
        if (!selectable.ok()) return selectable.status();
        if (!*selectable) continue;
        if (features_.consumable_capacity) {
          util::StatusOr<bool> fits = CapacityFitsNow(data, c);
          if (!fits.ok()) {
            if (!features_.static_capacity_for_all) continue;
            return RequestError(r.claim, data.request().name,
                                ": checking capacity for device " + c.id.String() + ": " + fits.status().message());
          }
          if (!*fits) continue;
        }
        const size_t previous = results_[r.claim].size();
        util::StatusOr<bool> taken = AllocateDevice(r, c, false);
        if (!taken.ok()) return taken.status();
        if (!*taken) continue;
        util::StatusOr<Step> step = AllocateOne(r, device_index + 1, allocating_sub, Location{pi, si, di + 1});
        if (step.ok() && *step == Step::kDone) return Step::kDone;
        Deallocate(r, c, previous);
        // An error, or too many devices whatever this request takes.
        if (!step.ok() || *step == Step::kTooMany) return step;
      }
    }
    if (counting_held) pool.held_prefix.Set(mark, held);  // all of them
  }
  return Step::kFailed;
}

util::StatusOr<bool> Search::Find() {
  util::Status prepared = Prepare();
  if (!prepared.ok()) return prepared;
  util::StatusOr<Step> step = AllocateOne(RequestKey{}, 0, false);
  if (!step.ok()) return step.status();
  // As kube's: the first claim running over the limit whatever it picks
  // fails the call.
  if (*step == Step::kTooMany) return util::InvalidArgument("allocation max size exceeded");
  if (*step == Step::kFailed) {
    if (features_.skip_unusable_pools &&
        std::any_of(pools_->begin(), pools_->end(), [](const Pool& p) { return p.invalid; })) {
      return util::Status(util::StatusCode::kUnavailable, "invalid resource pools were encountered");
    }
    return false;
  }
  return true;
}

NodeAllocation Search::Found() {
  auto found = std::make_shared<NodeAllocation::State>();
  found->features = features_;
  found->share_ids = share_ids_;
  found->node_name = node_.metadata.name;
  found->pools = std::move(pools_);
  found->table = table_;
  found->claims.resize(claims_.size());
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    NodeAllocation::State::Claim& claim = found->claims[ci];
    claim.requests = &requests_.Claim(ci);
    for (size_t ri = 0; ri + 1 < claim.requests->first.size(); ++ri) {
      const RequestData& first = requests_[RequestKey{ci, ri, 0}];
      claim.served.push_back(first.parent() ? requests_[RequestKey{ci, ri, first.selected_sub}].prepared
                                            : first.prepared);
    }
    claim.results.assign(results_[ci].begin(), results_[ci].end());
  }
  return NodeAllocation(std::move(found));
}

util::StatusOr<std::vector<RequestDeviceTally>> Search::Tally() {
  util::Status prepared = Prepare();
  if (!prepared.ok()) return prepared;
  std::vector<RequestDeviceTally> out;
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const ClaimRequests& prepared = requests_.Claim(ci);
    for (size_t ri = 0; ri + 1 < prepared.first.size(); ++ri) {
      for (size_t si = 0; si < prepared.Entries(ri); ++si) {
        const RequestKey key{ci, ri, si};
        util::StatusOr<RequestDeviceTally> t = TallyRequest(key, requests_[key]);
        if (!t.ok()) return t.status();
        out.push_back(std::move(t).value());
      }
    }
  }
  return out;
}

util::StatusOr<RequestDeviceTally> Search::TallyRequest(const RequestKey& key, const RequestData& data) {
  RequestDeviceTally t;
  t.claim = ClaimRef(*claims_[key.claim]);
  t.request = data.prepared->RequestName();
  for (const Pool& pool : *pools_) {
    for (const SlicePtr& slice : pool.slices) {
      for (const api::Device& device : slice->spec.devices) {
        if (slice->spec.per_device_node_selection.value_or(false)) {
          util::StatusOr<bool> reaches = DeviceReachesNode(device, node_);
          if (!reaches.ok()) return reaches.status();
          if (!*reaches) continue;
        }
        ++t.reachable;
        const Candidate c{DeviceRef(pool.driver, pool.name, device.name), &device, slice.get(), &pool, &slice};
        util::StatusOr<std::string> why = WhyNotUsable(key, data, c);
        if (!why.ok()) return why.status();
        if (why->empty()) {
          ++t.usable;
        } else {
          ++t.skipped[*why];
        }
      }
    }
  }
  return t;
}

util::StatusOr<std::string> Search::WhyNotUsable(const RequestKey& key, const RequestData& data, const Candidate& c) {
  const Pool& pool = *c.pool;
  if (pool.invalid) return "its pool is invalid: " + pool.invalid_reason;
  if (features_.skip_unusable_pools && pool.incomplete) return std::string("its pool is incomplete");
  if (!features_.binding_conditions && !c.device->binding_conditions.empty()) {
    return std::string("it has binding conditions (the feature is off)");
  }
  util::StatusOr<bool> selectable = IsSelectable(key, data, c);
  if (!selectable.ok()) return selectable.status();
  if (!*selectable) return std::string("the class or the request does not select it");
  const bool multi = features_.consumable_capacity && c.device->allow_multiple_allocations.value_or(false);
  if (!data.request().admin_access && !multi && InUse(c)) return std::string("allocated");
  if (features_.consumable_capacity) {
    util::StatusOr<bool> fits = CapacityFitsNow(data, c);
    if (!fits.ok() || !*fits) return std::string("not enough capacity left");
  }
  if (!c.device->consumes_counters.empty()) {
    if (!features_.partitionable_devices) return std::string("it consumes counters (partitionable devices are off)");
    if (!(multi && DeviceCapacityInUse(c.id))) {
      if (!ReserveCounters(c)) return std::string("its shared counters are used up");
      ReleaseCounters(c);
    }
  }
  const std::vector<api::DeviceToleration>& tolerations =
      data.request().tolerations != nullptr ? *data.request().tolerations : kNoTolerations;
  if (features_.device_taints && api::DeviceTaintPreventsAllocation(*c.device, tolerations)) {
    return std::string("a taint the request does not tolerate");
  }
  return std::string();
}

// Where a claim with `devices` can be used: pinned to the node, the
// devices' common selector, or anywhere (nullopt).
std::optional<api::NodeSelector> NodeSelectorFor(const NodeAllocation::State& found,
                                                 const std::vector<DeviceResult>& devices) {
  api::NodeSelectorTerm term;
  auto add_new = [](const std::vector<api::NodeSelectorRequirement>& from,
                    std::vector<api::NodeSelectorRequirement>* to) {
    for (const api::NodeSelectorRequirement& req : from) {
      std::set<std::string> values(req.values.begin(), req.values.end());
      bool present = std::any_of(to->begin(), to->end(), [&](const api::NodeSelectorRequirement& existing) {
        return existing.key == req.key && existing.operator_ == req.operator_ &&
               std::set<std::string>(existing.values.begin(), existing.values.end()) == values;
      });
      if (!present) to->push_back(req);
    }
  };
  for (const DeviceResult& result : devices) {
    const api::ResourceSliceSpec& spec = result.slice->spec;
    // A device of a perDeviceNodeSelection slice says itself where it is.
    const bool per_device = spec.per_device_node_selection.value_or(false);
    const std::optional<std::string>& node_name = per_device ? result.device->node_name : spec.node_name;
    const std::optional<api::NodeSelector>& node_selector =
        per_device ? result.device->node_selector : spec.node_selector;
    // A node-local device, or one that binds to the node it is used on,
    // pins the claim to the node.
    const bool binds_to_node = found.features.binding_conditions && result.device->binds_to_node.value_or(false);
    if ((node_name && !node_name->empty()) || binds_to_node) {
      api::NodeSelector pinned;
      pinned.node_selector_terms.push_back(
          api::NodeSelectorTerm{{}, {api::NodeSelectorRequirement{"metadata.name", "In", {found.node_name}}}});
      return pinned;
    }
    if (node_selector && node_selector->node_selector_terms.size() == 1) {
      add_new(node_selector->node_selector_terms[0].match_fields, &term.match_fields);
      add_new(node_selector->node_selector_terms[0].match_expressions, &term.match_expressions);
    }
  }
  if (term.match_fields.empty() && term.match_expressions.empty()) return std::nullopt;  // usable everywhere
  api::NodeSelector selector;
  selector.node_selector_terms.push_back(std::move(term));
  return selector;
}

}  // namespace

std::string RandomShareId() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const uint64_t hi = random();
  const uint64_t lo = random();
  // Version 4, variant 10xx.
  const uint64_t a = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const uint64_t b = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return text;
}

std::vector<api::AllocationResult> NodeAllocation::Build() const {
  const State& found = *state_;
  std::vector<api::AllocationResult> out(found.claims.size());
  for (size_t ci = 0; ci < found.claims.size(); ++ci) {
    const State::Claim& allocated = found.claims[ci];
    const api::ResourceClaim& claim = *allocated.requests->claim;
    api::AllocationResult& result = out[ci];
    for (const DeviceResult& d : allocated.results) {
      api::DeviceRequestAllocationResult out{d.RequestName(), std::string(d.id.driver), std::string(d.id.pool),
                                             std::string(d.id.device), d.admin_access, *d.tolerations};
      if (d.multi) {
        out.share_id = found.share_ids ? found.share_ids() : RandomShareId();
        out.consumed_capacity = d.consumed;
      }
      if (found.features.binding_conditions) {
        out.binding_conditions = d.device->binding_conditions;
        out.binding_failure_conditions = d.device->binding_failure_conditions;
      }
      result.devices.results.push_back(std::move(out));
    }
    // Each class's configuration once, naming every request that used it.
    std::map<std::string, std::pair<size_t, size_t>> class_configs;  // class -> [start, end)
    for (size_t ri = 0; ri < claim.spec.devices.requests.size(); ++ri) {
      const PreparedRequest& served = *allocated.served[ri];
      const api::DeviceClass* device_class = served.device_class.get();
      if (device_class == nullptr) continue;
      const std::string name = served.RequestName();
      auto it = class_configs.find(device_class->metadata.name);
      if (it != class_configs.end()) {
        for (size_t i = it->second.first; i < it->second.second; ++i) {
          result.devices.config[i].requests.push_back(name);
        }
        continue;
      }
      const size_t start = result.devices.config.size();
      for (const api::DeviceClassConfiguration& config : device_class->spec.config) {
        result.devices.config.push_back(api::DeviceAllocationConfiguration{"FromClass", {name}, config.opaque});
      }
      class_configs[device_class->metadata.name] = {start, result.devices.config.size()};
    }
    for (const api::DeviceClaimConfiguration& config : claim.spec.devices.config) {
      auto add = [&] {
        result.devices.config.push_back(api::DeviceAllocationConfiguration{"FromClaim", config.requests, config.opaque});
      };
      if (config.requests.empty()) {
        add();
        continue;
      }
      auto named = [&](const std::string& n) {
        return std::find(config.requests.begin(), config.requests.end(), n) != config.requests.end();
      };
      for (size_t ri = 0; ri < claim.spec.devices.requests.size(); ++ri) {
        const api::DeviceRequest& request = claim.spec.devices.requests[ri];
        if (named(request.name)) {
          add();
          continue;
        }
        const PreparedRequest& served = *allocated.served[ri];
        if (served.parent && named(served.RequestName())) add();
      }
    }
    result.node_selector = NodeSelectorFor(found, allocated.results);
  }
  return out;
}

std::vector<std::string> NodeAllocation::Requests(size_t claim) const {
  std::vector<std::string> out;
  for (const DeviceResult& d : state_->claims.at(claim).results) out.push_back(d.RequestName());
  return out;
}

size_t NodeAllocation::claims() const { return state_->claims.size(); }

namespace {

AllocatedState TakenWhole(const std::set<DeviceId>& devices) {
  DeviceHolds holds;
  for (const DeviceId& id : devices) holds[id].whole = 1;
  return AllocatedState(std::move(holds));
}

}  // namespace

Allocator::Allocator(AllocatorFeatures features, const std::set<DeviceId>& allocated, DeviceClassLookup classes,
                     std::vector<std::shared_ptr<const api::ResourceSlice>> slices, CelCache& cel_cache)
    : Allocator(features, TakenWhole(allocated), std::move(classes), std::move(slices), cel_cache) {}

Allocator::Allocator(AllocatorFeatures features, AllocatedState allocated, DeviceClassLookup classes,
                     std::vector<std::shared_ptr<const api::ResourceSlice>> slices, CelCache& cel_cache,
                     ShareIdSource share_ids)
    : Allocator(features, std::move(allocated), std::move(classes),
                std::make_shared<const SlicePools>(std::move(slices)), cel_cache, std::move(share_ids)) {}

Allocator::Allocator(AllocatorFeatures features, AllocatedState allocated, DeviceClassLookup classes,
                     std::shared_ptr<const SlicePools> slices, CelCache& cel_cache, ShareIdSource share_ids)
    : features_(features),
      allocated_(std::move(allocated)),
      share_ids_(std::move(share_ids)),
      slices_(std::move(slices)),
      cel_cache_(cel_cache) {
  ClaimRequestOptions options;
  options.admin_access = features_.admin_access;
  options.prioritized_list = features_.prioritized_list;
  options.capacity_errors = !features_.consumable_capacity && features_.capacity_known_when_off;
  options.distinct_attribute = features_.consumable_capacity || features_.capacity_known_when_off;
  options.distinct_per_request = !features_.distinct_per_device;
  requests_ = std::make_shared<ClaimRequestTable>(options, std::move(classes), cel_cache);
}



namespace {

// A search's own state fits in this much stack for the usual claims (one
// or two requests, a few devices); more spills to the heap.
constexpr size_t kSearchArenaBytes = 4096;

}  // namespace

util::StatusOr<Pools> Allocator::NodePools(const api::Node& node) const {
  PoolOptions options;
  options.gather.whole_pool_counts = features_.skip_unusable_pools;
  options.gather.partitionable_devices = features_.partitionable_devices;
  options.gather.counter_slices_reach_every_node = features_.counter_slices_reach_every_node;
  options.binding_conditions_last = features_.binding_conditions;
  util::StatusOr<Pools> pools = slices_->For(node, options);
  if (!pools.ok()) return util::InvalidArgument("gather pool information: " + pools.status().message());
  return pools;
}

util::StatusOr<bool> Allocator::Run(const api::Node& node,
                                    const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                    const std::function<bool()>& stop, std::optional<NodeAllocation>* found) const {
  util::StatusOr<Pools> pools = NodePools(node);
  if (!pools.ok()) return pools.status();
  alignas(std::max_align_t) std::byte buffer[kSearchArenaBytes];
  std::pmr::monotonic_buffer_resource arena(buffer, sizeof(buffer));
  Search search(features_, allocated_, share_ids_, cel_cache_, requests_, node, claims, std::move(pools).value(), stop,
                &arena);
  util::StatusOr<bool> fits = search.Find();
  if (fits.ok() && *fits && found != nullptr) *found = search.Found();
  return fits;
}

util::StatusOr<std::optional<NodeAllocation>> Allocator::Allocate(
    const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
    const std::function<bool()>& stop) const {
  std::optional<NodeAllocation> found;
  util::StatusOr<bool> fits = Run(node, claims, stop, &found);
  if (!fits.ok()) return fits.status();
  return found;
}

util::StatusOr<bool> Allocator::Fits(const api::Node& node,
                                     const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                     const std::function<bool()>& stop) const {
  return Run(node, claims, stop, nullptr);
}

util::StatusOr<std::vector<RequestDeviceTally>> Allocator::Tally(
    const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) const {
  util::StatusOr<Pools> pools = NodePools(node);
  if (!pools.ok()) return pools.status();
  const std::function<bool()> never;
  std::pmr::monotonic_buffer_resource arena;
  Search search(features_, allocated_, share_ids_, cel_cache_, requests_, node, claims, std::move(pools).value(), never,
                &arena);
  return search.Tally();
}

}  // namespace ksched::scheduler::dra
