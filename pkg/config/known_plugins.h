// The plugins a configuration may name, with the args codec each registered,
// and the default plugin set a profile starts from.
//
// pkg/config names no plugin: the daemon builds its plugin registry first
// and passes the registry's KnownPlugins (framework::Registry::Known()) to
// decoding, defaulting and validation. A name without a codec is a plugin
// that takes no args.
//
// Thread-safety: a value; build it, then share it as const.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/config/plugin_args.h"
#include "pkg/config/types.h"

namespace ksched::config {

class KnownPlugins {
 public:
  // A plugin that takes no args (keeps an existing codec for the name).
  void insert(std::string name) { plugins_.emplace(std::move(name), nullptr); }
  // A plugin whose args `codec` handles (nullptr: no args). The codec must
  // outlive every configuration that holds its args (codecs are static).
  void Add(std::string name, const ArgsCodec* codec) { plugins_[std::move(name)] = codec; }

  size_t count(std::string_view name) const { return plugins_.find(name) != plugins_.end() ? 1 : 0; }
  // The codec of `name`'s args; nullptr when it takes none or is unknown.
  const ArgsCodec* Codec(std::string_view name) const;
  // Sorted.
  std::vector<std::string> Names() const;

  // The plugins a profile starts from, as a multiPoint list (defaults.h
  // merges the user's sets into it).
  const Plugins& default_plugins() const { return default_plugins_; }
  void set_default_plugins(Plugins p) { default_plugins_ = std::move(p); }

 private:
  std::map<std::string, const ArgsCodec*, std::less<>> plugins_;
  Plugins default_plugins_;
};

// Plugins removed from kubescheduler.config.k8s.io/v1 (the in-tree volume
// limits plugins, replaced in kube by one for CSI): a rule of the API
// version, not plugins anyone can register. Naming one is reported as "was
// invalid in version".
bool IsRemovedPlugin(std::string_view name);

// The known name closest to `name` (same name ignoring case, or at most two
// edits away), for "did you mean" hints; empty when nothing is close.
std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace ksched::config
