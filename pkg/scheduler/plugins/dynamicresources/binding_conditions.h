// Binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus): what DynamicResources reads from an
// allocated claim to decide whether its pod may bind yet, as kube's
// DynamicResources reads it.
//
// An allocated device result with bindingConditions is ready once the
// claim's status.devices entry for that (driver, pool, device) has every one
// of them with status True; it has failed once any of its
// bindingFailureConditions is True there. A claim is ready when all its
// results are (results without conditions always are); it has timed out
// when it is not ready, has such a result, and its allocationTimestamp is
// more than the plugin's bindingTimeout ago.
//
// Thread-safety: free functions over immutable claims.
#pragma once

#include <string>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::dra {

// Error texts (kube's ErrDeviceBindingFailed, ErrDeviceBindingTimeout).
inline constexpr std::string_view kErrDeviceBindingFailed = "device binding failed";
inline constexpr std::string_view kErrDeviceBindingTimeout = "device binding timeout";

// True when ready; false while waiting; an error (kInternal,
// "device binding failed: claim=<name>, reason=<r>, message=\"<m>\"") when
// a failure condition is True. An unallocated claim is not ready.
util::StatusOr<bool> ClaimReadyForBinding(const api::ResourceClaim& claim);

// Whether the claim has waited longer than `timeout` since its
// allocationTimestamp (false without one, or without binding conditions).
bool ClaimBindingTimedOut(const api::ResourceClaim& claim, util::Duration timeout, util::WallTime now);

// Both checks at `now`, as DynamicResources makes them: true when ready,
// false while waiting, ClaimReadyForBinding's error when a failure condition
// is True, and kDeadlineExceeded ("device binding timeout: claim=<name>")
// when it has waited longer than `timeout`.
util::StatusOr<bool> CheckClaimBinding(const api::ResourceClaim& claim, util::Duration timeout, util::WallTime now);

// Whether any allocated result of the claim has binding conditions.
bool HasBindingConditions(const api::ResourceClaim& claim);

// Per allocated device with binding conditions: those not yet True
// (all of them while the device has no status) and the failure conditions
// that are True.
struct BindingConditionsStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::vector<std::string> pending;
  std::vector<std::string> failed;
};
std::vector<BindingConditionsStatus> ListBindingConditionsStatus(const api::ResourceClaim& claim);

// The outcome labels of kube's binding-conditions metrics.
inline constexpr std::string_view kBindingOutcomeSuccess = "success";
inline constexpr std::string_view kBindingOutcomeFailed = "failure";
inline constexpr std::string_view kBindingOutcomeTimeout = "timeout";
inline constexpr std::string_view kBindingOutcomeError = "error";

// The devices that explain `outcome` (success: those with nothing pending
// or failed; failed: those with a True failure condition, failed ones only;
// otherwise those still pending without failure), as kube logs them:
// "<driver=d, pool=p> dev failed=[a,b] pending=[c]", joined by "; ".
std::string FormatBindingConditionsStatus(const std::vector<BindingConditionsStatus>& devices,
                                          std::string_view outcome);

}  // namespace ksched::scheduler::dra
