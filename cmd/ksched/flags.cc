#include "cmd/ksched/flags.h"

#include <charconv>
#include <functional>
#include <map>
#include <optional>

#include "pkg/config/duration.h"

namespace ksched::app {

namespace {

util::StatusOr<int> ParsePort(const std::string& flag, const std::string& v) {
  int n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || n > 65535) {
    return util::InvalidArgument("invalid value \"" + v + "\" for flag --" + flag + ": must be a port in [0, 65535]");
  }
  return n;
}

util::StatusOr<bool> ParseBool(const std::string& flag, const std::string& v) {
  if (v == "true" || v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "True") return true;
  if (v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False") return false;
  return util::InvalidArgument("invalid value \"" + v + "\" for flag --" + flag + ": must be a boolean");
}

util::StatusOr<util::Duration> ParseDuration(const std::string& flag, const std::string& v) {
  util::StatusOr<util::Duration> d = config::ParseGoDuration(v);
  if (!d.ok()) {
    return util::InvalidArgument("invalid value \"" + v + "\" for flag --" + flag + ": " + d.status().message());
  }
  return *d;
}

}  // namespace

util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags f;
  using Setter = std::function<util::Status(const std::string&)>;
  auto str = [](std::string* dst) -> Setter {
    return [dst](const std::string& v) {
      *dst = v;
      return util::Status();
    };
  };
  auto port = [](const std::string& name, int* dst) -> Setter {
    return [name, dst](const std::string& v) {
      util::StatusOr<int> p = ParsePort(name, v);
      if (!p.ok()) return p.status();
      *dst = *p;
      return util::Status();
    };
  };
  auto boolean = [](const std::string& name, bool* dst) -> Setter {
    return [name, dst](const std::string& v) {
      util::StatusOr<bool> b = ParseBool(name, v);
      if (!b.ok()) return b.status();
      *dst = *b;
      return util::Status();
    };
  };
  auto opt_str = [](std::optional<std::string>* dst) -> Setter {
    return [dst](const std::string& v) {
      *dst = v;
      return util::Status();
    };
  };
  auto duration = [](const std::string& name, std::optional<util::Duration>* dst) -> Setter {
    return [name, dst](const std::string& v) {
      util::StatusOr<util::Duration> d = ParseDuration(name, v);
      if (!d.ok()) return d.status();
      *dst = *d;
      return util::Status();
    };
  };
  auto required_duration = [](const std::string& name, util::Duration* dst) -> Setter {
    return [name, dst](const std::string& v) {
      util::StatusOr<util::Duration> d = ParseDuration(name, v);
      if (!d.ok()) return d.status();
      *dst = *d;
      return util::Status();
    };
  };
  const std::map<std::string, Setter> valued = {
      {"client-ca-file", str(&f.client_ca_file)},
      {"authentication-kubeconfig", str(&f.authentication_kubeconfig)},
      {"authorization-kubeconfig", str(&f.authorization_kubeconfig)},
      {"authentication-token-webhook-cache-ttl",
       required_duration("authentication-token-webhook-cache-ttl", &f.authentication_token_webhook_cache_ttl)},
      {"authorization-webhook-cache-authorized-ttl",
       required_duration("authorization-webhook-cache-authorized-ttl", &f.authorization_webhook_cache_authorized_ttl)},
      {"authorization-webhook-cache-unauthorized-ttl",
       required_duration("authorization-webhook-cache-unauthorized-ttl",
                         &f.authorization_webhook_cache_unauthorized_ttl)},
      {"authorization-always-allow-paths",
       [&f](const std::string& v) {
         // A string slice flag: comma-separated; empty clears the list.
         f.authorization_always_allow_paths.clear();
         size_t start = 0;
         while (start <= v.size() && !v.empty()) {
           size_t comma = v.find(',', start);
           std::string p = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
           if (!p.empty()) f.authorization_always_allow_paths.push_back(p);
           if (comma == std::string::npos) break;
           start = comma + 1;
         }
         return util::Status();
       }},
      {"leader-elect-lease-duration", duration("leader-elect-lease-duration", &f.leader_elect_lease_duration)},
      {"leader-elect-renew-deadline", duration("leader-elect-renew-deadline", &f.leader_elect_renew_deadline)},
      {"leader-elect-retry-period", duration("leader-elect-retry-period", &f.leader_elect_retry_period)},
      {"leader-elect-resource-lock",
       [&f](const std::string& v) {
         // client-go removed the endpoints and configmaps locks (and their
         // multilocks); kube-scheduler accepts only leases.
         if (v != "leases") {
           return util::InvalidArgument("invalid value \"" + v +
                                        "\" for flag --leader-elect-resource-lock: only \"leases\" is supported");
         }
         f.leader_elect_resource_lock = v;
         return util::Status();
       }},
      {"leader-elect-resource-name", opt_str(&f.leader_elect_resource_name)},
      {"leader-elect-resource-namespace", opt_str(&f.leader_elect_resource_namespace)},
      {"config", str(&f.config_file)},
      {"master", str(&f.master)},
      {"kubeconfig", str(&f.kubeconfig)},
      {"bind-address", str(&f.bind_address)},
      {"tls-cert-file", str(&f.tls_cert_file)},
      {"tls-private-key-file", str(&f.tls_private_key_file)},
      {"feature-gates", str(&f.feature_gates)},
      {"write-config-to", str(&f.write_config_to)},
      {"secure-port", port("secure-port", &f.secure_port)},
      {"http-port", port("http-port", &f.http_port)},
      {"v",
       [&f](const std::string& v) {
         int n = 0;
         auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
         if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) {
           return util::InvalidArgument("invalid value \"" + v + "\" for flag --v: must be a non-negative integer");
         }
         f.verbosity = n;
         return util::Status();
       }},
  };
  const std::map<std::string, Setter> booleans = {
      {"version", boolean("version", &f.version)},
      {"help", boolean("help", &f.help)},
      {"leader-elect",
       [&f](const std::string& v) {
         util::StatusOr<bool> b = ParseBool("leader-elect", v);
         if (!b.ok()) return b.status();
         f.leader_elect = *b;
         return util::Status();
       }},
      {"h", boolean("h", &f.help)},
      {"authentication-skip-lookup", boolean("authentication-skip-lookup", &f.authentication_skip_lookup)},
      {"authentication-tolerate-lookup-failure",
       boolean("authentication-tolerate-lookup-failure", &f.authentication_tolerate_lookup_failure)},
  };

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
    if (auto it = booleans.find(body); it != booleans.end()) {
      util::Status s = it->second(value.value_or("true"));
      if (!s.ok()) return s;
      continue;
    }
    auto it = valued.find(body);
    if (it == valued.end()) return util::InvalidArgument("unknown flag: --" + body);
    if (!value) {
      if (i + 1 >= args.size()) return util::InvalidArgument("flag needs an argument: --" + body);
      value = args[++i];
    }
    util::Status s = it->second(*value);
    if (!s.ok()) return s;
  }
  return f;
}

std::string FlagsUsage() {
  return R"(Usage: ksched [flags]

ksched is a Kubernetes secondary scheduler: it schedules the pods whose
spec.schedulerName names one of the profiles of its configuration.

Flags:
  --config FILE              KubeSchedulerConfiguration file (default: kube-scheduler's defaults)
  --master URL               API server URL; overrides the server of the kubeconfig
  --kubeconfig FILE          kubeconfig file (default: clientConnection.kubeconfig, in-cluster
                             configuration, $KUBECONFIG, ~/.kube/config)
  --v N                      log verbosity (default 0)
  --secure-port N            HTTPS port of /metrics, /healthz, /livez, /readyz, /configz and
                             /debug/pending (default 10259; 0 disables)
  --http-port N              plain-HTTP port of the same endpoints on 127.0.0.1, without
                             authentication, for local development (default 0: disabled)
  --bind-address ADDR        address the endpoints listen on (default 0.0.0.0)
  --tls-cert-file FILE       serving certificate for --secure-port (default: self-signed)
  --tls-private-key-file FILE
  --client-ca-file FILE      client certificates signed by this CA bundle authenticate as their
                             CN (user) and O (groups); default: the cluster's
                             kube-system/extension-apiserver-authentication ConfigMap, if any
  --authentication-kubeconfig FILE
                             kubeconfig of the API server that reviews bearer tokens
                             (TokenReview; default: the main client connection)
  --authorization-kubeconfig FILE
                             kubeconfig of the API server that authorizes requests
                             (SubjectAccessReview; default: the main client connection)
  --authentication-skip-lookup[=BOOL]
                             do not look up the client CA in the cluster
  --authentication-tolerate-lookup-failure[=BOOL]
                             start even when that lookup fails (default false)
  --authentication-token-webhook-cache-ttl D
                             how long token review answers are cached (default 10s)
  --authorization-webhook-cache-authorized-ttl D
                             how long "allowed" answers are cached (default 10s)
  --authorization-webhook-cache-unauthorized-ttl D
                             how long "denied" answers are cached (default 10s)
  --authorization-always-allow-paths P1,P2
                             paths served without authentication or authorization; a trailing
                             '*' matches a prefix (default /healthz,/readyz,/livez)
  --feature-gates SPEC       comma-separated Name=bool pairs: SchedulerQueueingHints,
                             SchedulerPopFromBackoffQ, SchedulerAsyncPreemption
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
  --write-config-to FILE     load, default and validate the configuration (with the flags
                             applied), write it as YAML and exit 0; exit 1 on an invalid one
  --version                  print the version and exit
  --help                     print this help and exit
)";
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

}  // namespace ksched::app
