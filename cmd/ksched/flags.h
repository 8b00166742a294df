// Command-line flags of ksched: every flag of kube-scheduler v1.34, with
// kube-scheduler's syntax (pflag: "--name=value", "--name value", bare
// booleans, "-v N", string lists comma-separated and repeatable), plus
// ksched's own --http-port and --explain-record-size. KnownFlags() says what ksched does with each:
// implemented with kube-scheduler's meaning, or accepted and ignored with
// a start-up warning saying why (profiling, HTTP/2, front-proxy headers,
// ...). FlagsUsage() describes them; README's "Coming from
// kube-scheduler" is the operators' summary.
//
// Deprecated flags map onto the configuration as kube-scheduler maps them
// (ApplyDeprecatedFlags): --kubeconfig, --kube-api-qps/-burst/-content-type,
// --profiling and --contention-profiling only when no --config is given;
// --pod-max-in-unschedulable-pods-duration always.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/config/types.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::app {

struct Flags {
  std::string config_file;
  std::string master;
  int verbosity = 0;
  int secure_port = 10259;
  int http_port = 0;
  // --explain-record-size: pods the attempt record keeps (0: off).
  size_t explain_record_size = 1000;
  std::string bind_address = "0.0.0.0";
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string cert_dir;
  // --tls-min-version as an OpenSSL protocol version (TLS 1.2 unless given).
  int tls_min_version = 0x0303;
  // --tls-cipher-suites: the Go names given, and the OpenSSL cipher list of
  // those that apply to TLS <= 1.2 (Go does not configure TLS 1.3's).
  std::vector<std::string> tls_cipher_suites;
  std::string tls12_cipher_list;
  // --tls-curve-preferences as an OpenSSL groups list ("" = the library's
  // default groups).
  std::string tls_groups_list;
  bool permit_port_sharing = false;
  // --disabled-metrics: metric families /metrics leaves out.
  std::vector<std::string> disabled_metrics;
  // Delegated authentication and authorization of the secure port
  // (kube's DelegatingAuthentication/AuthorizationOptions).
  std::string client_ca_file;
  // Front-proxy (requestheader) authentication; the lists default as
  // kube-scheduler's.
  std::string requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;
  std::vector<std::string> requestheader_username_headers = {"x-remote-user"};
  std::vector<std::string> requestheader_group_headers = {"x-remote-group"};
  std::vector<std::string> requestheader_extra_headers_prefix = {"x-remote-extra-"};
  std::vector<std::string> requestheader_uid_headers;
  std::string authentication_kubeconfig;
  std::string authorization_kubeconfig;
  bool authentication_skip_lookup = false;
  // kube-scheduler's default: a failed client CA lookup is logged and
  // client certificates then do not authenticate (tokens still do).
  bool authentication_tolerate_lookup_failure = true;
  util::Duration authentication_token_webhook_cache_ttl = std::chrono::seconds(10);
  util::Duration authorization_webhook_cache_authorized_ttl = std::chrono::seconds(10);
  util::Duration authorization_webhook_cache_unauthorized_ttl = std::chrono::seconds(10);
  std::vector<std::string> authorization_always_allow_paths = {"/healthz", "/readyz", "/livez"};
  // --feature-gates, "Name=bool,..." ("kube:" prefixes removed, every flag
  // joined in order); checked against the chosen minor's gates at start-up.
  std::string feature_gates;
  // --emulated-version's minor (1.NN); unset: the API server's.
  std::optional<int> emulated_minor;
  std::string write_config_to;
  // Leader election: set only when the flag was given.
  std::optional<bool> leader_elect;
  std::optional<util::Duration> leader_elect_lease_duration;
  std::optional<util::Duration> leader_elect_renew_deadline;
  std::optional<util::Duration> leader_elect_retry_period;
  std::optional<std::string> leader_elect_resource_lock;
  std::optional<std::string> leader_elect_resource_name;
  std::optional<std::string> leader_elect_resource_namespace;
  // Deprecated flags: set only when given (see ApplyDeprecatedFlags).
  std::optional<std::string> kubeconfig;
  std::optional<float> kube_api_qps;
  std::optional<int32_t> kube_api_burst;
  std::optional<std::string> kube_api_content_type;
  std::optional<bool> profiling;
  std::optional<bool> contention_profiling;
  util::Duration pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);
  // Logs.
  std::string logging_format = "text";
  std::string vmodule;
  util::Duration log_flush_frequency = std::chrono::seconds(5);
  bool log_split_stream = false;  // --log-text-split-stream / --log-json-split-stream
  // Global.
  bool version = false;
  std::string version_mode;  // "" / "raw" / the "vX.Y.Z" to report
  bool help = false;
  // One line per given flag that ksched accepts but ignores, saying why;
  // logged as warnings at start-up.
  std::vector<std::string> warnings;
};

// What ksched does with a flag.
enum class FlagSupport {
  kImplemented,  // kube-scheduler's meaning
  kIgnored,      // accepted; a warning at start-up says why it has no effect
  kKschedOnly,   // not a kube-scheduler flag
};

struct FlagInfo {
  std::string name;
  // Takes no value (pflag's bool flags; --version's value is optional).
  bool is_bool = false;
  bool optional_value = false;
  FlagSupport support = FlagSupport::kImplemented;
  // For kIgnored: why (the start-up warning's reason).
  std::string ignored_because;
};

// Every flag ParseFlags accepts, sorted by name.
const std::vector<FlagInfo>& KnownFlags();

// Parses argv[1..]. Errors name the flag and the bad value.
util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args);

std::string FlagsUsage();

// Overwrites the fields of `le` whose --leader-elect* flag was given (kube
// applies them over the file too). Validate the configuration afterwards.
void ApplyLeaderElectionFlags(const Flags& flags, config::LeaderElectionConfiguration* le);

// kube-scheduler's ApplyDeprecated: without --config the deprecated
// client-connection and debugging flags given set `cfg`'s fields; with
// --config they are ignored. Returns the warnings to log (one per flag
// ignored because of --config, and the content type ksched does not speak).
std::vector<std::string> ApplyDeprecatedFlags(const Flags& flags, bool has_config_file,
                                              config::KubeSchedulerConfiguration* cfg);

}  // namespace ksched::app
