#include "pkg/client/rest_config.h"

#include <cstdlib>

namespace ksched::client {

std::string DefaultUserAgent() {
#if defined(__x86_64__)
  constexpr const char* kArch = "amd64";
#elif defined(__aarch64__)
  constexpr const char* kArch = "arm64";
#else
  constexpr const char* kArch = "unknown";
#endif
  return std::string("ksched/") + KSCHED_VERSION + " (linux/" + kArch + ")";
}

namespace {

bool HasTlsSettings(const RestConfig& c) {
  return !c.ca_data.empty() || !c.ca_file.empty() || !c.cert_data.empty() || !c.cert_file.empty() ||
         c.insecure_skip_tls_verify || !c.tls_server_name.empty();
}

}  // namespace

util::Status ValidateRestConfig(const RestConfig& c) {
  if (c.host.empty()) return util::InvalidArgument("no server host: set --master or a kubeconfig cluster server");
  bool has_token = !c.bearer_token.empty() || !c.bearer_token_file.empty();
  bool has_basic = !c.username.empty() || !c.password.empty();
  if (has_token && has_basic) {
    return util::InvalidArgument("username/password or bearer token may be set, but not both");
  }
  bool has_cert = !c.cert_data.empty() || !c.cert_file.empty();
  bool has_key = !c.key_data.empty() || !c.key_file.empty();
  if (has_cert != has_key) {
    return util::InvalidArgument(has_cert ? "client certificate given without a client key"
                                          : "client key given without a client certificate");
  }
  if (c.insecure_skip_tls_verify && (!c.ca_data.empty() || !c.ca_file.empty())) {
    return util::InvalidArgument(
        "specifying a root certificate authority together with insecure-skip-tls-verify is not allowed");
  }
  if (c.burst < 0) return util::InvalidArgument("burst must be >= 0");
  if (c.timeout < util::Duration::zero()) return util::InvalidArgument("timeout must be >= 0");
  return ServerUrl(c).status();
}

util::StatusOr<std::string> ServerUrl(const RestConfig& c) {
  std::string url = c.host;
  if (url.find("://") == std::string::npos) {
    url = (HasTlsSettings(c) ? "https://" : "http://") + url;
  }
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return util::InvalidArgument("server \"" + c.host + "\" must be an http:// or https:// URL");
  }
  size_t authority = url.find("://") + 3;
  if (authority >= url.size() || url[authority] == '/') {
    return util::InvalidArgument("server \"" + c.host + "\" has no host name");
  }
  while (url.size() > authority && url.back() == '/') url.pop_back();
  return url;
}

Environment Environment::Process() {
  Environment env;
  env.getenv = [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  return env;
}

std::optional<std::string> Environment::Get(std::string_view name) const {
  if (!getenv) return std::nullopt;
  return getenv(name);
}

}  // namespace ksched::client
