#include "pkg/auth/authentication_configmap.h"

#include <optional>
#include <vector>

namespace ksched::auth {

namespace {

std::string TextValue(const nlohmann::json& data, const char* key) {
  return data.contains(key) && data[key].is_string() ? data[key].get<std::string>() : std::string();
}

std::vector<std::string> JsonStringList(const nlohmann::json& data, const char* key) {
  std::vector<std::string> out;
  nlohmann::json list = nlohmann::json::parse(TextValue(data, key), nullptr, false);
  if (!list.is_array()) return out;
  for (const nlohmann::json& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

AuthenticationConfigMap ParseAuthenticationConfigMap(const nlohmann::json& configmap) {
  AuthenticationConfigMap out;
  if (!configmap.is_object() || !configmap.contains("data") || !configmap["data"].is_object()) return out;
  const nlohmann::json& data = configmap["data"];
  out.client_ca_pem = TextValue(data, "client-ca-file");
  out.requestheader_client_ca_pem = TextValue(data, "requestheader-client-ca-file");
  out.requestheader.username_headers = JsonStringList(data, "requestheader-username-headers");
  out.requestheader.group_headers = JsonStringList(data, "requestheader-group-headers");
  out.requestheader.extra_headers_prefixes = JsonStringList(data, "requestheader-extra-headers-prefix");
  out.requestheader.uid_headers = JsonStringList(data, "requestheader-uid-headers");
  out.requestheader.allowed_names = JsonStringList(data, "requestheader-allowed-names");
  return out;
}

}  // namespace ksched::auth
