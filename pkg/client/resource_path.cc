#include "pkg/client/resource_path.h"

namespace ksched::client {

std::string ApiPrefix(std::string_view api_version) {
  if (api_version.find('/') == std::string_view::npos) return "/api/" + std::string(api_version);
  return "/apis/" + std::string(api_version);
}

std::string CollectionPath(std::string_view api_version, std::string_view resource, bool namespaced,
                           std::string_view ns) {
  std::string path = ApiPrefix(api_version);
  if (namespaced && !ns.empty()) {
    path += "/namespaces/";
    path.append(ns);
  }
  path.push_back('/');
  path.append(resource);
  return path;
}

}  // namespace ksched::client
