// Registry: plugin factories by name (kube's runtime.Registry), the only
// place where the core meets concrete plugins. Each plugin folder exposes a
// factory; pkg/scheduler/plugins/registry.cc lists the in-tree ones
// (InTreeRegistry); out-of-tree plugins are merged in by name.
//
// A factory receives the plugin's typed args from the profile's
// pluginConfig (config::PluginArgs: std::monostate when the profile has none
// for it; after config defaulting every plugin with an args type has them)
// and the Handle of the framework being built. It returns the plugin, or an
// error that fails the framework's construction. The framework creates each
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

#include "pkg/config/types_pluginargs.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

using PluginFactory =
    std::function<util::StatusOr<std::shared_ptr<Plugin>>(const config::PluginArgs& args, Handle& handle)>;

class Registry {
 public:
  // AlreadyExists "a plugin named X already exists" on a duplicate name.
  util::Status Register(std::string name, PluginFactory factory);
  // Removes `name`; NotFound "no plugin named X exists" when absent.
  util::Status Unregister(std::string_view name);
  // Registers every entry of `other`; fails (registering nothing) on the
  // first duplicate.
  util::Status Merge(const Registry& other);

  // nullptr when absent.
  const PluginFactory* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // Sorted names.
  std::vector<std::string> Names() const;
  size_t size() const { return factories_.size(); }

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
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
