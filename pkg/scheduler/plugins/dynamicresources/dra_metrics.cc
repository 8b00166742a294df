#include "pkg/scheduler/plugins/dynamicresources/dra_metrics.h"

#include <atomic>

namespace ksched::scheduler::dra {
namespace {

std::atomic<DraMetrics*> installed_dra_metrics{nullptr};

}  // namespace

void SetDraMetrics(DraMetrics* metrics) { installed_dra_metrics.store(metrics); }

void ClearDraMetrics(DraMetrics* metrics) {
  installed_dra_metrics.compare_exchange_strong(metrics, nullptr);
}

DraMetrics* CurrentDraMetrics() { return installed_dra_metrics.load(); }

}  // namespace ksched::scheduler::dra
