#include "pkg/scheduler/framework/device_class_resolver.h"

#include <algorithm>
#include <utility>

#include "pkg/api/pod_helpers.h"

namespace ksched::scheduler::framework {

ExtendedResourceClasses::ExtendedResourceClasses(const std::vector<std::shared_ptr<const api::DeviceClass>>& classes) {
  // Explicit names: the oldest class wins, then the smallest name.
  auto older = [](const api::DeviceClass& a, const api::DeviceClass& b) {
    const api::Time ta = a.metadata.creation_timestamp.value_or(api::Time::min());
    const api::Time tb = b.metadata.creation_timestamp.value_or(api::Time::min());
    if (ta != tb) return ta < tb;
    return a.metadata.name < b.metadata.name;
  };
  for (const std::shared_ptr<const api::DeviceClass>& c : classes) {
    if (c == nullptr) continue;
    if (c->spec.extended_resource_name && !c->spec.extended_resource_name->empty()) {
      auto [it, inserted] = by_resource_.try_emplace(*c->spec.extended_resource_name, c);
      if (!inserted && older(*c, *it->second)) it->second = c;
    }
  }
  // Implicit names cannot collide with each other; an explicit name equal
  // to another class's implicit name is overwritten by it, as kube's cache
  // writes the implicit name last.
  for (const std::shared_ptr<const api::DeviceClass>& c : classes) {
    if (c == nullptr) continue;
    by_resource_[std::string(api::kDeviceClassExtendedResourcePrefix) + c->metadata.name] = c;
  }
}

const api::DeviceClass* ExtendedResourceClasses::Lookup(std::string_view resource_name) const {
  auto it = by_resource_.find(resource_name);
  return it == by_resource_.end() ? nullptr : it->second.get();
}

bool IsDraExtendedResourceName(std::string_view name) {
  return api::IsExtendedResourceName(name) || name.starts_with(api::kDeviceClassExtendedResourcePrefix);
}

DeviceClassResolver::DeviceClassResolver(const ObjectLister<api::DeviceClass>& classes) : classes_(classes) {}

std::shared_ptr<const ExtendedResourceClasses> DeviceClassResolver::Snapshot() const {
  std::vector<std::shared_ptr<const api::DeviceClass>> now = classes_.List();
  std::lock_guard<std::mutex> l(mu_);
  if (snapshot_ == nullptr || now != last_) {
    snapshot_ = std::make_shared<const ExtendedResourceClasses>(now);
    last_ = std::move(now);
  }
  return snapshot_;
}

}  // namespace ksched::scheduler::framework
