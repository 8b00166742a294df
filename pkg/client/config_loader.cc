#include "pkg/client/config_loader.h"

#include <filesystem>

#include "pkg/client/in_cluster.h"
#include "pkg/client/kubeconfig.h"

namespace ksched::client {

namespace {

util::StatusOr<RestConfig> FromKubeconfig(const std::string& path, const std::string& master) {
  util::StatusOr<RestConfig> config = LoadKubeconfig(path);
  if (!config.ok() || master.empty()) return config;
  config->host = master;
  config->source += " (server overridden by --master)";
  util::Status valid = ValidateRestConfig(*config);
  if (!valid.ok()) return valid;
  return config;
}

// The first existing kubeconfig named by $KUBECONFIG, else ~/.kube/config.
std::string DefaultKubeconfigPath(const Environment& env) {
  std::error_code ec;
  if (std::optional<std::string> list = env.Get("KUBECONFIG"); list && !list->empty()) {
    size_t start = 0;
    while (start <= list->size()) {
      size_t end = list->find(':', start);
      if (end == std::string::npos) end = list->size();
      std::string entry = list->substr(start, end - start);
      if (!entry.empty() && std::filesystem::is_regular_file(entry, ec)) return entry;
      start = end + 1;
    }
  }
  if (std::optional<std::string> home = env.Get("HOME"); home && !home->empty()) {
    std::string path = *home + "/.kube/config";
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return "";
}

}  // namespace

util::StatusOr<RestConfig> BuildConfigFromFlags(const std::string& master, const std::string& kubeconfig_path,
                                                const Environment& env) {
  if (!kubeconfig_path.empty()) return FromKubeconfig(kubeconfig_path, master);
  if (master.empty() && InClusterEnvironmentPresent(env)) return InClusterConfig(env);
  if (std::string path = DefaultKubeconfigPath(env); !path.empty()) return FromKubeconfig(path, master);
  if (!master.empty()) {
    RestConfig config;
    config.host = master;
    config.source = "--master " + master;
    util::Status valid = ValidateRestConfig(config);
    if (!valid.ok()) return valid;
    return config;
  }
  return util::InvalidArgument(
      "no API server configuration: pass --kubeconfig or --master, set KUBECONFIG, or run inside a cluster "
      "(KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT)");
}

}  // namespace ksched::client
