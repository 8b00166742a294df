#include "pkg/client/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "pkg/client/file.h"
#include "pkg/util/base64.h"

namespace ksched::client {

namespace {

// Wraps YAML lookups so every type error names the file and the field.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  util::Status Error(const std::string& where, const std::string& what) const {
    return util::InvalidArgument("kubeconfig " + path_ + ": " + where + ": " + what);
  }

  // An optional string field; absent or null yields "".
  util::Status String(const YAML::Node& node, const char* key, const std::string& where,
                      std::string* out) const {
    const YAML::Node v = node[key];
    if (!v || v.IsNull()) return util::Status::Ok();
    if (!v.IsScalar()) return Error(where + "." + key, "must be a string");
    *out = v.Scalar();
    return util::Status::Ok();
  }

  util::Status Bool(const YAML::Node& node, const char* key, const std::string& where, bool* out) const {
    const YAML::Node v = node[key];
    if (!v || v.IsNull()) return util::Status::Ok();
    bool b = false;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
      return Error(where + "." + key, "must be a boolean");
    }
    *out = b;
    return util::Status::Ok();
  }

  // Finds {name: NAME, <field>: {...}} in the list at root[list_key].
  util::StatusOr<YAML::Node> Named(const YAML::Node& root, const char* list_key, const char* field,
                                   const std::string& name) const {
    const YAML::Node list = root[list_key];
    if (list && !list.IsNull() && !list.IsSequence()) return Error(list_key, "must be a list");
    if (list && list.IsSequence()) {
      for (size_t i = 0; i < list.size(); ++i) {
        const YAML::Node entry = list[i];
        if (!entry.IsMap()) return Error(std::string(list_key) + "[" + std::to_string(i) + "]", "must be a map");
        const YAML::Node n = entry["name"];
        if (n && n.IsScalar() && n.Scalar() == name) {
          const YAML::Node body = entry[field];
          if (body && !body.IsNull() && !body.IsMap()) {
            return Error(std::string(list_key) + "[" + name + "]." + field, "must be a map");
          }
          return body ? body : YAML::Node(YAML::NodeType::Map);
        }
      }
    }
    return util::InvalidArgument("kubeconfig " + path_ + ": " + field + " \"" + name + "\" not found in " +
                                 list_key);
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

#define RETURN_IF_KUBECONFIG_ERROR(expr) \
  do {                                   \
    ::ksched::util::Status _s = (expr);  \
    if (!_s.ok()) return _s;             \
  } while (0)

util::Status DecodeData(const Reader& r, const std::string& where, const std::string& b64, std::string* out) {
  if (b64.empty()) return util::Status::Ok();
  util::StatusOr<std::string> decoded = util::DecodeBase64(b64);
  if (!decoded.ok()) return r.Error(where, decoded.status().message());
  *out = std::move(decoded).value();
  return util::Status::Ok();
}

util::Status ReadCluster(const Reader& r, const YAML::Node& cluster, const std::string& name,
                         const std::string& dir, RestConfig* c) {
  std::string where = "cluster \"" + name + "\"";
  std::string ca_data_b64;
  std::string proxy_url;
  RETURN_IF_KUBECONFIG_ERROR(r.String(cluster, "server", where, &c->host));
  RETURN_IF_KUBECONFIG_ERROR(r.String(cluster, "certificate-authority", where, &c->ca_file));
  RETURN_IF_KUBECONFIG_ERROR(r.String(cluster, "certificate-authority-data", where, &ca_data_b64));
  RETURN_IF_KUBECONFIG_ERROR(r.Bool(cluster, "insecure-skip-tls-verify", where, &c->insecure_skip_tls_verify));
  RETURN_IF_KUBECONFIG_ERROR(r.String(cluster, "tls-server-name", where, &c->tls_server_name));
  RETURN_IF_KUBECONFIG_ERROR(r.String(cluster, "proxy-url", where, &proxy_url));
  RETURN_IF_KUBECONFIG_ERROR(DecodeData(r, where + ".certificate-authority-data", ca_data_b64, &c->ca_data));
  if (!proxy_url.empty()) return r.Error(where, "proxy-url is not supported by ksched");
  if (c->host.empty()) return r.Error(where, "server is not set");
  c->ca_file = ResolvePath(dir, c->ca_file);
  return util::Status::Ok();
}

util::Status ReadUser(const Reader& r, const YAML::Node& user, const std::string& name, const std::string& dir,
                      RestConfig* c) {
  std::string where = "user \"" + name + "\"";
  if (const YAML::Node exec = user["exec"]; exec && !exec.IsNull()) {
    std::string command;
    if (exec.IsMap() && exec["command"] && exec["command"].IsScalar()) command = exec["command"].Scalar();
    return util::InvalidArgument("kubeconfig " + r.path() + ": " + where +
                                 " uses an exec credential plugin" +
                                 (command.empty() ? "" : " (command \"" + command + "\")") +
                                 ", which ksched does not support; use a token, tokenFile or client certificate");
  }
  if (const YAML::Node ap = user["auth-provider"]; ap && !ap.IsNull()) {
    std::string provider;
    if (ap.IsMap() && ap["name"] && ap["name"].IsScalar()) provider = ap["name"].Scalar();
    return util::InvalidArgument("kubeconfig " + r.path() + ": " + where + " uses the auth-provider plugin" +
                                 (provider.empty() ? "" : " \"" + provider + "\"") +
                                 ", which ksched does not support; use a token, tokenFile or client certificate");
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (const YAML::Node v = user[key]; v && !v.IsNull()) {
      return r.Error(where, std::string("impersonation (") + key + ") is not supported by ksched");
    }
  }
  std::string token_file, cert_b64, key_b64;
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "token", where, &c->bearer_token));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "tokenFile", where, &token_file));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "client-certificate", where, &c->cert_file));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "client-certificate-data", where, &cert_b64));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "client-key", where, &c->key_file));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "client-key-data", where, &key_b64));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "username", where, &c->username));
  RETURN_IF_KUBECONFIG_ERROR(r.String(user, "password", where, &c->password));
  RETURN_IF_KUBECONFIG_ERROR(DecodeData(r, where + ".client-certificate-data", cert_b64, &c->cert_data));
  RETURN_IF_KUBECONFIG_ERROR(DecodeData(r, where + ".client-key-data", key_b64, &c->key_data));
  c->cert_file = ResolvePath(dir, c->cert_file);
  c->key_file = ResolvePath(dir, c->key_file);
  if (c->bearer_token.empty() && !token_file.empty()) {
    c->bearer_token_file = ResolvePath(dir, token_file);
    // Fail at start-up, not on the first request, when the file is missing.
    util::StatusOr<std::string> token = ReadFileToString(c->bearer_token_file);
    if (!token.ok()) return r.Error(where + ".tokenFile", token.status().message());
  }
  return util::Status::Ok();
}

}  // namespace

util::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  util::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return util::InvalidArgument("kubeconfig: " + text.status().message());
  return ParseKubeconfig(*text, path, context);
}

util::StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& path,
                                           const std::string& context) {
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return util::InvalidArgument("kubeconfig " + path + ": line " + std::to_string(e.mark.line + 1) +
                                 ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) return util::InvalidArgument("kubeconfig " + path + ": not a YAML map");

  std::string context_name = context;
  if (context_name.empty()) RETURN_IF_KUBECONFIG_ERROR(r.String(root, "current-context", "root", &context_name));
  if (context_name.empty()) {
    return util::InvalidArgument("kubeconfig " + path + ": current-context is not set and no context was given");
  }
  util::StatusOr<YAML::Node> ctx = r.Named(root, "contexts", "context", context_name);
  if (!ctx.ok()) return ctx.status();

  RestConfig config;
  std::string where = "context \"" + context_name + "\"";
  std::string cluster_name, user_name;
  RETURN_IF_KUBECONFIG_ERROR(r.String(*ctx, "cluster", where, &cluster_name));
  RETURN_IF_KUBECONFIG_ERROR(r.String(*ctx, "user", where, &user_name));
  RETURN_IF_KUBECONFIG_ERROR(r.String(*ctx, "namespace", where, &config.namespace_));
  if (cluster_name.empty()) return r.Error(where, "cluster is not set");

  std::string dir = std::filesystem::path(path).parent_path().string();
  util::StatusOr<YAML::Node> cluster = r.Named(root, "clusters", "cluster", cluster_name);
  if (!cluster.ok()) return cluster.status();
  RETURN_IF_KUBECONFIG_ERROR(ReadCluster(r, *cluster, cluster_name, dir, &config));
  if (!user_name.empty()) {
    util::StatusOr<YAML::Node> user = r.Named(root, "users", "user", user_name);
    if (!user.ok()) return user.status();
    RETURN_IF_KUBECONFIG_ERROR(ReadUser(r, *user, user_name, dir, &config));
  }
  if (config.namespace_.empty()) config.namespace_ = "default";
  config.source = "kubeconfig " + path + " context " + context_name;
  util::Status valid = ValidateRestConfig(config);
  if (!valid.ok()) return util::InvalidArgument("kubeconfig " + path + ": " + where + ": " + valid.message());
  return config;
}

#undef RETURN_IF_KUBECONFIG_ERROR

}  // namespace ksched::client
