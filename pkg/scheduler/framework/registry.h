// Registry: plugin registrations by name (kube's runtime.Registry), the only
// place where the core meets concrete plugins. A registration is the
// plugin's name, its factory and, for a plugin with args, its args codec
// (config::ArgsCodec: decode, defaults, validation, encoding).
// pkg/scheduler/plugins/registry.cc lists the in-tree ones (InTreeRegistry);
// out-of-tree plugins are merged in by name. Known() hands configuration
// loading the names, the codecs and the default plugin set, so that
// pkg/config knows plugins only through the registry.
//
// A factory receives the plugin's args from the profile's pluginConfig
// (empty when the profile has none for it; after config defaulting every
// plugin with an args codec has them; config::ArgsAs unpacks them) and the
// Handle of the framework being built. It returns the plugin, or an error
// that fails the framework's construction. The framework creates each
// enabled plugin once per profile and shares it across extension points.
//
// Thread-safety: build the registry at start-up; const methods may then be
// called concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/known_plugins.h"
#include "pkg/config/plugin_args.h"
#include "pkg/config/types.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

using PluginFactory =
    std::function<util::StatusOr<std::shared_ptr<Plugin>>(const config::PluginArgs& args, Handle& handle)>;

// One plugin as a registry holds it.
struct PluginRegistration {
  std::string name;
  PluginFactory factory;
  // The codec of the plugin's args (static storage); nullptr when the
  // plugin takes no args.
  const config::ArgsCodec* args = nullptr;
};

class Registry {
 public:
  // AlreadyExists "a plugin named X already exists" on a duplicate name.
  util::Status Register(PluginRegistration registration);
  // A plugin without args.
  util::Status Register(std::string name, PluginFactory factory);
  // Removes `name`; NotFound "no plugin named X exists" when absent.
  util::Status Unregister(std::string_view name);
  // Registers every entry of `other`; fails (registering nothing) on the
  // first duplicate.
  util::Status Merge(const Registry& other);

  // nullptr when absent.
  const PluginFactory* Find(std::string_view name) const;
  // The args codec of `name`; nullptr when absent or without args.
  const config::ArgsCodec* ArgsCodecOf(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // Sorted names.
  std::vector<std::string> Names() const;
  size_t size() const { return plugins_.size(); }

  // The plugins a profile enables by default (a multiPoint list of
  // registered names); Merge keeps this registry's.
  void SetDefaultPlugins(config::Plugins plugins) { default_plugins_ = std::move(plugins); }
  const config::Plugins& DefaultPlugins() const { return default_plugins_; }

  // What configuration loading needs: every name with its args codec, and
  // the default plugin set.
  config::KnownPlugins Known() const;

 private:
  std::map<std::string, PluginRegistration, std::less<>> plugins_;
  config::Plugins default_plugins_;
};

// Adapts a factory of a concrete plugin type; lets plugin folders write
//   registry.Register("NodeName", AdaptFactory<NodeName>(...))
// without spelling the shared_ptr<Plugin> conversion.
template <class P, class F>
PluginFactory AdaptFactory(F f) {
  return [f = std::move(f)](const config::PluginArgs& args, Handle& h) -> util::StatusOr<std::shared_ptr<Plugin>> {
    util::StatusOr<std::shared_ptr<P>> p = f(args, h);
    if (!p.ok()) return p.status();
    return std::shared_ptr<Plugin>(std::move(p).value());
  };
}

}  // namespace ksched::scheduler::framework
