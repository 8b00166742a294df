#include "pkg/scheduler/plugins/dynamicresources/binding_metrics.h"

#include <atomic>

namespace ksched::scheduler::dra {
namespace {

std::atomic<BindingConditionsMetrics*> installed_binding_metrics{nullptr};

}  // namespace

void SetBindingConditionsMetrics(BindingConditionsMetrics* metrics) { installed_binding_metrics.store(metrics); }

void ClearBindingConditionsMetrics(BindingConditionsMetrics* metrics) {
  installed_binding_metrics.compare_exchange_strong(metrics, nullptr);
}

BindingConditionsMetrics* CurrentBindingConditionsMetrics() { return installed_binding_metrics.load(); }

}  // namespace ksched::scheduler::dra
