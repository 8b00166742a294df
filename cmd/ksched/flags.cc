#include "cmd/ksched/flags.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "pkg/util/go_duration.h"
#include "pkg/scheduler/framework/feature_gates.h"

namespace ksched::app {

namespace {

using util::Status;
using util::StatusOr;

Status Bad(const std::string& flag, const std::string& v, const std::string& why) {
  return util::InvalidArgument("invalid value \"" + v + "\" for flag --" + flag + ": " + why);
}

StatusOr<int> ParsePort(const std::string& flag, const std::string& v) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || n > 65535) {
    return Bad(flag, v, "must be a port in [0, 65535]");
  }
  return n;
}

StatusOr<bool> ParseBool(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "True") return true;
  if (v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False") return false;
  return Bad(flag, v, "must be a boolean");
}

StatusOr<util::Duration> ParseDuration(const std::string& flag, const std::string& v) {
  StatusOr<util::Duration> d = util::ParseGoDuration(v);
  if (!d.ok()) return Bad(flag, v, d.status().message());
  return *d;
}

// pflag's string slices: comma-separated (CSV) values.
std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  if (v.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t comma = v.find(',', start);
    std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Go's cipher suite names (crypto/tls) → OpenSSL's. TLS 1.3 suites map to
// "": Go does not let them be configured, so they are accepted and change
// nothing.
const std::map<std::string, std::string>& CipherSuites() {
  static const auto* m = new std::map<std::string, std::string>{
      {"TLS_AES_128_GCM_SHA256", ""},
      {"TLS_AES_256_GCM_SHA384", ""},
      {"TLS_CHACHA20_POLY1305_SHA256", ""},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256"},
      {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
      {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "ECDHE-ECDSA-RC4-SHA"},
      {"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA-DES-CBC3-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
      {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
      {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
      {"TLS_ECDHE_RSA_WITH_RC4_128_SHA", "ECDHE-RSA-RC4-SHA"},
      {"TLS_RSA_WITH_3DES_EDE_CBC_SHA", "DES-CBC3-SHA"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
      {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256"},
      {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
      {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
      {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
      {"TLS_RSA_WITH_RC4_128_SHA", "RC4-SHA"},
  };
  return *m;
}

// "1.34" → 34 for major 1; nullopt when not major.minor.
std::optional<int> ParseMinor(const std::string& v) {
  if (v.rfind("1.", 0) != 0 || v.size() < 3) return std::nullopt;
  int minor = 0;
  auto [ptr, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), minor);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return minor;
}

using scheduler::framework::kNewestKubeMinor;
using scheduler::framework::kOldestKubeMinor;

// --emulated-version and --min-compatibility-version: "[kube=]1.NN,..." with
// kube's texts; the last kube entry wins.
StatusOr<int> ParseKubeVersionList(const std::string& flag, const std::string& v, const std::string& what) {
  std::optional<int> last;
  for (const std::string& item : SplitList(v)) {
    std::string version = item;
    if (size_t eq = item.find('='); eq != std::string::npos) {
      if (item.substr(0, eq) != "kube") return Bad(flag, v, "component not registered: " + item.substr(0, eq));
      version = item.substr(eq + 1);
    }
    std::optional<int> minor = ParseMinor(version);
    if (!minor) return Bad(flag, v, "illegal version string \"" + version + "\"");
    if (*minor < kOldestKubeMinor || *minor > kNewestKubeMinor) {
      return Bad(flag, v,
                 what + " version " + version + " is not between [1." + std::to_string(kOldestKubeMinor) + ", 1." +
                     std::to_string(kNewestKubeMinor) + "]");
    }
    last = minor;
  }
  if (!last) return Bad(flag, v, "no version given");
  return *last;
}

// Go's crypto/tls CurveIDs that kube-scheduler's Go accepts, as OpenSSL
// group names; nullptr where OpenSSL 3.0 has no such group (the hybrid
// post-quantum ones).
const std::map<int32_t, const char*>& CurveGroups() {
  static const std::map<int32_t, const char*> groups = {
      {23, "P-256"}, {24, "P-384"}, {25, "P-521"}, {29, "X25519"},
      {4587, nullptr}, {4588, nullptr}, {4589, nullptr}};
  return groups;
}

using Setter = std::function<Status(const std::string& value, Flags& f)>;

struct Spec {
  FlagInfo info;
  Setter set;  // for kIgnored flags: validates the value (may be empty)
};

Spec Valued(std::string name, Setter set) { return Spec{FlagInfo{std::move(name)}, std::move(set)}; }
Spec Bool(std::string name, std::function<void(Flags&, bool)> set) {
  std::string flag = name;
  return Spec{FlagInfo{std::move(name), true},
              [flag, set = std::move(set)](const std::string& v, Flags& f) {
                StatusOr<bool> b = ParseBool(flag, v);
                if (!b.ok()) return b.status();
                set(f, *b);
                return Status();
              }};
}
Spec Ignored(Spec s, std::string because) {
  s.info.support = FlagSupport::kIgnored;
  s.info.ignored_because = std::move(because);
  return s;
}
// The string-slice flags of front-proxy authentication.
std::vector<std::pair<std::string, std::vector<std::string> Flags::*>> RequestHeaderLists() {
  return {{"requestheader-allowed-names", &Flags::requestheader_allowed_names},
          {"requestheader-extra-headers-prefix", &Flags::requestheader_extra_headers_prefix},
          {"requestheader-group-headers", &Flags::requestheader_group_headers},
          {"requestheader-uid-headers", &Flags::requestheader_uid_headers},
          {"requestheader-username-headers", &Flags::requestheader_username_headers}};
}
Setter Str(std::string Flags::* field) {
  return [field](const std::string& v, Flags& f) {
    f.*field = v;
    return Status();
  };
}
Setter OptStr(std::optional<std::string> Flags::* field) {
  return [field](const std::string& v, Flags& f) {
    f.*field = v;
    return Status();
  };
}
Setter Dur(std::string flag, util::Duration Flags::* field) {
  return [flag, field](const std::string& v, Flags& f) {
    StatusOr<util::Duration> d = ParseDuration(flag, v);
    if (!d.ok()) return d.status();
    f.*field = *d;
    return Status();
  };
}
Setter OptDur(std::string flag, std::optional<util::Duration> Flags::* field) {
  return [flag, field](const std::string& v, Flags& f) {
    StatusOr<util::Duration> d = ParseDuration(flag, v);
    if (!d.ok()) return d.status();
    f.*field = *d;
    return Status();
  };
}
Setter Port(std::string flag, int Flags::* field) {
  return [flag, field](const std::string& v, Flags& f) {
    StatusOr<int> p = ParsePort(flag, v);
    if (!p.ok()) return p.status();
    f.*field = *p;
    return Status();
  };
}
Setter AnyString() {
  return [](const std::string&, Flags&) { return Status(); };
}
Setter Int(std::string flag) {
  return [flag](const std::string& v, Flags&) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size()) return Bad(flag, v, "must be an integer");
    return Status();
  };
}
// A resource.Quantity ("512", "1Ki", "4M"): digits with an optional suffix.
Setter QuantityValue(std::string flag) {
  return [flag](const std::string& v, Flags&) {
    static const std::set<std::string> suffixes = {"",  "k", "M", "G", "T", "P", "E",
                                                   "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    size_t digits = 0;
    while (digits < v.size() && (std::isdigit(static_cast<unsigned char>(v[digits])) || v[digits] == '.')) ++digits;
    if (digits == 0 || !suffixes.count(v.substr(digits))) return Bad(flag, v, "must be a quantity (512, 1Ki, 4M)");
    return Status();
  };
}
// "metric,label=v1,v2" entries (stringToString): checked for shape only.
Setter MetricLabels(std::string flag) {
  return [flag](const std::string& v, Flags&) {
    if (!v.empty() && (v.find('=') == std::string::npos || v.find(',') > v.find('='))) {
      return Bad(flag, v, "must be metricName,labelName='v1,v2,...' pairs");
    }
    return Status();
  };
}

std::vector<Spec> BuildSpecs() {
  const std::string kNoHttp2 = "ksched serves HTTP/1.1 only";
  const std::string kNoPprof = "ksched serves no /debug/pprof profiling endpoints";
  const std::string kNoBuffer = "ksched writes each log line when it is logged";
  std::vector<Spec> s;
  // Misc.
  s.push_back(Valued("config", Str(&Flags::config_file)));
  s.push_back(Valued("master", Str(&Flags::master)));
  s.push_back(Valued("write-config-to", Str(&Flags::write_config_to)));
  // Secure serving.
  s.push_back(Valued("bind-address", [](const std::string& v, Flags& f) {
    // pflag's IP type: a literal address; empty means all interfaces.
    bool ok = v.empty() || v.find_first_not_of("0123456789.") == std::string::npos ||
              (v.find(':') != std::string::npos && v.find_first_not_of("0123456789abcdefABCDEF:.") == std::string::npos);
    if (!ok) return Bad("bind-address", v, "must be an IP address");
    f.bind_address = v.empty() ? "0.0.0.0" : v;
    return Status();
  }));
  s.push_back(Valued("cert-dir", Str(&Flags::cert_dir)));
  s.push_back(Bool("disable-http2-serving", [](Flags&, bool) {}));
  s.back().info.ignored_because = kNoHttp2;
  s.back().info.support = FlagSupport::kIgnored;
  s.push_back(Ignored(Valued("http2-max-streams-per-connection", Int("http2-max-streams-per-connection")), kNoHttp2));
  // Go's listeners always set SO_REUSEADDR, and so do ksched's.
  s.push_back(Bool("permit-address-sharing", [](Flags&, bool) {}));
  s.push_back(Bool("permit-port-sharing", [](Flags& f, bool b) { f.permit_port_sharing = b; }));
  s.push_back(Valued("secure-port", Port("secure-port", &Flags::secure_port)));
  s.push_back(Valued("tls-cert-file", Str(&Flags::tls_cert_file)));
  s.push_back(Valued("tls-cipher-suites", [](const std::string& v, Flags& f) {
    for (const std::string& name : SplitList(v)) {
      auto it = CipherSuites().find(name);
      if (it == CipherSuites().end()) {
        return Bad("tls-cipher-suites", v, "cipher suite " + name + " not supported or doesn't exist");
      }
      f.tls_cipher_suites.push_back(name);
      if (it->second.empty() || f.tls12_cipher_list.find(it->second) != std::string::npos) continue;
      f.tls12_cipher_list += (f.tls12_cipher_list.empty() ? "" : ":") + it->second;
    }
    return Status();
  }));
  s.push_back(Valued("tls-curve-preferences", [](const std::string& v, Flags& f) {
    std::set<int32_t> seen;
    f.tls_groups_list.clear();
    for (const std::string& item : SplitList(v)) {
      int64_t id = 0;
      auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
      if (ec != std::errc() || ptr != item.data() + item.size() || id < INT32_MIN || id > INT32_MAX) {
        return Bad("tls-curve-preferences", v, "strconv.ParseInt: parsing \"" + item + "\": invalid syntax");
      }
      if (id <= 0 || id > 65535) {
        return Bad("tls-curve-preferences", v,
                   "curve preference " + std::to_string(id) + " is out of range (must be 1-65535)");
      }
      if (!seen.insert(static_cast<int32_t>(id)).second) {
        return Bad("tls-curve-preferences", v, "duplicate curve preference " + std::to_string(id));
      }
      auto it = CurveGroups().find(static_cast<int32_t>(id));
      if (it == CurveGroups().end()) {
        return Bad("tls-curve-preferences", v,
                   "curve preference " + std::to_string(id) + " is not supported by the current Go version");
      }
      if (it->second == nullptr) {
        return Bad("tls-curve-preferences", v,
                   "curve preference " + std::to_string(id) +
                       " (a hybrid post-quantum key exchange) is not supported by ksched's TLS library");
      }
      f.tls_groups_list += (f.tls_groups_list.empty() ? "" : ":") + std::string(it->second);
    }
    return Status();
  }));
  s.push_back(Valued("tls-min-version", [](const std::string& v, Flags& f) {
    static const std::map<std::string, int> versions = {
        {"VersionTLS10", 0x0301}, {"VersionTLS11", 0x0302}, {"VersionTLS12", 0x0303}, {"VersionTLS13", 0x0304}};
    auto it = versions.find(v);
    if (it == versions.end()) {
      return Bad("tls-min-version", v, "unknown tls version; use VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13");
    }
    f.tls_min_version = it->second;
    return Status();
  }));
  s.push_back(Valued("tls-private-key-file", Str(&Flags::tls_private_key_file)));
  s.push_back(Ignored(Valued("tls-sni-cert-key",
                             [](const std::string& v, Flags&) {
                               if (v.find(',') == std::string::npos) {
                                 return Bad("tls-sni-cert-key", v, "must be \"cert.crt,key.key[:domain,...]\"");
                               }
                               return Status();
                             }),
                      "ksched serves one certificate (--tls-cert-file) for every server name"));
  // Authentication.
  s.push_back(Valued("authentication-kubeconfig", Str(&Flags::authentication_kubeconfig)));
  s.push_back(Bool("authentication-skip-lookup", [](Flags& f, bool b) { f.authentication_skip_lookup = b; }));
  s.push_back(Valued("authentication-token-webhook-cache-ttl",
                     Dur("authentication-token-webhook-cache-ttl", &Flags::authentication_token_webhook_cache_ttl)));
  s.push_back(Bool("authentication-tolerate-lookup-failure",
                   [](Flags& f, bool b) { f.authentication_tolerate_lookup_failure = b; }));
  s.push_back(Valued("client-ca-file", Str(&Flags::client_ca_file)));
  s.push_back(Valued("requestheader-client-ca-file", Str(&Flags::requestheader_client_ca_file)));
  for (const auto& entry : RequestHeaderLists()) {
    s.push_back(Valued(entry.first, [field = entry.second](const std::string& v, Flags& f) {
      f.*field = SplitList(v);
      return Status();
    }));
  }
  // Authorization.
  s.push_back(Valued("authorization-always-allow-paths", [](const std::string& v, Flags& f) {
    f.authorization_always_allow_paths = SplitList(v);
    return Status();
  }));
  s.push_back(Valued("authorization-kubeconfig", Str(&Flags::authorization_kubeconfig)));
  s.push_back(Valued("authorization-webhook-cache-authorized-ttl",
                     Dur("authorization-webhook-cache-authorized-ttl",
                         &Flags::authorization_webhook_cache_authorized_ttl)));
  s.push_back(Valued("authorization-webhook-cache-unauthorized-ttl",
                     Dur("authorization-webhook-cache-unauthorized-ttl",
                         &Flags::authorization_webhook_cache_unauthorized_ttl)));
  // Deprecated (ApplyDeprecatedFlags decides whether they apply).
  s.push_back(Ignored(Bool("contention-profiling", [](Flags& f, bool b) { f.contention_profiling = b; }), kNoPprof));
  s.push_back(Ignored(Bool("profiling", [](Flags& f, bool b) { f.profiling = b; }), kNoPprof));
  s.push_back(Valued("kube-api-burst", [](const std::string& v, Flags& f) {
    int32_t n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) {
      return Bad("kube-api-burst", v, "must be a non-negative 32-bit integer");
    }
    f.kube_api_burst = n;
    return Status();
  }));
  s.push_back(Valued("kube-api-content-type", [](const std::string& v, Flags& f) {
    if (v != "application/json" && v != "application/vnd.kubernetes.protobuf") {
      return Bad("kube-api-content-type", v,
                 "must be application/json or application/vnd.kubernetes.protobuf");
    }
    f.kube_api_content_type = v;
    return Status();
  }));
  s.push_back(Valued("kube-api-qps", [](const std::string& v, Flags& f) {
    char* end = nullptr;
    float q = std::strtof(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || q < 0) return Bad("kube-api-qps", v, "must be a non-negative number");
    f.kube_api_qps = q;
    return Status();
  }));
  s.push_back(Valued("kubeconfig", OptStr(&Flags::kubeconfig)));
  s.push_back(Valued("pod-max-in-unschedulable-pods-duration",
                     Dur("pod-max-in-unschedulable-pods-duration", &Flags::pod_max_in_unschedulable_pods_duration)));
  // Leader election.
  s.push_back(Bool("leader-elect", [](Flags& f, bool b) { f.leader_elect = b; }));
  s.push_back(Valued("leader-elect-lease-duration",
                     OptDur("leader-elect-lease-duration", &Flags::leader_elect_lease_duration)));
  s.push_back(Valued("leader-elect-renew-deadline",
                     OptDur("leader-elect-renew-deadline", &Flags::leader_elect_renew_deadline)));
  s.push_back(Valued("leader-elect-resource-lock", [](const std::string& v, Flags& f) {
    // client-go removed the endpoints and configmaps locks; kube-scheduler
    // accepts only leases.
    if (v != "leases") return Bad("leader-elect-resource-lock", v, "only \"leases\" is supported");
    f.leader_elect_resource_lock = v;
    return Status();
  }));
  s.push_back(Valued("leader-elect-resource-name", OptStr(&Flags::leader_elect_resource_name)));
  s.push_back(Valued("leader-elect-resource-namespace", OptStr(&Flags::leader_elect_resource_namespace)));
  s.push_back(Valued("leader-elect-retry-period",
                     OptDur("leader-elect-retry-period", &Flags::leader_elect_retry_period)));
  // Feature gates.
  s.push_back(Valued("emulated-version", [](const std::string& v, Flags& f) {
    StatusOr<int> minor = ParseKubeVersionList("emulated-version", v, "emulation");
    if (!minor.ok()) return minor.status();
    f.emulated_minor = *minor;
    return Status();
  }));
  s.push_back(Ignored(Valued("min-compatibility-version",
                             [](const std::string& v, Flags&) {
                               return ParseKubeVersionList("min-compatibility-version", v, "min compatibility")
                                   .status();
                             }),
                      "ksched's gate defaults follow the chosen minor only; no behaviour it models depends on "
                      "the minimum compatibility version"));
  // Syntax only here: which gates exist, and their locks, depend on the
  // minor, known once the server has been asked (FeatureGates::Set).
  s.push_back(Valued("feature-gates", [](const std::string& v, Flags& f) {
    for (std::string item : SplitList(v)) {
      if (size_t colon = item.find(':'); colon != std::string::npos && colon < item.find('=')) {
        if (item.substr(0, colon) != "kube") {
          return Bad("feature-gates", v, "component " + item.substr(0, colon) + " is not registered");
        }
        item = item.substr(colon + 1);
      }
      size_t eq = item.find('=');
      if (eq == std::string::npos) return Bad("feature-gates", v, "missing bool value for " + item);
      if (StatusOr<bool> b = ParseBool("feature-gates", item.substr(eq + 1)); !b.ok()) return b.status();
      f.feature_gates += (f.feature_gates.empty() ? "" : ",") + item;
    }
    return Status();
  }));
  // Metrics.
  s.push_back(Ignored(Valued("allow-metric-labels", MetricLabels("allow-metric-labels")),
                      "ksched's metrics have bounded label values of their own; no allow-list is applied"));
  s.push_back(Ignored(Valued("allow-metric-labels-manifest", AnyString()),
                      "ksched's metrics have bounded label values of their own; no allow-list is applied"));
  s.push_back(Valued("disabled-metrics", [](const std::string& v, Flags& f) {
    for (const std::string& name : SplitList(v)) f.disabled_metrics.push_back(name);
    return Status();
  }));
  s.push_back(Valued("show-hidden-metrics-for-version", [](const std::string& v, Flags&) {
    // ksched hides no metric, so the one accepted value shows nothing more.
    // The previous minor of whichever minor ksched behaves as.
    std::optional<int> minor = ParseMinor(v);
    if (!v.empty() && (!minor || *minor < kOldestKubeMinor - 1 || *minor > kNewestKubeMinor - 1)) {
      return Bad("show-hidden-metrics-for-version", v,
                 "must be omitted or have the value of the previous minor version (1." +
                     std::to_string(kOldestKubeMinor - 1) + "..1." + std::to_string(kNewestKubeMinor - 1) + ")");
    }
    return Status();
  }));
  // Logs.
  s.push_back(Valued("log-flush-frequency", Dur("log-flush-frequency", &Flags::log_flush_frequency)));
  s.push_back(Ignored(Valued("log-json-info-buffer-size", QuantityValue("log-json-info-buffer-size")), kNoBuffer));
  s.push_back(Bool("log-json-split-stream", [](Flags& f, bool b) { f.log_split_stream = f.log_split_stream || b; }));
  s.push_back(Ignored(Valued("log-text-info-buffer-size", QuantityValue("log-text-info-buffer-size")), kNoBuffer));
  s.push_back(Bool("log-text-split-stream", [](Flags& f, bool b) { f.log_split_stream = f.log_split_stream || b; }));
  s.push_back(Valued("logging-format", [](const std::string& v, Flags& f) {
    if (v != "text" && v != "json") {
      return Bad("logging-format", v, "permitted formats are \"json\" and \"text\"");
    }
    f.logging_format = v;
    return Status();
  }));
  s.push_back(Valued("v", [](const std::string& v, Flags& f) {
    int n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) return Bad("v", v, "must be a non-negative integer");
    f.verbosity = n;
    return Status();
  }));
  s.push_back(Valued("vmodule", Str(&Flags::vmodule)));
  // Global.
  s.push_back(Bool("help", [](Flags& f, bool b) { f.help = b; }));
  s.push_back(Bool("h", [](Flags& f, bool b) { f.help = b; }));
  Spec version{FlagInfo{"version", true, true}, [](const std::string& v, Flags& f) {
                 if (v == "raw" || (v.size() > 1 && v[0] == 'v')) {
                   f.version = true;
                   f.version_mode = v;
                   return Status();
                 }
                 StatusOr<bool> b = ParseBool("version", v);
                 if (!b.ok()) return Bad("version", v, "must be a boolean, \"raw\" or vX.Y.Z");
                 f.version = *b;
                 return Status();
               }};
  s.push_back(version);
  // ksched's own.
  s.push_back(Valued("http-port", Port("http-port", &Flags::http_port)));
  s.back().info.support = FlagSupport::kKschedOnly;
  s.push_back(Valued("explain-record-size", [](const std::string& v, Flags& f) {
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || n > 1000000) {
      return Bad("explain-record-size", v, "must be an integer from 0 to 1000000");
    }
    f.explain_record_size = static_cast<size_t>(n);
    return Status();
  }));
  s.back().info.support = FlagSupport::kKschedOnly;
  std::sort(s.begin(), s.end(), [](const Spec& a, const Spec& b) { return a.info.name < b.info.name; });
  return s;
}

const std::vector<Spec>& Specs() {
  static const auto* specs = new std::vector<Spec>(BuildSpecs());
  return *specs;
}

const Spec* Find(const std::string& name) {
  const std::vector<Spec>& s = Specs();
  auto it = std::lower_bound(s.begin(), s.end(), name, [](const Spec& a, const std::string& n) { return a.info.name < n; });
  return it != s.end() && it->info.name == name ? &*it : nullptr;
}

}  // namespace

const std::vector<FlagInfo>& KnownFlags() {
  static const auto* infos = [] {
    auto* v = new std::vector<FlagInfo>();
    for (const Spec& s : Specs()) v->push_back(s.info);
    return v;
  }();
  return *infos;
}

StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags f;
  std::set<std::string> seen;  // string-slice flags given before: later ones append
  std::set<std::string> warned;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      return util::InvalidArgument("unexpected argument \"" + arg + "\" (ksched takes only flags)");
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      value = body.substr(eq + 1);
      body.resize(eq);
    }
    const Spec* spec = Find(body);
    if (spec == nullptr) return util::InvalidArgument("unknown flag: --" + body);
    if (spec->info.is_bool) {
      if (!value) value = "true";
    } else if (!value) {
      if (i + 1 >= args.size()) return util::InvalidArgument("flag needs an argument: --" + body);
      value = args[++i];
    }
    // Repeated list flags accumulate, as pflag's slices do.
    std::vector<std::string> Flags::* list = nullptr;
    if (body == "authorization-always-allow-paths") list = &Flags::authorization_always_allow_paths;
    for (const auto& [n, field] : RequestHeaderLists()) {
      if (body == n) list = field;
    }
    if (list != nullptr && seen.count(body)) {
      std::vector<std::string> before = f.*list;
      Status st = spec->set(*value, f);
      if (!st.ok()) return st;
      before.insert(before.end(), (f.*list).begin(), (f.*list).end());
      f.*list = std::move(before);
    } else {
      Status st = spec->set(*value, f);
      if (!st.ok()) return st;
    }
    seen.insert(body);
    // --disable-http2-serving=true asks for what ksched does anyway.
    const bool satisfied = body == "disable-http2-serving" && ParseBool(body, *value).ok() && *ParseBool(body, *value);
    if (spec->info.support == FlagSupport::kIgnored && !satisfied && warned.insert(body).second) {
      f.warnings.push_back("--" + body + " is ignored: " + spec->info.ignored_because);
    }
  }
  return f;
}

std::string FlagsUsage() {
  std::string u = R"(Usage: ksched [flags]

ksched is a Kubernetes secondary scheduler: it schedules the pods whose
spec.schedulerName names one of the profiles of its configuration. It takes
kube-scheduler v1.34's flags with kube-scheduler's syntax.

Flags:
  --config FILE              KubeSchedulerConfiguration file (default: kube-scheduler's defaults)
  --master URL               API server URL; overrides the server of the kubeconfig
  --write-config-to FILE     load, default and validate the configuration (with the flags
                             applied), write it as YAML and exit 0; exit 1 on an invalid one
  --v, -v N                  log verbosity (default 0)
  --vmodule PATTERN=N,...    per-file verbosity; PATTERN is a glob on the source file's name
                             without extension, or on its path when it holds a '/'
  --logging-format text|json text (klog's lines, the default) or json (one JSON object a line:
                             ts, caller, msg, v and the record's key/value pairs)
  --log-flush-frequency D    longest time a log line stays buffered (default 5s)
  --log-text-split-stream, --log-json-split-stream
                             info lines to stdout, errors to stderr
  --secure-port N            HTTPS port of /metrics, /healthz, /livez, /readyz, /configz and
                             /debug/pending, /debug/explain (default 10259; 0 disables)
  --http-port N              (ksched only) plain-HTTP port of the same endpoints on 127.0.0.1,
                             without authentication, for local development (default 0: disabled)
  --explain-record-size N    (ksched only) pods whose last scheduling attempt /debug/explain
                             remembers (filter counts, top nodes' scores; default 1000; 0: off,
                             at no cost to the scheduling cycle)
  --bind-address IP          address the endpoints listen on (default 0.0.0.0)
  --permit-address-sharing   SO_REUSEADDR (always set, as on Go's listeners)
  --permit-port-sharing      SO_REUSEPORT: several processes may bind the same address and port
  --tls-cert-file FILE       serving certificate for --secure-port (default: self-signed)
  --tls-private-key-file FILE
  --cert-dir DIR             without the two files: serve DIR/kube-scheduler.crt and .key, made
                             self-signed there on the first start (default: in memory only)
  --tls-min-version V        VersionTLS10, VersionTLS11, VersionTLS12 (default) or VersionTLS13
  --tls-cipher-suites S,...  Go's cipher suite names; they restrict TLS 1.2 and older (TLS 1.3's
                             suites are not configurable, as in Go)
  --tls-curve-preferences ID,...
                             Go's CurveIDs (23 P-256, 24 P-384, 25 P-521, 29 X25519) the server
                             offers for key exchange (default: the TLS library's)
  --client-ca-file FILE      client certificates signed by this CA bundle authenticate as their
                             CN (user) and O (groups); default: the cluster's
                             kube-system/extension-apiserver-authentication ConfigMap, if any
  --requestheader-client-ca-file FILE
                             a client certificate signed by this CA bundle (a front proxy) may name
                             the user in request headers; default: the same ConfigMap's, if any
  --requestheader-allowed-names CN,...
                             CommonNames such a front proxy may have (default: any)
  --requestheader-username-headers H,...   (default x-remote-user)
  --requestheader-group-headers H,...      (default x-remote-group)
  --requestheader-extra-headers-prefix P,... (default x-remote-extra-)
  --requestheader-uid-headers H,...        (default none)
  --authentication-kubeconfig FILE
                             kubeconfig of the API server that reviews bearer tokens
                             (TokenReview; default: the main client connection)
  --authorization-kubeconfig FILE
                             kubeconfig of the API server that authorizes requests
                             (SubjectAccessReview; default: the main client connection)
  --authentication-skip-lookup[=BOOL]
                             do not look up the client CA in the cluster
  --authentication-tolerate-lookup-failure[=BOOL]
                             start even when that lookup fails (default true, as kube-scheduler)
  --authentication-token-webhook-cache-ttl D
                             how long token review answers are cached (default 10s)
  --authorization-webhook-cache-authorized-ttl D
                             how long "allowed" answers are cached (default 10s)
  --authorization-webhook-cache-unauthorized-ttl D
                             how long "denied" answers are cached (default 10s)
  --authorization-always-allow-paths P1,P2
                             paths served without authentication or authorization; a trailing
                             '*' matches a prefix (default /healthz,/readyz,/livez)
  --feature-gates [kube:]Name=BOOL,...
                             kube-scheduler's gates at the chosen minor, checked as kube checks
                             them; ksched models SchedulerPopFromBackoffQ, SchedulerAsyncPreemption
                             (and SchedulerQueueingHints, locked on); other kube gates are accepted
                             and ignored with a warning
  --emulated-version [kube=]1.NN
                             behave as kube-scheduler 1.34..1.37 (default: the API server's minor,
                             clamped to that range)
  --min-compatibility-version [kube=]1.NN
                             checked and ignored (no behaviour ksched models depends on it)
  --show-hidden-metrics-for-version 1.NN
                             accepted (ksched hides no metric)
  --disabled-metrics NAME,...
                             metric families /metrics leaves out
  --leader-elect[=BOOL]      elect a leader through a Lease before scheduling (the file's
                             leaderElection.leaderElect; kube's default: true)
  --leader-elect-lease-duration D
                             how long standbys wait after the last renewal before taking the
                             lease over (default 15s)
  --leader-elect-renew-deadline D
                             how long the leader keeps retrying a renewal before it gives up
                             leadership and exits (default 10s)
  --leader-elect-retry-period D
                             time between acquire and renew attempts (default 2s)
  --leader-elect-resource-lock leases
                             the lock type; only "leases" is supported
  --leader-elect-resource-name NAME
                             the Lease's name (default kube-scheduler; give a secondary
                             scheduler its own, e.g. ksched)
  --leader-elect-resource-namespace NS
                             the Lease's namespace (default kube-system)
                             Every --leader-elect* flag given overrides the configuration file.
  --version[=raw|vX.Y.Z]     print the version and exit
  --help, -h                 print this help and exit

Deprecated (as in kube-scheduler, ignored when --config is given):
  --kubeconfig FILE          clientConnection.kubeconfig
  --kube-api-qps Q, --kube-api-burst N
                             clientConnection.qps / burst
  --kube-api-content-type T  application/json; application/vnd.kubernetes.protobuf is accepted
                             with a warning (ksched speaks JSON to the API server)
  --profiling, --contention-profiling
                             enableProfiling / enableContentionProfiling (no effect: see below)
  --pod-max-in-unschedulable-pods-duration D
                             the longest a pod stays unschedulable before it is retried (default
                             5m; applies with --config too)

Accepted for kube-scheduler compatibility and ignored (a warning at start-up says why):
)";
  for (const FlagInfo& f : KnownFlags()) {
    if (f.support != FlagSupport::kIgnored) continue;
    u += "  --" + f.name + ": " + f.ignored_because + "\n";
  }
  return u;
}

void ApplyLeaderElectionFlags(const Flags& flags, config::LeaderElectionConfiguration* le) {
  if (flags.leader_elect) le->leader_elect = *flags.leader_elect;
  if (flags.leader_elect_lease_duration) le->lease_duration = *flags.leader_elect_lease_duration;
  if (flags.leader_elect_renew_deadline) le->renew_deadline = *flags.leader_elect_renew_deadline;
  if (flags.leader_elect_retry_period) le->retry_period = *flags.leader_elect_retry_period;
  if (flags.leader_elect_resource_lock) le->resource_lock = *flags.leader_elect_resource_lock;
  if (flags.leader_elect_resource_name) le->resource_name = *flags.leader_elect_resource_name;
  if (flags.leader_elect_resource_namespace) le->resource_namespace = *flags.leader_elect_resource_namespace;
}

std::vector<std::string> ApplyDeprecatedFlags(const Flags& flags, bool has_config_file,
                                              config::KubeSchedulerConfiguration* cfg) {
  std::vector<std::string> warnings;
  const std::vector<std::pair<const char*, bool>> given = {
      {"kubeconfig", flags.kubeconfig.has_value()},
      {"kube-api-qps", flags.kube_api_qps.has_value()},
      {"kube-api-burst", flags.kube_api_burst.has_value()},
      {"kube-api-content-type", flags.kube_api_content_type.has_value()},
      {"profiling", flags.profiling.has_value()},
      {"contention-profiling", flags.contention_profiling.has_value()},
  };
  if (has_config_file) {
    for (const auto& [name, set] : given) {
      if (set) {
        warnings.push_back(std::string("--") + name +
                           " is ignored: a --config file is given (as kube-scheduler, deprecated flags then "
                           "do not apply; set the file's field instead)");
      }
    }
    return warnings;
  }
  config::ClientConnectionConfiguration& cc = cfg->client_connection;
  if (flags.kubeconfig) cc.kubeconfig = *flags.kubeconfig;
  if (flags.kube_api_qps) cc.qps = *flags.kube_api_qps;
  if (flags.kube_api_burst) cc.burst = *flags.kube_api_burst;
  if (flags.kube_api_content_type) {
    cc.content_type = *flags.kube_api_content_type;
    if (cc.content_type != "application/json") {
      warnings.push_back("--kube-api-content-type=" + cc.content_type +
                         ": ksched speaks application/json to the API server");
    }
  }
  if (flags.profiling) cfg->enable_profiling = *flags.profiling;
  if (flags.contention_profiling) cfg->enable_contention_profiling = *flags.contention_profiling;
  return warnings;
}

}  // namespace ksched::app
