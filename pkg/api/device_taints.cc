#include "pkg/api/device_taints.h"

#include <string>

namespace ksched::api {
namespace {

// Whether the rule's selector reaches the slice's driver and pool.
bool SelectsPoolOf(const DeviceTaintRule& rule, const ResourceSlice& slice) {
  const std::optional<DeviceTaintSelector>& sel = rule.spec.device_selector;
  if (!sel) return false;
  if (sel->driver && *sel->driver != slice.spec.driver) return false;
  if (sel->pool && *sel->pool != slice.spec.pool.name) return false;
  return true;
}

bool SelectsDevice(const DeviceTaintSelector& sel, const Device& device) {
  return !sel.device || *sel.device == device.name;
}

}  // namespace

bool DeviceTolerates(const DeviceToleration& toleration, const DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.operator_.empty() || toleration.operator_ == "Equal") return toleration.value == taint.value;
  return toleration.operator_ == "Exists";
}

bool DeviceTaintPreventsAllocation(const Device& device, const std::vector<DeviceToleration>& tolerations) {
  for (const DeviceTaint& taint : device.taints) {
    if (taint.effect != kDeviceTaintEffectNoSchedule && taint.effect != kDeviceTaintEffectNoExecute) continue;
    bool tolerated = false;
    for (const DeviceToleration& t : tolerations) {
      if (DeviceTolerates(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

bool DeviceTaintRuleSelectsAny(const DeviceTaintRule& rule, const ResourceSlice& slice) {
  if (!SelectsPoolOf(rule, slice)) return false;
  for (const Device& d : slice.spec.devices) {
    if (SelectsDevice(*rule.spec.device_selector, d)) return true;
  }
  return false;
}

std::vector<std::shared_ptr<const ResourceSlice>> ApplyDeviceTaintRules(
    const std::vector<std::shared_ptr<const ResourceSlice>>& slices,
    const std::vector<std::shared_ptr<const DeviceTaintRule>>& rules) {
  if (rules.empty()) return slices;
  std::vector<std::shared_ptr<const ResourceSlice>> out;
  out.reserve(slices.size());
  for (const std::shared_ptr<const ResourceSlice>& slice : slices) {
    std::shared_ptr<ResourceSlice> patched;  // copied on the first match
    for (const std::shared_ptr<const DeviceTaintRule>& rule : rules) {
      if (!SelectsPoolOf(*rule, *slice)) continue;
      for (size_t i = 0; i < slice->spec.devices.size(); ++i) {
        if (!SelectsDevice(*rule->spec.device_selector, slice->spec.devices[i])) continue;
        if (!patched) patched = std::make_shared<ResourceSlice>(*slice);
        patched->spec.devices[i].taints.push_back(rule->spec.taint);
      }
    }
    out.push_back(patched ? std::shared_ptr<const ResourceSlice>(std::move(patched)) : slice);
  }
  return out;
}

}  // namespace ksched::api
