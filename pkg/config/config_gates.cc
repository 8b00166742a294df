#include "pkg/config/config_gates.h"

#include <atomic>

namespace ksched::config {
namespace {

std::atomic<bool> storage_capacity_scoring{false};
std::atomic<bool> dra_binding_conditions{false};
std::atomic<int> schema_minor{ConfigGates{}.schema_minor};

}  // namespace

ConfigGates CurrentConfigGates() {
  return {storage_capacity_scoring.load(std::memory_order_relaxed), dra_binding_conditions.load(std::memory_order_relaxed),
          schema_minor.load(std::memory_order_relaxed)};
}

void SetConfigGates(const ConfigGates& gates) {
  storage_capacity_scoring.store(gates.storage_capacity_scoring, std::memory_order_relaxed);
  dra_binding_conditions.store(gates.dra_binding_conditions, std::memory_order_relaxed);
  schema_minor.store(gates.schema_minor, std::memory_order_relaxed);
}

}  // namespace ksched::config
