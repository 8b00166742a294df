#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"

#include <algorithm>
#include <utility>

namespace ksched::scheduler::dra {

CelCache::Compiled CelCache::GetOrCompile(std::string_view expression) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = programs_.find(expression);
    if (it != programs_.end()) return it->second;
  }
  auto compiled = std::make_shared<const util::StatusOr<cel::Program>>(cel::Program::Compile(expression, options_));
  std::lock_guard<std::shared_mutex> lock(mu_);
  return programs_.try_emplace(std::string(expression), std::move(compiled)).first->second;
}

size_t CelCache::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return programs_.size();
}

std::optional<bool> CelCache::Recall(const Compiled& program, const std::shared_ptr<const api::ResourceSlice>& slice,
                                     const api::Device& device, bool variant) const {
  std::shared_lock<std::shared_mutex> lock(verdicts_mu_);
  auto it = verdicts_.find(VerdictKey{program.get(), &device, variant});
  if (it == verdicts_.end() || it->second.slice.lock() != slice) return std::nullopt;
  return it->second.matches;
}

void CelCache::Remember(const Compiled& program, const std::shared_ptr<const api::ResourceSlice>& slice,
                        const api::Device& device, bool variant, bool matches) {
  std::lock_guard<std::shared_mutex> lock(verdicts_mu_);
  verdicts_[VerdictKey{program.get(), &device, variant}] = Verdict{slice, matches};
  if (verdicts_.size() < sweep_at_) return;
  std::erase_if(verdicts_, [](const auto& entry) { return entry.second.slice.expired(); });
  sweep_at_ = std::max<size_t>(4096, 2 * verdicts_.size());
}

util::StatusOr<bool> CelCache::Evaluate(const Compiled& program,
                                        const std::shared_ptr<const api::ResourceSlice>* slice,
                                        const std::string& driver, const api::Device& device, bool hide_multiple,
                                        std::optional<cel::Device>& cel_device) {
  if (slice != nullptr) {
    if (std::optional<bool> known = Recall(program, *slice, device, hide_multiple)) return *known;
  }
  if (!cel_device) {
    cel_device = ToCelDevice(driver, device);
    if (hide_multiple) cel_device->allow_multiple_allocations.reset();
  }
  util::StatusOr<bool> matches = (*program)->Matches(*cel_device);
  if (matches.ok() && slice != nullptr) Remember(program, *slice, device, hide_multiple, *matches);
  return matches;
}

size_t CelCache::remembered() const {
  std::shared_lock<std::shared_mutex> lock(verdicts_mu_);
  return verdicts_.size();
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
