#include "pkg/scheduler/plugins/dynamicresources/tainted_slices.h"

#include <utility>

#include "pkg/api/device_taints.h"

namespace ksched::scheduler::dra {

TaintedSlices::Slices TaintedSlices::Get(Slices slices, Rules rules) {
  std::lock_guard<std::mutex> lock(mu_);
  // Informer objects are immutable and replaced on every change, so equal
  // pointers mean equal content.
  if (slices != slices_ || rules != rules_) {
    patched_ = api::ApplyDeviceTaintRules(slices, rules);
    slices_ = std::move(slices);
    rules_ = std::move(rules);
  }
  return patched_;
}

}  // namespace ksched::scheduler::dra
