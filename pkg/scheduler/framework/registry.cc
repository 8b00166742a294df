#include "pkg/scheduler/framework/registry.h"

#include <utility>

namespace ksched::scheduler::framework {

util::Status Registry::Register(std::string name, PluginFactory factory) {
  if (factories_.count(name) > 0) {
    return util::Status(util::StatusCode::kAlreadyExists, "a plugin named " + name + " already exists");
  }
  factories_.emplace(std::move(name), std::move(factory));
  return util::Status();
}

util::Status Registry::Unregister(std::string_view name) {
  auto it = factories_.find(name);
  if (it == factories_.end()) return util::NotFound("no plugin named " + std::string(name) + " exists");
  factories_.erase(it);
  return util::Status();
}

util::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, f] : other.factories_) {
    if (factories_.count(name) > 0) {
      return util::Status(util::StatusCode::kAlreadyExists, "a plugin named " + name + " already exists");
    }
  }
  for (const auto& [name, f] : other.factories_) factories_.emplace(name, f);
  return util::Status();
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  out.reserve(factories_.size());
  for (const auto& [name, f] : factories_) out.push_back(name);
  return out;
}

}  // namespace ksched::scheduler::framework
