#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"

#include <utility>

namespace ksched::scheduler::dra {

CelCache::Compiled CelCache::GetOrCompile(std::string_view expression) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = programs_.find(expression);
    if (it != programs_.end()) return it->second;
  }
  auto compiled = std::make_shared<const util::StatusOr<cel::Program>>(cel::Program::Compile(expression, options_));
  std::lock_guard<std::mutex> lock(mu_);
  return programs_.try_emplace(std::string(expression), std::move(compiled)).first->second;
}

size_t CelCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return programs_.size();
}

cel::Device ToCelDevice(const std::string& driver, const api::Device& device) {
  cel::Device out;
  out.driver = driver;
  for (const auto& [name, value] : device.attributes) {
    if (value.int_value) {
      out.attributes.emplace(name, cel::DeviceAttribute::Int(*value.int_value));
    } else if (value.bool_value) {
      out.attributes.emplace(name, cel::DeviceAttribute::Bool(*value.bool_value));
    } else if (value.string_value) {
      out.attributes.emplace(name, cel::DeviceAttribute::String(*value.string_value));
    } else if (value.version_value) {
      out.attributes.emplace(name, cel::DeviceAttribute::Version(*value.version_value));
    }
  }
  out.allow_multiple_allocations = device.allow_multiple_allocations;
  for (const auto& [name, capacity] : device.capacity) out.capacity.emplace(name, capacity.value);
  return out;
}

}  // namespace ksched::scheduler::dra
