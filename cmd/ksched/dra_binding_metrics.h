// DraBindingMetrics: DynamicResources' binding-condition outcomes
// (scheduler/plugins/dynamicresources/binding_metrics.h) recorded in the
// server's SchedulerMetrics. Installed process-wide while it lives.
//
// Thread-safety: as SchedulerMetrics'.
#pragma once

#include "pkg/metrics/scheduler_metrics.h"
#include "pkg/scheduler/plugins/dynamicresources/binding_metrics.h"

namespace ksched::app {

class DraBindingMetrics final : public scheduler::dra::BindingConditionsMetrics {
 public:
  // `sink` must outlive this object.
  explicit DraBindingMetrics(metrics::SchedulerMetrics& sink) : sink_(sink) {
    scheduler::dra::SetBindingConditionsMetrics(this);
  }
  ~DraBindingMetrics() override { scheduler::dra::ClearBindingConditionsMetrics(this); }
  DraBindingMetrics(const DraBindingMetrics&) = delete;
  DraBindingMetrics& operator=(const DraBindingMetrics&) = delete;

  void ObserveWait(std::string_view profile, std::string_view driver, std::string_view outcome,
                   double seconds) override {
    sink_.ObserveDraBindingConditionsWait(profile, driver, outcome, seconds);
  }
  void CountAllocation(std::string_view profile, std::string_view driver, std::string_view outcome) override {
    sink_.CountDraBindingConditionsAllocation(profile, driver, outcome);
  }

 private:
  metrics::SchedulerMetrics& sink_;
};

}  // namespace ksched::app
