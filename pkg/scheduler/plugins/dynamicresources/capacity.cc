#include "pkg/scheduler/plugins/dynamicresources/capacity.h"

#include <cstdint>
#include <limits>

namespace ksched::scheduler::dra {

namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

util::Status NotRepresentable(const std::string& name, const std::string& why) {
  return util::InvalidArgument("capacity \"" + name +
                               "\": capacity request cannot be represented in the device's range arithmetic: " + why);
}

// kube's roundUpRange on int64 values (Quantity::Value rounds up).
util::StatusOr<api::Quantity> RoundUpRange(const std::string& name, const api::Quantity& requested,
                                           const api::CapacityRequestPolicyRange& range, bool strict) {
  if (requested.Cmp(*range.min) < 0) return *range.min;
  if (!range.step) return requested;
  if (strict && requested.Cmp(api::Quantity::FromInt(kMaxInt64)) > 0) {
    return NotRepresentable(name, "request " + requested.ToString() + " exceeds MaxInt64");
  }
  const int64_t request = requested.Value();
  const int64_t step = range.step->Value();
  const int64_t min = range.min->Value();
  if (step <= 0) return requested;  // refused by API validation; no division by zero here
  const int64_t added = request - min;
  int64_t n = added / step;
  if (added % step != 0) ++n;
  if (min >= 0 && n > (kMaxInt64 - min) / step) {
    if (strict) return NotRepresentable(name, "rounding request " + requested.ToString() + " up to the next step passes MaxInt64");
    n = (kMaxInt64 - min) / step;
  }
  return api::Quantity::FromInt(min + step * n, range.step->format());
}

api::Quantity RoundUpValidValues(const api::Quantity& requested, const std::vector<api::Quantity>& values) {
  for (const api::Quantity& v : values) {
    if (requested.Cmp(v) <= 0) return v;
  }
  return requested;
}

// `value`: the capacity's value, parsed.
util::StatusOr<api::Quantity> ConsumedOne(const std::string& name, const api::Quantity* requested,
                                          const api::DeviceCapacity& capacity, const api::Quantity& value,
                                          bool strict) {
  const std::optional<api::CapacityRequestPolicy>& policy = capacity.request_policy;
  if (requested == nullptr) {
    if (policy && policy->default_value) return *policy->default_value;
    return value;
  }
  if (!policy) return *requested;
  if (policy->valid_range && policy->valid_range->min) {
    return RoundUpRange(name, *requested, *policy->valid_range, strict);
  }
  if (!policy->valid_values.empty()) return RoundUpValidValues(*requested, policy->valid_values);
  return *requested;
}

bool ViolatesPolicy(const api::Quantity& consumed, const std::optional<api::CapacityRequestPolicy>& policy) {
  if (!policy) return false;
  if (policy->default_value && consumed.Cmp(*policy->default_value) == 0) return false;
  if (policy->valid_range) {
    const api::CapacityRequestPolicyRange& range = *policy->valid_range;
    if (range.max && consumed.Cmp(*range.max) > 0) return true;
    if (range.step) {
      const int64_t step = range.step->Value();
      const int64_t min = range.min ? range.min->Value() : 0;
      if (step != 0 && (consumed.Value() - min) % step != 0) return true;
    }
    return false;
  }
  if (!policy->valid_values.empty()) {
    for (const api::Quantity& v : policy->valid_values) {
      if (consumed.Cmp(v) == 0) return false;
    }
    return true;
  }
  return false;
}

const api::Quantity* Requested(const api::CapacityRequirements* request, const std::string& name) {
  if (request == nullptr) return nullptr;
  auto it = request->requests.find(name);
  return it == request->requests.end() ? nullptr : &it->second;
}

// What one allocation consumes of each capacity, in the order of
// device.capacity; every consumption is computed first, so that an error
// does not depend on which capacity would fail a fit first.
util::StatusOr<std::vector<api::Quantity>> ConsumedEach(const api::CapacityRequirements* request,
                                                        const api::Device& device,
                                                        const std::vector<api::Quantity>& values, bool strict) {
  std::vector<api::Quantity> consumed;
  consumed.reserve(device.capacity.size());
  size_t i = 0;
  for (const auto& [name, capacity] : device.capacity) {
    util::StatusOr<api::Quantity> q = ConsumedOne(name, Requested(request, name), capacity, values[i++], strict);
    if (!q.ok()) return q.status();
    if (strict && q->Sign() < 0) return util::InvalidArgument("capacity \"" + name + "\": capacity value is negative");
    consumed.push_back(*q);
  }
  return consumed;
}

// The device's capacity values: the caller's kept ones, or parsed into
// `scratch` when the caller keeps none.
const std::vector<api::Quantity>& ValuesOrParsed(const api::Device& device, const std::vector<api::Quantity>* values,
                                                 std::vector<api::Quantity>& scratch) {
  if (values != nullptr) return *values;
  scratch = CapacityValues(device);
  return scratch;
}

}  // namespace

bool WholeCapacityFits(const api::Device& device, const std::vector<api::Quantity>& values, bool strict) {
  size_t i = 0;
  for (const auto& [name, capacity] : device.capacity) {
    if (capacity.request_policy || (strict && values[i].Sign() < 0)) return false;
    ++i;
  }
  return true;
}

api::Quantity CapacityValue(const api::DeviceCapacity& capacity) {
  util::StatusOr<api::Quantity> q = api::Quantity::Parse(capacity.value);
  return q.ok() ? *q : api::Quantity();
}

std::vector<api::Quantity> CapacityValues(const api::Device& device) {
  std::vector<api::Quantity> out;
  out.reserve(device.capacity.size());
  for (const auto& [name, capacity] : device.capacity) out.push_back(CapacityValue(capacity));
  return out;
}

util::StatusOr<CapacityMap> ConsumedCapacity(const api::CapacityRequirements* request, const api::Device& device,
                                             bool strict, const std::vector<api::Quantity>* values) {
  std::vector<api::Quantity> scratch;
  util::StatusOr<std::vector<api::Quantity>> each =
      ConsumedEach(request, device, ValuesOrParsed(device, values, scratch), strict);
  if (!each.ok()) return each.status();
  CapacityMap consumed;
  size_t i = 0;
  for (const auto& [name, capacity] : device.capacity) consumed.emplace(name, (*each)[i++]);
  return consumed;
}

util::StatusOr<bool> CapacityFits(const api::CapacityRequirements* request, const api::Device& device,
                                  const CapacityMap* allocated, const CapacityMap* allocating, bool strict,
                                  const std::vector<api::Quantity>* values) {
  if (request != nullptr) {
    for (const auto& [name, amount] : request->requests) {
      if (device.capacity.count(name) == 0) return false;  // another device may have it
    }
  }
  std::vector<api::Quantity> scratch;
  const std::vector<api::Quantity>& device_values = ValuesOrParsed(device, values, scratch);
  if ((request == nullptr || request->requests.empty()) && allocated == nullptr && allocating == nullptr &&
      WholeCapacityFits(device, device_values, strict)) {
    return true;
  }
  util::StatusOr<std::vector<api::Quantity>> consumed = ConsumedEach(request, device, device_values, strict);
  if (!consumed.ok()) return consumed.status();
  size_t i = 0;
  for (const auto& [name, capacity] : device.capacity) {
    const api::Quantity& amount = (*consumed)[i];
    const api::Quantity& value = device_values[i];
    ++i;
    if (ViolatesPolicy(amount, capacity.request_policy)) return false;
    api::Quantity total = amount;
    for (const CapacityMap* other : {allocated, allocating}) {
      if (other == nullptr) continue;
      if (auto it = other->find(name); it != other->end()) total += it->second;
    }
    if (total.Cmp(value) > 0) return false;
  }
  return true;
}

}  // namespace ksched::scheduler::dra
