#include "pkg/scheduler/framework/registry.h"

#include <utility>

namespace ksched::scheduler::framework {

util::Status Registry::Register(PluginRegistration registration) {
  if (plugins_.count(registration.name) > 0) {
    return util::Status(util::StatusCode::kAlreadyExists, "a plugin named " + registration.name + " already exists");
  }
  std::string name = registration.name;
  plugins_.emplace(std::move(name), std::move(registration));
  return util::Status();
}

util::Status Registry::Register(std::string name, PluginFactory factory) {
  return Register(PluginRegistration{std::move(name), std::move(factory), nullptr});
}

util::Status Registry::Unregister(std::string_view name) {
  auto it = plugins_.find(name);
  if (it == plugins_.end()) return util::NotFound("no plugin named " + std::string(name) + " exists");
  plugins_.erase(it);
  return util::Status();
}

util::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, r] : other.plugins_) {
    if (plugins_.count(name) > 0) {
      return util::Status(util::StatusCode::kAlreadyExists, "a plugin named " + name + " already exists");
    }
  }
  for (const auto& [name, r] : other.plugins_) plugins_.emplace(name, r);
  return util::Status();
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : &it->second.factory;
}

const config::ArgsCodec* Registry::ArgsCodecOf(std::string_view name) const {
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : it->second.args;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  out.reserve(plugins_.size());
  for (const auto& [name, r] : plugins_) out.push_back(name);
  return out;
}

config::KnownPlugins Registry::Known() const {
  config::KnownPlugins known;
  for (const auto& [name, r] : plugins_) known.Add(name, r.args);
  known.set_default_plugins(default_plugins_);
  return known;
}

}  // namespace ksched::scheduler::framework
