// DraMetrics: where DynamicResources' PreBind reports what kube's DRA
// metrics count: how waits for binding conditions ended
// (scheduler_dra_bindingconditions_wait_duration_seconds and
// scheduler_dra_bindingconditions_allocations_total, from 1.36; outcomes
// are dra::kBindingOutcome*) and the ResourceClaims it creates for extended
// resources (scheduler_resourceclaim_creates_total in 1.36,
// dynamic_resource_allocation_resourceclaim_creates_total from 1.37).
//
// Process-wide, as kube's metrics registry is: the scheduler that owns the
// metrics installs its sink at start and removes it when it stops; without
// one nothing is recorded.
//
// Thread-safety: implementations must be thread-safe; the installed
// pointer is read and written atomically.
#pragma once

#include <string_view>

namespace ksched::scheduler::dra {

class DraMetrics {
 public:
  virtual ~DraMetrics() = default;
  // Once per allocated device of the pod's claims (all of them, as kube's).
  virtual void ObserveWait(std::string_view profile, std::string_view driver, std::string_view outcome,
                           double seconds) = 0;
  // Once per allocated device with binding conditions.
  virtual void CountAllocation(std::string_view profile, std::string_view driver, std::string_view outcome) = 0;
  // Once per create request of an extended-resource claim.
  virtual void CountClaimCreate(bool success) = 0;
};

// `metrics` must outlive its installation; nullptr uninstalls.
void SetDraMetrics(DraMetrics* metrics);
// Uninstalls `metrics` if it is the one installed.
void ClearDraMetrics(DraMetrics* metrics);
DraMetrics* CurrentDraMetrics();

}  // namespace ksched::scheduler::dra
