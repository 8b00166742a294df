// Device taints (DRA): whether a request's tolerations let it take a
// tainted device, and how DeviceTaintRules add their taint to the devices
// of ResourceSlices, as k8s.io/dynamic-resource-allocation's resourceclaim
// and resourceslice/tracker packages define them.
//
//   - a toleration tolerates a taint with the rules of node taints: its
//     effect empty or equal, its key empty or equal, and operator Exists or
//     Equal (empty) with an equal value;
//   - only NoSchedule and NoExecute taints keep a device from being
//     allocated; None and unknown effects are ignored;
//   - a DeviceTaintRule selects the devices whose driver, pool and name
//     equal the selector's fields that are set (a rule without a selector
//     selects nothing); its taint is appended to each selected device's
//     taints, rules in the order given.
//
// Pure functions over immutable inputs; safe to call concurrently.
#pragma once

#include <memory>
#include <vector>

#include "pkg/api/resource_types.h"

namespace ksched::api {

bool DeviceTolerates(const DeviceToleration& toleration, const DeviceTaint& taint);

// Whether some NoSchedule or NoExecute taint of `device` is tolerated by
// none of `tolerations`.
bool DeviceTaintPreventsAllocation(const Device& device, const std::vector<DeviceToleration>& tolerations);

// Whether `rule` taints at least one device of `slice`.
bool DeviceTaintRuleSelectsAny(const DeviceTaintRule& rule, const ResourceSlice& slice);

// `slices` with every rule's taint added to the devices it selects. Slices
// no rule touches are returned as they are (shared); the others are copies.
// O(rules × devices).
std::vector<std::shared_ptr<const ResourceSlice>> ApplyDeviceTaintRules(
    const std::vector<std::shared_ptr<const ResourceSlice>>& slices,
    const std::vector<std::shared_ptr<const DeviceTaintRule>>& rules);

}  // namespace ksched::api
