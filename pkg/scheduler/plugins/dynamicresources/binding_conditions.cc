#include "pkg/scheduler/plugins/dynamicresources/binding_conditions.h"

#include <algorithm>

#include "pkg/config/errors.h"

namespace ksched::scheduler::dra {
namespace {

const api::AllocatedDeviceStatus* StatusOf(const api::ResourceClaim& claim,
                                           const api::DeviceRequestAllocationResult& result) {
  for (const api::AllocatedDeviceStatus& s : claim.status.device_statuses) {
    if (s.driver == result.driver && s.pool == result.pool && s.device == result.device) return &s;
  }
  return nullptr;
}

const api::Condition* FindCondition(const api::AllocatedDeviceStatus& status, const std::string& type) {
  for (const api::Condition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsTrue(const api::AllocatedDeviceStatus& status, const std::string& type) {
  const api::Condition* c = FindCondition(status, type);
  return c != nullptr && c->status == "True";
}

}  // namespace

util::StatusOr<bool> ClaimReadyForBinding(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  for (const api::DeviceRequestAllocationResult& result : claim.status.allocation->devices.results) {
    if (result.binding_conditions.empty()) continue;
    const api::AllocatedDeviceStatus* status = StatusOf(claim, result);
    if (status == nullptr) return false;
    for (const std::string& type : result.binding_failure_conditions) {
      const api::Condition* c = FindCondition(*status, type);
      if (c != nullptr && c->status == "True") {
        return util::Status(util::StatusCode::kInternal, std::string(kErrDeviceBindingFailed) +
                                                             ": claim=" + claim.metadata.name + ", reason=" +
                                                             c->reason + ", message=" + config::Quote(c->message));
      }
    }
    for (const std::string& type : result.binding_conditions) {
      if (!IsTrue(*status, type)) return false;
    }
  }
  return true;
}

bool HasBindingConditions(const api::ResourceClaim& claim) {
  if (!claim.status.allocation) return false;
  const auto& results = claim.status.allocation->devices.results;
  return std::any_of(results.begin(), results.end(),
                     [](const api::DeviceRequestAllocationResult& r) { return !r.binding_conditions.empty(); });
}

bool ClaimBindingTimedOut(const api::ResourceClaim& claim, util::Duration timeout, util::WallTime now) {
  if (!claim.status.allocation || !claim.status.allocation->allocation_timestamp) return false;
  if (!HasBindingConditions(claim)) return false;
  return *claim.status.allocation->allocation_timestamp + timeout < now;
}

util::StatusOr<bool> CheckClaimBinding(const api::ResourceClaim& claim, util::Duration timeout, util::WallTime now) {
  util::StatusOr<bool> ready = ClaimReadyForBinding(claim);
  if (!ready.ok() || *ready) return ready;
  if (ClaimBindingTimedOut(claim, timeout, now)) {
    return util::Status(util::StatusCode::kDeadlineExceeded,
                        std::string(kErrDeviceBindingTimeout) + ": claim=" + claim.metadata.name);
  }
  return false;
}

std::vector<BindingConditionsStatus> ListBindingConditionsStatus(const api::ResourceClaim& claim) {
  std::vector<BindingConditionsStatus> out;
  if (!claim.status.allocation) return out;
  for (const api::DeviceRequestAllocationResult& result : claim.status.allocation->devices.results) {
    if (result.binding_conditions.empty()) continue;
    BindingConditionsStatus s{result.driver, result.pool, result.device, {}, {}};
    const api::AllocatedDeviceStatus* status = StatusOf(claim, result);
    if (status == nullptr) {
      s.pending = result.binding_conditions;
    } else {
      for (const std::string& type : result.binding_failure_conditions) {
        if (IsTrue(*status, type)) s.failed.push_back(type);
      }
      for (const std::string& type : result.binding_conditions) {
        if (!IsTrue(*status, type)) s.pending.push_back(type);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string FormatBindingConditionsStatus(const std::vector<BindingConditionsStatus>& devices,
                                          std::string_view outcome) {
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
    return out;
  };
  std::string out;
  for (const BindingConditionsStatus& d : devices) {
    bool show = false;
    bool show_pending = true;
    if (outcome == kBindingOutcomeSuccess) {
      show = d.failed.empty() && d.pending.empty();
    } else if (outcome == kBindingOutcomeFailed) {
      show = !d.failed.empty();
      show_pending = false;
    } else {
      show = !d.pending.empty() && d.failed.empty();
    }
    if (!show) continue;
    std::string line = "<driver=" + d.driver + ", pool=" + d.pool + "> " + d.device;
    if (!d.failed.empty()) line += " failed=[" + join(d.failed) + "]";
    if (show_pending && !d.pending.empty()) line += " pending=[" + join(d.pending) + "]";
    out += (out.empty() ? "" : "; ") + line;
  }
  return out;
}

}  // namespace ksched::scheduler::dra
