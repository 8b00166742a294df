#include "pkg/scheduler/plugins/dynamicresources/allocator.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
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

// The fields the search reads of a request's `exactly` or of one of its
// firstAvailable subrequests: views into the claim, which the search and its
// result keep alive.
struct RequestView {
  std::string_view name;
  std::string_view class_name;
  std::string_view mode;
  int64_t count = 0;
  bool admin_access = false;
  bool has_admin_access = false;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;  // null: none requested
};

RequestView ViewOf(const api::DeviceRequest& request) {
  RequestView v;
  v.name = request.name;
  if (request.exactly) {
    v.class_name = request.exactly->device_class_name;
    v.mode = request.exactly->allocation_mode;
    v.count = request.exactly->count;
    v.admin_access = request.exactly->admin_access.value_or(false);
    v.has_admin_access = request.exactly->admin_access.has_value();
    v.selectors = &request.exactly->selectors;
    v.tolerations = &request.exactly->tolerations;
    if (request.exactly->capacity) v.capacity = &*request.exactly->capacity;
  }
  return v;
}

RequestView ViewOf(const api::DeviceSubRequest& sub) {
  RequestView v;
  v.name = sub.name;
  v.class_name = sub.device_class_name;
  v.mode = sub.allocation_mode;
  v.count = sub.count;
  v.selectors = &sub.selectors;
  v.tolerations = &sub.tolerations;
  if (sub.capacity) v.capacity = &*sub.capacity;
  return v;
}

const std::vector<api::DeviceSelector> kNoSelectors;
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

struct RequestData {
  RequestView request;
  std::optional<std::string_view> parent;  // set for a subrequest
  std::shared_ptr<const api::DeviceClass> device_class;
  size_t num_devices = 0;
  std::vector<Candidate> all_devices;  // All mode: the devices to take
  size_t selected_sub = 0;             // on the sub-0 entry: the subrequest that won

  std::string RequestName() const {
    return parent ? std::string(*parent) + "/" + std::string(request.name) : std::string(request.name);
  }
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
  // `per_request`: kube 1.36's distinctAttribute (AllocatorFeatures::
  // distinct_per_device off).
  MatchAttributeConstraint(std::vector<std::string> requests, std::string attribute, bool distinct = false,
                           bool per_request = false)
      : requests_(requests.begin(), requests.end()),
        attribute_(std::move(attribute)),
        distinct_(distinct),
        per_request_(per_request) {}

  bool Add(std::string_view request, const std::optional<std::string_view>& sub, const Candidate& c) {
    if (!Applies(request, sub)) return true;
    const api::DeviceAttributeValue* value = LookupAttribute(*c.device, c.id.driver, attribute_);
    if (value == nullptr) return false;
    if (distinct_ && per_request_) {
      if (count_ > 0) {
        for (const auto& [name, seen] : by_request_) {
          if (SameKindAndValue(*value, *seen)) return false;
        }
      }
      by_request_[std::string(request)] = value;
      ++count_;
      return true;
    }
    if (distinct_) {
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
    if (distinct_ && per_request_) {
      if (auto it = by_request_.find(request); it != by_request_.end()) by_request_.erase(it);
      --count_;
    } else if (distinct_) {
      distinct_values_.pop_back();
    } else {
      --count_;
    }
  }

 private:
  bool Applies(std::string_view request, const std::optional<std::string_view>& sub) const {
    if (requests_.empty()) return true;
    if (requests_.count(request) != 0) return true;
    return sub && requests_.count(std::string(request) + "/" + std::string(*sub)) != 0;
  }

  std::set<std::string, std::less<>> requests_;
  std::string attribute_;
  bool distinct_ = false;
  bool per_request_ = false;
  // per_request_: base request -> value
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
  AllocatorFeatures features;
  ShareIdSource share_ids;
  std::string node_name;
  std::vector<std::shared_ptr<const api::ResourceClaim>> claims;
  Pools pools;  // owns the slices the results point into
  std::map<RequestKey, RequestData> requests;
  std::vector<std::vector<DeviceResult>> results;  // per claim
};

namespace {

// One Allocate call's search state (kube's `allocator`).
class Search {
 public:
  Search(const AllocatorFeatures& features, const AllocatedState& allocated, const ShareIdSource& share_ids,
         const DeviceClassLookup& classes, CelCache& cel_cache, const api::Node& node,
         const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims, Pools pools,
         const std::function<bool()>& stop)
      : features_(features),
        allocated_(allocated),
        share_ids_(share_ids),
        classes_(classes),
        cel_cache_(cel_cache),
        node_(node),
        claims_(claims),
        pools_(std::move(pools)),
        stop_(stop),
        constraints_(claims.size()),
        results_(claims.size()) {}

  util::StatusOr<std::optional<NodeAllocation>> Run();
  util::StatusOr<std::vector<RequestDeviceTally>> Tally();

 private:
  // Why `c` cannot serve the request, checked alone (Allocator::Tally); ""
  // when it can.
  util::StatusOr<std::string> WhyNotUsable(const RequestKey& key, const RequestData& data, const Candidate& c);
  util::Status Prepare();
  // `key` names the claim and is the key All mode's device selection is
  // cached under.
  util::StatusOr<RequestData> ValidateRequest(const RequestView& request, const std::optional<std::string_view>& parent,
                                              const RequestKey& key);
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
                                      const std::vector<api::DeviceSelector>& selectors);
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
  const DeviceClassLookup& classes_;
  CelCache& cel_cache_;
  const api::Node& node_;
  const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims_;
  Pools pools_;  // never null
  const std::function<bool()>& stop_;
  size_t stop_checks_ = 0;
  std::map<RequestKey, RequestData> requests_;
  std::vector<std::vector<MatchAttributeConstraint>> constraints_;
  // Selector verdicts per device and request (kube keys them by device
  // id; a device object is one id here, as invalid pools, the only place
  // ids repeat, are never searched).
  std::unordered_map<MatchKey, bool, MatchKeyHash> matches_;
  // The devices picked whole so far and the claim each was picked for, by
  // device object (one per id, as above); a search picks few devices.
  std::vector<std::pair<const api::Device*, size_t>> allocating_;
  // Shares of multi-allocatable devices picked so far, and what they
  // consume (kube's allocatingCapacity).
  DeviceMap<int> allocating_shares_;
  DeviceMap<CapacityMap> allocating_capacity_;
  std::vector<std::vector<DeviceResult>> results_;
  // Per pool: counters left by allocated devices (computed when first
  // needed) and counters this search's devices consume.
  std::map<const Pool*, CounterTotals> available_counters_;
  std::map<const Pool*, CounterTotals> consumed_counters_;
};

util::Status Search::RequestError(size_t claim, std::string_view request, const std::string& what) const {
  return util::InvalidArgument("claim " + ClaimRef(*claims_[claim]) + ", request " + std::string(request) + what);
}

util::StatusOr<RequestData> Search::ValidateRequest(const RequestView& request,
                                                    const std::optional<std::string_view>& parent,
                                                    const RequestKey& key) {
  auto invalid = [&](const std::string& what) { return RequestError(key.claim, request.name, what); };
  RequestData data;
  data.request = request;
  data.parent = parent;
  const std::vector<api::DeviceSelector>& selectors = request.selectors ? *request.selectors : kNoSelectors;
  for (size_t i = 0; i < selectors.size(); ++i) {
    if (!selectors[i].cel) {
      return invalid(", selector #" + std::to_string(i) + ": CEL expression empty (unsupported selector type?)");
    }
  }
  if (!features_.admin_access && request.has_admin_access) {
    return invalid(": admin access is requested, but the feature is disabled");
  }
  if (request.class_name.empty()) {
    return invalid(": missing device class name (unsupported request type?)");
  }
  data.device_class = classes_(std::string(request.class_name));
  if (data.device_class == nullptr) {
    const std::string name(request.class_name);
    return invalid(": could not retrieve device class " + name + ": deviceclass.resource.k8s.io \"" + name +
                   "\" not found");
  }
  if (request.mode == api::kDeviceAllocationModeExactCount) {
    if (request.count < 0) {
      return invalid(": exact count " + std::to_string(request.count) + " is invalid");
    }
    data.num_devices = static_cast<size_t>(request.count);
  } else if (request.mode == api::kDeviceAllocationModeAll) {
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
  } else {
    return invalid(": unsupported count mode " + std::string(request.mode));
  }
  return data;
}

util::Status Search::Prepare() {
  for (size_t ci = 0; ci < claims_.size(); ++ci) {
    const api::ResourceClaim& claim = *claims_[ci];
    size_t min_devices = 0;
    for (size_t ri = 0; ri < claim.spec.devices.requests.size(); ++ri) {
      const api::DeviceRequest& request = claim.spec.devices.requests[ri];
      const bool has_subrequests = !request.first_available.empty();
      if (!features_.prioritized_list && has_subrequests) {
        return RequestError(ci, request.name, ": has subrequests, but the DRAPrioritizedList feature is disabled");
      }
      if (!features_.consumable_capacity && features_.capacity_known_when_off) {
        if (request.exactly && request.exactly->capacity) {
          return RequestError(ci, request.name,
                              ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (sub.capacity) {
            return util::InvalidArgument("claim " + ClaimRef(claim) + ", subrequest " + sub.name +
                                         ": has capacity requests, but the DRAConsumableCapacity feature is disabled");
          }
        }
      }
      if (has_subrequests) {
        size_t min_request = std::numeric_limits<size_t>::max();
        for (size_t si = 0; si < request.first_available.size(); ++si) {
          RequestKey key{ci, ri, si};
          // kube v1.34 selects an All subrequest's devices under its
          // predecessor's cache key; the cache is dropped before the
          // search, so only the second subrequest, keyed as the first,
          // is affected: when both are All it takes the first's devices.
          const RequestKey selection_key{ci, ri, features_.all_subrequest_quirks && si > 0 ? si - 1 : si};
          util::StatusOr<RequestData> data =
              ValidateRequest(ViewOf(request.first_available[si]), request.name, selection_key);
          if (!data.ok()) return data.status();
          min_request = std::min(min_request, data->num_devices);
          requests_[key] = std::move(data).value();
        }
        min_devices += min_request;
      } else {
        RequestKey key{ci, ri, 0};
        util::StatusOr<RequestData> data = ValidateRequest(ViewOf(request), std::nullopt, key);
        if (!data.ok()) return data.status();
        min_devices += data->num_devices;
        requests_[key] = std::move(data).value();
      }
    }
    if (min_devices > kAllocationResultsMaxSize) {
      return util::InvalidArgument("claim " + ClaimRef(claim) + ": number of requested devices " +
                                   std::to_string(min_devices) + " exceeds the claim limit of " +
                                   std::to_string(kAllocationResultsMaxSize));
    }
    for (size_t i = 0; i < claim.spec.devices.constraints.size(); ++i) {
      const api::DeviceConstraint& constraint = claim.spec.devices.constraints[i];
      if (constraint.match_attribute) {
        constraints_[ci].emplace_back(constraint.requests, *constraint.match_attribute);
      } else if (constraint.distinct_attribute && (features_.consumable_capacity || features_.capacity_known_when_off)) {
        constraints_[ci].emplace_back(constraint.requests, *constraint.distinct_attribute, /*distinct=*/true,
                                      /*per_request=*/!features_.distinct_per_device);
      } else {
        return util::InvalidArgument("claim " + ClaimRef(claim) + ", constraint #" + std::to_string(i) +
                                     ": empty constraint (unsupported constraint type?)");
      }
    }
  }
  return util::Status::Ok();
}

util::StatusOr<bool> Search::SelectorsMatch(const RequestKey& key, const Candidate& c,
                                            const api::DeviceClass* device_class,
                                            const std::vector<api::DeviceSelector>& selectors) {
  const auto owner = [&] {
    return device_class != nullptr ? "class " + device_class->metadata.name : "claim " + ClaimRef(*claims_[key.claim]);
  };
  // kube 1.35's allocator does not hand allowMultipleAllocations to CEL.
  const bool hide_multiple = !features_.consumable_capacity && !features_.capacity_known_when_off;
  std::optional<cel::Device> device;  // built once, for the first selector evaluated
  for (size_t i = 0; i < selectors.size(); ++i) {
    CelCache::Compiled program = cel_cache_.GetOrCompile(selectors[i].cel->expression);
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
  if (auto it = matches_.find(cache_key); it != matches_.end()) return it->second;
  bool match = true;
  if (data.device_class != nullptr) {
    util::StatusOr<bool> m = SelectorsMatch(key, c, data.device_class.get(), data.device_class->spec.selectors);
    if (!m.ok()) return m;
    match = *m;
  }
  if (match) {
    util::StatusOr<bool> m =
        SelectorsMatch(key, c, nullptr, data.request.selectors ? *data.request.selectors : kNoSelectors);
    if (!m.ok()) return m;
    match = *m;
  }
  if (match && c.slice->spec.per_device_node_selection.value_or(false)) {
    util::StatusOr<bool> m = DeviceReachesNode(*c.device, node_);
    if (!m.ok()) return m;
    match = *m;
  }
  matches_[cache_key] = match;
  return match;
}

util::StatusOr<bool> Search::CapacityFitsNow(const RequestData& data, const Candidate& c) const {
  const bool nothing_requested = data.request.capacity == nullptr || data.request.capacity->requests.empty();
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
  return CapacityFits(data.request.capacity, *c.device, allocated, allocating, features_.static_capacity_for_all,
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
  const RequestData& data = requests_.at(key);
  // A device that allows multiple allocations is shared, not taken.
  const bool multi = features_.consumable_capacity && c.device->allow_multiple_allocations.value_or(false);
  if (data.request.admin_access ? (!multi && AllocatingForClaim(c, key.claim)) : InUse(c)) return false;
  const bool consumes_counters = !c.device->consumes_counters.empty();
  if (consumes_counters && !features_.partitionable_devices) return false;
  // A further share of a shared device does not charge its counters again.
  const bool charge_counters = consumes_counters && !(multi && DeviceCapacityInUse(c.id));
  if (charge_counters && !ReserveCounters(c)) return false;
  const std::vector<api::DeviceToleration>& tolerations =
      data.request.tolerations != nullptr ? *data.request.tolerations : kNoTolerations;
  if (features_.device_taints && api::DeviceTaintPreventsAllocation(*c.device, tolerations)) {
    if (charge_counters) ReleaseCounters(c);
    return false;
  }
  const std::string_view base = data.parent ? *data.parent : data.request.name;
  std::optional<std::string_view> sub;
  if (data.parent) sub = data.request.name;
  std::vector<MatchAttributeConstraint>& constraints = constraints_[key.claim];
  for (size_t i = 0; i < constraints.size(); ++i) {
    if (constraints[i].Add(base, sub, c)) continue;
    for (size_t e = i; e-- > 0;) constraints[e].Remove(base, sub);
    if (charge_counters) ReleaseCounters(c);
    if (must) {
      return RequestError(key.claim, data.request.name,
                          ": cannot add device " + c.id.String() + " because a claim constraint would not be satisfied");
    }
    return false;
  }
  CapacityMap consumed;
  if (features_.consumable_capacity) {
    util::StatusOr<bool> fits = CapacityFitsNow(data, c);
    util::StatusOr<CapacityMap> share = CapacityMap();
    if (fits.ok() && *fits && multi) {
      share = ConsumedCapacity(data.request.capacity, *c.device, features_.static_capacity_for_all,
                               c.pool->CapacityValuesOf(*c.device));
    }
    if (!fits.ok() || !*fits || !share.ok()) {
      for (size_t e = constraints.size(); e-- > 0;) constraints[e].Remove(base, sub);
      if (charge_counters) ReleaseCounters(c);
      const util::Status error = !fits.ok() ? fits.status() : share.status();
      if (error.ok() || !features_.static_capacity_for_all) return false;
      return RequestError(key.claim, data.request.name,
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
  DeviceResult result{data.request.name, data.parent, c.id, c.slice, c.device, std::nullopt, &tolerations};
  if (data.request.admin_access) result.admin_access = true;
  result.multi = multi;
  result.counters_charged = charge_counters;
  result.consumed = std::move(consumed);
  results_[key.claim].push_back(std::move(result));
  return true;
}

void Search::Deallocate(const RequestKey& key, const Candidate& c, size_t previous_results) {
  const RequestData& data = requests_.at(key);
  const std::string_view base = data.parent ? *data.parent : data.request.name;
  std::optional<std::string_view> sub;
  if (data.parent) sub = data.request.name;
  std::vector<MatchAttributeConstraint>& constraints = constraints_[key.claim];
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

  RequestData& data = requests_.at(r);
  // A firstAvailable request: the first subrequest that leads to a full
  // solution wins. Only when every subrequest ran over the device limit
  // does the request pass kTooMany on (no other device choice before it
  // can help).
  if (!allocating_sub && data.parent) {
    bool all_too_many = true;
    for (size_t sub = 0;; ++sub) {
      RequestKey sub_key{r.claim, r.request, sub};
      if (requests_.count(sub_key) == 0) return all_too_many ? Step::kTooMany : Step::kFailed;
      util::StatusOr<Step> step = AllocateOne(sub_key, device_index, true);
      if (step.ok() && *step == Step::kTooMany) continue;
      all_too_many = false;
      if (!step.ok()) return step;
      if (*step == Step::kDone) {
        requests_.at(RequestKey{r.claim, r.request, 0}).selected_sub = sub;
        return Step::kDone;
      }
    }
  }

  const bool all = data.request.mode == api::kDeviceAllocationModeAll;
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
    const bool needs_free = !data.request.admin_access;
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
            return RequestError(r.claim, data.request.name,
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

util::StatusOr<std::optional<NodeAllocation>> Search::Run() {
  util::Status prepared = Prepare();
  if (!prepared.ok()) return prepared;
  // As kube's: the search starts with an empty selection cache.
  matches_.clear();
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
    return std::optional<NodeAllocation>();
  }
  auto found = std::make_shared<NodeAllocation::State>();
  found->features = features_;
  found->share_ids = share_ids_;
  found->node_name = node_.metadata.name;
  found->claims = claims_;
  found->pools = std::move(pools_);
  found->requests = std::move(requests_);
  found->results = std::move(results_);
  return std::optional<NodeAllocation>(NodeAllocation(std::move(found)));
}

util::StatusOr<std::vector<RequestDeviceTally>> Search::Tally() {
  util::Status prepared = Prepare();
  if (!prepared.ok()) return prepared;
  std::vector<RequestDeviceTally> out;
  for (const auto& [key, data] : requests_) {
    RequestDeviceTally t;
    t.claim = ClaimRef(*claims_[key.claim]);
    t.request = data.RequestName();
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
    out.push_back(std::move(t));
  }
  return out;
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
  if (!data.request.admin_access && !multi && InUse(c)) return std::string("allocated");
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
      data.request.tolerations != nullptr ? *data.request.tolerations : kNoTolerations;
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
    const api::ResourceClaim& claim = *found.claims[ci];
    api::AllocationResult& result = out[ci];
    for (const DeviceResult& d : found.results[ci]) {
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
      const RequestData* data = &found.requests.at(RequestKey{ci, ri, 0});
      if (data->parent) data = &found.requests.at(RequestKey{ci, ri, data->selected_sub});
      if (data->device_class == nullptr) continue;
      const std::string name = data->RequestName();
      auto it = class_configs.find(data->device_class->metadata.name);
      if (it != class_configs.end()) {
        for (size_t i = it->second.first; i < it->second.second; ++i) {
          result.devices.config[i].requests.push_back(name);
        }
        continue;
      }
      const size_t start = result.devices.config.size();
      for (const api::DeviceClassConfiguration& config : data->device_class->spec.config) {
        result.devices.config.push_back(api::DeviceAllocationConfiguration{"FromClass", {name}, config.opaque});
      }
      class_configs[data->device_class->metadata.name] = {start, result.devices.config.size()};
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
        const RequestData& data = found.requests.at(RequestKey{ci, ri, 0});
        if (!data.parent) continue;
        if (named(request.name + "/" + request.first_available[data.selected_sub].name)) add();
      }
    }
    result.node_selector = NodeSelectorFor(found, found.results[ci]);
  }
  return out;
}

std::vector<std::string> NodeAllocation::Requests(size_t claim) const {
  std::vector<std::string> out;
  for (const DeviceResult& d : state_->results.at(claim)) out.push_back(d.RequestName());
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

namespace {

// `lookup`, each name's answer remembered for the allocator's life (one
// scheduling cycle): every node's search asks it per request.
DeviceClassLookup Remembering(DeviceClassLookup lookup) {
  struct Memo {
    std::shared_mutex mu;
    std::map<std::string, std::shared_ptr<const api::DeviceClass>, std::less<>> classes;
  };
  return [lookup = std::move(lookup), memo = std::make_shared<Memo>()](const std::string& name) {
    {
      std::shared_lock<std::shared_mutex> lock(memo->mu);
      if (auto it = memo->classes.find(name); it != memo->classes.end()) return it->second;
    }
    std::shared_ptr<const api::DeviceClass> found = lookup(name);
    std::lock_guard<std::shared_mutex> lock(memo->mu);
    return memo->classes.try_emplace(name, std::move(found)).first->second;
  };
}

}  // namespace

Allocator::Allocator(AllocatorFeatures features, AllocatedState allocated, DeviceClassLookup classes,
                     std::shared_ptr<const SlicePools> slices, CelCache& cel_cache, ShareIdSource share_ids)
    : features_(features),
      allocated_(std::move(allocated)),
      share_ids_(std::move(share_ids)),
      classes_(Remembering(std::move(classes))),
      slices_(std::move(slices)),
      cel_cache_(cel_cache) {}

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

util::StatusOr<std::optional<NodeAllocation>> Allocator::Allocate(
    const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
    const std::function<bool()>& stop) const {
  util::StatusOr<Pools> pools = NodePools(node);
  if (!pools.ok()) return pools.status();
  Search search(features_, allocated_, share_ids_, classes_, cel_cache_, node, claims, std::move(pools).value(), stop);
  return search.Run();
}

util::StatusOr<std::vector<RequestDeviceTally>> Allocator::Tally(
    const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) const {
  util::StatusOr<Pools> pools = NodePools(node);
  if (!pools.ok()) return pools.status();
  const std::function<bool()> never;
  Search search(features_, allocated_, share_ids_, classes_, cel_cache_, node, claims, std::move(pools).value(), never);
  return search.Tally();
}

}  // namespace ksched::scheduler::dra
