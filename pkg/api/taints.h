// Taints and tolerations, as k8s.io/api/core/v1 (toleration.go, taint.go)
// and k8s.io/component-helpers v1helper define their matching.
//
// A toleration tolerates a taint when:
//   1. its effect is empty (all effects) or equals the taint's effect,
//   2. its key is empty (all keys) or equals the taint's key, and
//   3. its operator is "Exists" (any value), or "Equal"/empty and its value
//      equals the taint's value. Any other operator tolerates nothing.
//
// Pure functions over immutable inputs; safe to call concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::api {

inline constexpr std::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kTaintEffectNoExecute = "NoExecute";

inline constexpr std::string_view kTolerationOpEqual = "Equal";
inline constexpr std::string_view kTolerationOpExists = "Exists";

// Well-known taint keys the node lifecycle controller and kubelet set.
inline constexpr std::string_view kTaintNodeNotReady = "node.kubernetes.io/not-ready";
inline constexpr std::string_view kTaintNodeUnreachable = "node.kubernetes.io/unreachable";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";
inline constexpr std::string_view kTaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure";
inline constexpr std::string_view kTaintNodeDiskPressure = "node.kubernetes.io/disk-pressure";
inline constexpr std::string_view kTaintNodePIDPressure = "node.kubernetes.io/pid-pressure";
inline constexpr std::string_view kTaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable";

// Which taints a check considers; an empty function includes every taint.
using TaintFilter = std::function<bool(const Taint&)>;

bool ToleratesTaint(const Toleration& toleration, const Taint& taint);
// True if any of the tolerations tolerates the taint.
bool TolerationsTolerateTaint(const std::vector<Toleration>& tolerations, const Taint& taint);
// The first taint that passes `filter` and that no toleration tolerates, or
// nullptr when all of them are tolerated. The pointer is into `taints`.
const Taint* FindMatchingUntoleratedTaint(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations,
                                          const TaintFilter& filter);

// The TaintToleration Filter's selection: NoSchedule and NoExecute taints.
bool IsNoScheduleOrNoExecute(const Taint& taint);
// The TaintToleration Score input: PreferNoSchedule taints not tolerated by
// a toleration whose effect is empty or PreferNoSchedule.
int64_t CountIntolerableTaintsPreferNoSchedule(const std::vector<Taint>& taints,
                                               const std::vector<Toleration>& tolerations);

// Same key and effect: a node holds at most one taint per (key, effect).
bool TaintsMatch(const Taint& a, const Taint& b);
// As kube's Taint.ToString: "key=value:effect", "key:effect", "key=value:"
// or "key".
std::string TaintToString(const Taint& taint);

}  // namespace ksched::api
