// Allocator: DRA's structured-parameters allocation (kube's
// k8s.io/dynamic-resource-allocation/structured: v1.34's "experimental"
// allocator, which v1.34's defaults pick, with what later minors changed
// behind AllocatorFeatures; partitionable devices as v1.37's "incubating"
// allocator has them, consumable capacity as its 1.36/1.37 has it, and
// binding conditions as its incubating allocator has them).
// Given the claims a pod still needs allocated, one node, the published
// ResourceSlices, the DeviceClasses and the devices already taken, it finds
// the first allocation, in kube's search order, that gives every claim its
// devices on that node:
//   - devices come from pools the node reaches (slice nodeName, nodeSelector
//     or allNodes; with partitionable devices also the device's own, see
//     pools.h); of each pool only the slices of its newest generation
//     count. A pool missing some of its resourceSliceCount slices is still
//     used, except by an All request, which then fails with an error (as
//     kube's); a pool naming one device twice is an error once searched.
//     With `skip_unusable_pools` (kube 1.35 on) pools are counted over all
//     their slices (GatherPools' whole_pool_counts), incomplete and invalid
//     pools give no device, and a search that fails having met an invalid
//     pool ends with kUnavailable "invalid resource pools were
//     encountered" (no allocation on this node, not a broken claim);
//   - a device is free unless taken (`allocated`, which callers fill with
//     the devices of allocated and in-flight claims) or picked for an
//     earlier request of this call; an adminAccess request may take taken
//     devices, but not one picked for its own claim;
//   - a device that consumes counters is taken only with
//     `partitionable_devices`, and only while no counter of its pool would
//     be over-consumed by it, the devices already allocated (`allocated`)
//     and those picked earlier in this call;
//   - with `consumable_capacity`, every candidate device must have room
//     for the request's capacity requests (capacity.h: rounded per the
//     device's request policy, summed with what allocated claims and this
//     call's earlier picks consumed); a device with
//     allowMultipleAllocations is never taken: it serves any number of
//     requests and claims while its capacity lasts (one request takes it
//     at most once: a request's devices come in slice order, as kube's
//     search resumes after the previous pick), each result getting a fresh
//     shareID and its consumedCapacity;
//     its counters are charged by its first share only. distinctAttribute
//     constraints: every device of the named requests has the attribute,
//     each with a different value. Without it, a request with capacity
//     requests is an error when `capacity_known_when_off` (kube 1.36 on,
//     whose allocator also applies distinctAttribute then) and ignored
//     otherwise (kube 1.35, to which distinctAttribute is an empty
//     constraint, an error), and every device is exclusive;
//   - with `device_taints`, a device with a NoSchedule or NoExecute taint
//     (its slice's, or a DeviceTaintRule's patched in by the caller) that
//     the request does not tolerate is not taken;
//   - a device with bindingConditions is taken only with
//     `binding_conditions`; then pools that have such a device are searched
//     after all other pools (in (driver, pool) order among themselves), the
//     results copy the device's bindingConditions and
//     bindingFailureConditions, and a device with bindsToNode pins the
//     allocation to the node (as a node-local device does);
//   - the class's selectors, then the request's, must all be true (pkg/cel);
//     a selector that does not compile or fails at run time is an error for
//     the whole call, never a silent mismatch;
//   - ExactCount takes `count` devices, All every matching device of the
//     node's pools (at least one); firstAvailable tries its subrequests in
//     order and keeps the first that works; a claim gets at most 32
//     devices: a path over that stops the search back to the nearest
//     firstAvailable request, which tries its next subrequest, or claim
//     boundary; when the first claim cannot stay under it, the call fails
//     with kube's error "allocation max size exceeded";
//   - matchAttribute constraints: every device of the named requests (all
//     requests when none are named) has the attribute, with one value;
//   - the search is depth first and backtracks (the first full solution
//     wins), claims in the given order, requests in claim order, pools in
//     (driver, pool) order, devices in slice order;
//   - two quirks of kube v1.34's allocator for All subrequests are kept
//     while `all_subrequest_quirks` says so (kube 1.34, 1.35), since they
//     decide verdicts: when a
//     request's first two subrequests are both All, the second takes the
//     first's devices (kube selects it under the first's cache key), and
//     once an All subrequest has its first device the search goes on as
//     the request's first subrequest.
// The result per claim has the device results, the class and claim
// configuration in kube's order, and a node selector (metadata.name for a
// node-local slice, a nodeSelector's requirements, none for allNodes).
//
// Kube iterates pools in map order, so when several pools could serve a
// request it may pick another one; ksched's order is deterministic.
//
// Thread-safety: an Allocator is immutable after construction; Allocate
// may run concurrently for different nodes (the CEL cache and the claims'
// request table lock).
// Complexity: exponential in the worst case, like kube's (a backtracking
// search); linear in the devices for the usual claims.
#pragma once

#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"
#include "pkg/scheduler/plugins/dynamicresources/capacity.h"
#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"
#include "pkg/scheduler/plugins/dynamicresources/claim_requests.h"
#include "pkg/scheduler/plugins/dynamicresources/pool_cache.h"
#include "pkg/scheduler/plugins/dynamicresources/pools.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// resource.k8s.io/v1's AllocationResultsMaxSize.
inline constexpr size_t kAllocationResultsMaxSize = 32;

// A fresh shareID for each share; must be thread-safe.
using ShareIdSource = std::function<std::string()>;

// A random RFC 4122 version-4 UUID string (kube's uuid.NewUUID).
std::string RandomShareId();

struct AllocatorFeatures {
  bool admin_access = true;      // DRAAdminAccess, beta and on in v1.34
  bool prioritized_list = true;  // DRAPrioritizedList, beta and on in v1.34
  // kube 1.34 and 1.35's two quirks for All subrequests (above); kube 1.36
  // fixed both (FeatureGates::dra_all_subrequest_fixes).
  bool all_subrequest_quirks = true;
  // kube 1.35's handling of incomplete and invalid pools (above;
  // FeatureGates::dra_skip_unusable_pools).
  bool skip_unusable_pools = false;
  // DRADeviceTaints (FeatureGates::dra_device_taints): a device with a
  // NoSchedule or NoExecute taint the request does not tolerate is not
  // taken (an All request over it fails); the results carry the request's
  // tolerations whatever this says, as kube's.
  bool device_taints = false;
  // DRAPartitionableDevices (FeatureGates::dra_partitionable_devices):
  // shared counters, counter consumption and per-device node selection
  // (pools.h); without it their slices are ignored and devices that
  // consume counters are never taken.
  bool partitionable_devices = false;
  // GatherOptions::counter_slices_reach_every_node (kube 1.35 and 1.36;
  // !FeatureGates::dra_counter_slices_by_node_selection).
  bool counter_slices_reach_every_node = false;
  // DRAConsumableCapacity (FeatureGates::dra_consumable_capacity), above.
  bool consumable_capacity = false;
  // With it off: capacity requests are an error and distinctAttribute
  // applies, as kube 1.36's allocator has it
  // (FeatureGates::dra_incubating_knows_capacity); kube 1.35's ignores
  // capacity requests and knows no distinctAttribute.
  bool capacity_known_when_off = false;
  // FeatureGates::dra_consumable_capacity_fixes (kube 1.37): an All request's
  // devices are picked by their whole capacity, and unrepresentable or
  // negative consumptions are errors.
  bool static_capacity_for_all = false;
  // The same switch: distinctAttribute compares every device's value; off,
  // kube 1.36's constraint, which keeps one value per request (the last
  // device's) and forgets the request's value when any of its devices is
  // removed.
  bool distinct_per_device = false;
  // DRADeviceBindingConditions with DRAResourceClaimDeviceStatus
  // (FeatureGates::DraBindingConditions()), above.
  bool binding_conditions = false;
};

// How the devices a node reaches stand for one request (what `ksched
// simulate --explain` shows for a node DynamicResources rejected, through
// DynamicResources::TallyDevices): each device looked at alone, against
// what allocated claims hold, not against what the search would pick for
// the pod's other requests (constraints and this pod's own picks are not
// counted).
struct RequestDeviceTally {
  std::string claim;    // "namespace/name"
  std::string request;  // "req", or "req/sub" for a firstAvailable subrequest
  int reachable = 0;    // devices of the node's pools that reach the node
  int usable = 0;
  std::map<std::string, int> skipped;  // the first reason a device is not usable -> devices
};

// The devices a search picked for each claim on one node, kept in the
// search's own terms until they are asked for: building AllocationResults
// (strings, node selectors, configuration) costs about what the search
// does, and Filter finds an allocation on every feasible node while only
// the chosen node's is written. Immutable and thread-safe; copies share
// their data, which holds the claims, slices and classes it points into.
class NodeAllocation {
 public:
  struct State;  // defined in allocator.cc
  explicit NodeAllocation(std::shared_ptr<const State> state) : state_(std::move(state)) {}

  // One AllocationResult per claim, in order. Each call draws fresh share
  // ids for the shares of multi-allocatable devices.
  std::vector<api::AllocationResult> Build() const;
  // The requests ("req", or "req/sub" for a subrequest) that claim
  // `claim`'s devices serve, in result order.
  std::vector<std::string> Requests(size_t claim) const;
  size_t claims() const;

 private:
  std::shared_ptr<const State> state_;
};

class Allocator {
 public:
  // `cel_cache` must outlive the allocator; it may be shared.
  Allocator(AllocatorFeatures features, const std::set<DeviceId>& allocated, DeviceClassLookup classes,
            std::vector<std::shared_ptr<const api::ResourceSlice>> slices, CelCache& cel_cache);
  // `share_ids` null: RandomShareId.
  Allocator(AllocatorFeatures features, AllocatedState allocated, DeviceClassLookup classes,
            std::vector<std::shared_ptr<const api::ResourceSlice>> slices, CelCache& cel_cache,
            ShareIdSource share_ids = nullptr);
  // Over slices whose pools per node a PoolCache keeps between cycles.
  Allocator(AllocatorFeatures features, AllocatedState allocated, DeviceClassLookup classes,
            std::shared_ptr<const SlicePools> slices, CelCache& cel_cache, ShareIdSource share_ids = nullptr);

  // The allocation of every claim on `node`; nullopt when the claims
  // cannot all be allocated there; an error (InvalidArgument, naming the claim
  // and request or the class) when a claim, class or pool is unusable: a
  // missing class, a bad selector, an unsupported allocation mode, a
  // disabled feature, an All request over an incomplete pool, a constraint
  // an All request breaks, too many devices (see above), ...
  // `stop`, when set, is asked at the search's first step and every 64
  // devices it considers; once it answers true the search ends with
  // kDeadlineExceeded (the plugin's filterTimeout).
  util::StatusOr<std::optional<NodeAllocation>> Allocate(
      const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
      const std::function<bool()>& stop = {}) const;
  // Whether Allocate would find an allocation (with Allocate's errors),
  // without keeping it.
  util::StatusOr<bool> Fits(const api::Node& node,
                            const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                            const std::function<bool()>& stop = {}) const;

  // Per request of `claims` (each subrequest of a firstAvailable request),
  // the node's devices by the first reason each cannot serve it, in the
  // allocator's order of checks: its pool invalid or (kube 1.35 on)
  // incomplete, binding conditions with the feature off, not selected by
  // the class's or the request's selectors, allocated, not enough capacity
  // left, counters (partitionable devices off, or used up), a taint the
  // request does not tolerate. The same errors as Allocate's for an
  // unusable claim or class.
  util::StatusOr<std::vector<RequestDeviceTally>> Tally(
      const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims) const;

 private:
  // The pools `node` reaches, in the search's order.
  util::StatusOr<Pools> NodePools(const api::Node& node) const;
  // The search on `node`: whether it found an allocation, which goes to
  // `*found` unless `found` is null.
  util::StatusOr<bool> Run(const api::Node& node, const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                           const std::function<bool()>& stop, std::optional<NodeAllocation>* found) const;

  AllocatorFeatures features_;
  AllocatedState allocated_;
  ShareIdSource share_ids_;
  std::shared_ptr<const SlicePools> slices_;  // never null
  CelCache& cel_cache_;
  // Shared by the node searches of the allocator's cycle; never null.
  std::shared_ptr<ClaimRequestTable> requests_;
};

}  // namespace ksched::scheduler::dra
