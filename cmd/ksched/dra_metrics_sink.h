// DraMetricsSink: DynamicResources' metrics (binding-condition outcomes,
// extended-resource claims created; scheduler/plugins/dynamicresources/dra_metrics.h)
// recorded in the server's SchedulerMetrics. Installed process-wide while it lives.
//
// Thread-safety: as SchedulerMetrics'.
#pragma once

#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/plugins/dynamicresources/dra_metrics.h"

namespace ksched::app {

class DraMetricsSink final : public scheduler::dra::DraMetrics {
 public:
  // `sink` must outlive this object.
  explicit DraMetricsSink(metrics::SchedulerMetrics& sink) : sink_(sink) {
    scheduler::dra::SetDraMetrics(this);
  }
  ~DraMetricsSink() override { scheduler::dra::ClearDraMetrics(this); }
  DraMetricsSink(const DraMetricsSink&) = delete;
  DraMetricsSink& operator=(const DraMetricsSink&) = delete;

  void ObserveWait(std::string_view profile, std::string_view driver, std::string_view outcome,
                   double seconds) override {
    sink_.ObserveDraBindingConditionsWait(profile, driver, outcome, seconds);
  }
  void CountAllocation(std::string_view profile, std::string_view driver, std::string_view outcome) override {
    sink_.CountDraBindingConditionsAllocation(profile, driver, outcome);
  }
  void CountClaimCreate(bool success) override { sink_.CountResourceClaimCreate(success); }

 private:
  metrics::SchedulerMetrics& sink_;
};

}  // namespace ksched::app
