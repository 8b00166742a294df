#include "pkg/client/in_cluster.h"

#include "pkg/client/file.h"

namespace ksched::client {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

bool InClusterEnvironmentPresent(const Environment& env) {
  std::optional<std::string> host = env.Get("KUBERNETES_SERVICE_HOST");
  std::optional<std::string> port = env.Get("KUBERNETES_SERVICE_PORT");
  return host && !host->empty() && port && !port->empty();
}

util::StatusOr<RestConfig> InClusterConfig(const Environment& env) {
  if (!InClusterEnvironmentPresent(env)) {
    return util::InvalidArgument(
        "unable to load in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "defined");
  }
  std::string host = *env.Get("KUBERNETES_SERVICE_HOST");
  std::string port = *env.Get("KUBERNETES_SERVICE_PORT");
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";

  const std::string& dir = env.service_account_dir;
  RestConfig config;
  config.host = "https://" + host + ":" + port;
  config.bearer_token_file = dir + "/token";
  util::StatusOr<std::string> token = ReadFileToString(config.bearer_token_file);
  if (!token.ok()) return util::InvalidArgument("in-cluster configuration: " + token.status().message());
  if (Trim(*token).empty()) {
    return util::InvalidArgument("in-cluster configuration: " + config.bearer_token_file + " is empty");
  }
  config.bearer_token = Trim(*token);

  // client-go logs and continues without a CA file; the system roots then
  // decide, which fails loudly on the first request if they do not trust the
  // server.
  std::string ca_path = dir + "/ca.crt";
  util::StatusOr<std::string> ca = ReadFileToString(ca_path);
  if (ca.ok()) {
    config.ca_file = ca_path;
  } else if (ca.status().code() != util::StatusCode::kNotFound) {
    return util::InvalidArgument("in-cluster configuration: " + ca.status().message());
  }

  util::StatusOr<std::string> ns = ReadFileToString(dir + "/namespace");
  config.namespace_ = ns.ok() && !Trim(*ns).empty() ? Trim(*ns) : "default";
  config.source = "in-cluster";
  return config;
}

}  // namespace ksched::client
