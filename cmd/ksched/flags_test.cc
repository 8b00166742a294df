#include "cmd/ksched/flags.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/config/types.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::app {
namespace {

TEST(FlagsTest, Defaults) {
  auto f = ParseFlags({});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->secure_port, 10259);
  EXPECT_EQ(f->http_port, 0);
  EXPECT_EQ(f->bind_address, "0.0.0.0");
  EXPECT_EQ(f->verbosity, 0);
  EXPECT_FALSE(f->help);
}

TEST(FlagsTest, DelegatedAuthDefaultsAreKubeSchedulers) {
  auto f = ParseFlags({});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->authorization_always_allow_paths, (std::vector<std::string>{"/healthz", "/readyz", "/livez"}));
  EXPECT_EQ(f->authentication_token_webhook_cache_ttl, std::chrono::seconds(10));
  EXPECT_EQ(f->authorization_webhook_cache_authorized_ttl, std::chrono::seconds(10));
  EXPECT_EQ(f->authorization_webhook_cache_unauthorized_ttl, std::chrono::seconds(10));
  EXPECT_FALSE(f->authentication_skip_lookup);
  EXPECT_TRUE(f->authentication_tolerate_lookup_failure);
  EXPECT_TRUE(f->client_ca_file.empty());
  EXPECT_TRUE(f->authentication_kubeconfig.empty());
  EXPECT_TRUE(f->authorization_kubeconfig.empty());
}

TEST(FlagsTest, DelegatedAuthFlags) {
  auto f = ParseFlags({"--client-ca-file=/ca.crt", "--authentication-kubeconfig", "/authn", "--authorization-kubeconfig=/authz",
                       "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure=false",
                       "--authentication-token-webhook-cache-ttl=1m", "--authorization-webhook-cache-authorized-ttl=5m",
                       "--authorization-webhook-cache-unauthorized-ttl=30s",
                       "--authorization-always-allow-paths=/healthz,/metrics,/debug/*"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->client_ca_file, "/ca.crt");
  EXPECT_EQ(f->authentication_kubeconfig, "/authn");
  EXPECT_EQ(f->authorization_kubeconfig, "/authz");
  EXPECT_TRUE(f->authentication_skip_lookup);
  EXPECT_FALSE(f->authentication_tolerate_lookup_failure);
  EXPECT_EQ(f->authentication_token_webhook_cache_ttl, std::chrono::minutes(1));
  EXPECT_EQ(f->authorization_webhook_cache_authorized_ttl, std::chrono::minutes(5));
  EXPECT_EQ(f->authorization_webhook_cache_unauthorized_ttl, std::chrono::seconds(30));
  EXPECT_EQ(f->authorization_always_allow_paths, (std::vector<std::string>{"/healthz", "/metrics", "/debug/*"}));
  auto none = ParseFlags({"--authorization-always-allow-paths="});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->authorization_always_allow_paths.empty());
  EXPECT_FALSE(ParseFlags({"--authorization-webhook-cache-authorized-ttl=ten"}).ok());
}

TEST(FlagsTest, BothSpellings) {
  auto f = ParseFlags({"--master", "http://127.0.0.1:8080", "--config=/etc/ksched.yaml", "--v=4", "-http-port",
                       "10251", "--secure-port=0", "--feature-gates", "SchedulerPopFromBackoffQ=false", "--version"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->master, "http://127.0.0.1:8080");
  EXPECT_EQ(f->config_file, "/etc/ksched.yaml");
  EXPECT_EQ(f->verbosity, 4);
  EXPECT_EQ(f->http_port, 10251);
  EXPECT_EQ(f->secure_port, 0);
  EXPECT_EQ(f->feature_gates, "SchedulerPopFromBackoffQ=false");
  EXPECT_TRUE(f->version);
}

TEST(FlagsTest, Errors) {
  EXPECT_EQ(ParseFlags({"--nope"}).status().message(), "unknown flag: --nope");
  EXPECT_EQ(ParseFlags({"--config"}).status().message(), "flag needs an argument: --config");
  EXPECT_EQ(ParseFlags({"--http-port=70000"}).status().message(),
            "invalid value \"70000\" for flag --http-port: must be a port in [0, 65535]");
  EXPECT_EQ(ParseFlags({"--v=x"}).status().message(),
            "invalid value \"x\" for flag --v: must be a non-negative integer");
  EXPECT_EQ(ParseFlags({"--help=maybe"}).status().message(),
            "invalid value \"maybe\" for flag --help: must be a boolean");
  EXPECT_FALSE(ParseFlags({"stray"}).ok());
}

TEST(FlagsTest, LeaderElectionFlagsAreUnsetUnlessGiven) {
  auto f = ParseFlags({});
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->leader_elect);
  EXPECT_FALSE(f->leader_elect_lease_duration);
  EXPECT_FALSE(f->leader_elect_resource_name);
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  config::LeaderElectionConfiguration before = cfg.leader_election;
  ApplyLeaderElectionFlags(*f, &cfg.leader_election);
  EXPECT_EQ(cfg.leader_election.leader_elect, before.leader_elect);
  EXPECT_EQ(cfg.leader_election.lease_duration, before.lease_duration);
  EXPECT_EQ(cfg.leader_election.resource_name, "kube-scheduler");
}

TEST(FlagsTest, LeaderElectionFlagsOverrideTheConfiguration) {
  auto f = ParseFlags({"--leader-elect=false", "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline",
                       "3s", "--leader-elect-retry-period=500ms", "--leader-elect-resource-lock=leases",
                       "--leader-elect-resource-name=ksched", "--leader-elect-resource-namespace", "ksched-system"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  ApplyLeaderElectionFlags(*f, &cfg.leader_election);
  const config::LeaderElectionConfiguration& le = cfg.leader_election;
  EXPECT_EQ(le.leader_elect, false);
  EXPECT_EQ(le.lease_duration, std::chrono::seconds(4));
  EXPECT_EQ(le.renew_deadline, std::chrono::seconds(3));
  EXPECT_EQ(le.retry_period, std::chrono::milliseconds(500));
  EXPECT_EQ(le.resource_lock, "leases");
  EXPECT_EQ(le.resource_name, "ksched");
  EXPECT_EQ(le.resource_namespace, "ksched-system");
  // A bare boolean flag means true.
  auto on = ParseFlags({"--leader-elect"});
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->leader_elect, true);
}

TEST(FlagsTest, LeaderElectionFlagErrors) {
  EXPECT_EQ(ParseFlags({"--leader-elect-resource-lock=endpoints"}).status().message(),
            "invalid value \"endpoints\" for flag --leader-elect-resource-lock: only \"leases\" is supported");
  EXPECT_EQ(ParseFlags({"--leader-elect-resource-lock", "configmapsleases"}).status().code(),
            util::StatusCode::kInvalidArgument);
  std::string bad = ParseFlags({"--leader-elect-lease-duration=15"}).status().message();
  EXPECT_EQ(bad.rfind("invalid value \"15\" for flag --leader-elect-lease-duration: ", 0), 0u) << bad;
  EXPECT_FALSE(ParseFlags({"--leader-elect-retry-period=soon"}).ok());
  EXPECT_EQ(ParseFlags({"--leader-elect=maybe"}).status().message(),
            "invalid value \"maybe\" for flag --leader-elect: must be a boolean");
  EXPECT_EQ(ParseFlags({"--leader-elect-resource-name"}).status().message(),
            "flag needs an argument: --leader-elect-resource-name");
}

TEST(FlagsTest, RequestHeaderFlagsDefaultAsKubeSchedulerAndAccumulate) {
  auto d = ParseFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->requestheader_client_ca_file.empty());
  EXPECT_TRUE(d->requestheader_allowed_names.empty());
  EXPECT_EQ(d->requestheader_username_headers, std::vector<std::string>{"x-remote-user"});
  EXPECT_EQ(d->requestheader_group_headers, std::vector<std::string>{"x-remote-group"});
  EXPECT_EQ(d->requestheader_extra_headers_prefix, std::vector<std::string>{"x-remote-extra-"});
  EXPECT_TRUE(d->requestheader_uid_headers.empty());
  auto f = ParseFlags({"--requestheader-client-ca-file=/proxy-ca.crt", "--requestheader-username-headers=X-User",
                       "--requestheader-username-headers", "X-Other-User", "--requestheader-group-headers=a,b",
                       "--requestheader-extra-headers-prefix=X-E-", "--requestheader-uid-headers=X-Uid",
                       "--requestheader-allowed-names=front-proxy-client,aggregator"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->warnings.empty());
  EXPECT_EQ(f->requestheader_client_ca_file, "/proxy-ca.crt");
  EXPECT_EQ(f->requestheader_username_headers, (std::vector<std::string>{"X-User", "X-Other-User"}));
  EXPECT_EQ(f->requestheader_group_headers, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f->requestheader_extra_headers_prefix, std::vector<std::string>{"X-E-"});
  EXPECT_EQ(f->requestheader_uid_headers, std::vector<std::string>{"X-Uid"});
  EXPECT_EQ(f->requestheader_allowed_names, (std::vector<std::string>{"front-proxy-client", "aggregator"}));
}

TEST(FlagsTest, UsageMentionsEveryFlag) {
  std::string u = FlagsUsage();
  for (const FlagInfo& f : KnownFlags()) {
    EXPECT_NE(u.find("--" + f.name), std::string::npos) << f.name;
  }
}

TEST(FlagsTest, IgnoredFlagsWarnOnceWithTheReason) {
  auto f = ParseFlags({"--profiling=false", "--profiling=false", "--tls-sni-cert-key=a.crt,a.key",
                       "--http2-max-streams-per-connection=100", "--disable-http2-serving"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->warnings.size(), 3u);
  EXPECT_EQ(f->warnings[0], "--profiling is ignored: ksched serves no /debug/pprof profiling endpoints");
  EXPECT_EQ(f->warnings[2], "--http2-max-streams-per-connection is ignored: ksched serves HTTP/1.1 only");
  // Asking for HTTP/2 is ignored; asking to disable it is what ksched does.
  auto h2 = ParseFlags({"--disable-http2-serving=false"});
  ASSERT_TRUE(h2.ok());
  EXPECT_EQ(h2->warnings, (std::vector<std::string>{"--disable-http2-serving is ignored: ksched serves HTTP/1.1 only"}));
  EXPECT_TRUE(ParseFlags({}).value().warnings.empty());
}

TEST(FlagsTest, DeprecatedFlagsApplyOnlyWithoutConfigFile) {
  auto f = ParseFlags({"--kubeconfig=/etc/kubernetes/scheduler.conf", "--kube-api-qps=75.5", "--kube-api-burst",
                       "150", "--kube-api-content-type=application/json", "--profiling=false",
                       "--pod-max-in-unschedulable-pods-duration=90s"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->pod_max_in_unschedulable_pods_duration, std::chrono::seconds(90));
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  EXPECT_TRUE(ApplyDeprecatedFlags(*f, /*has_config_file=*/false, &cfg).empty());
  EXPECT_EQ(cfg.client_connection.kubeconfig, "/etc/kubernetes/scheduler.conf");
  EXPECT_FLOAT_EQ(cfg.client_connection.qps, 75.5f);
  EXPECT_EQ(cfg.client_connection.burst, 150);
  EXPECT_EQ(cfg.client_connection.content_type, "application/json");
  EXPECT_EQ(cfg.enable_profiling, false);

  config::KubeSchedulerConfiguration from_file = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  from_file.client_connection.kubeconfig = "/from/file";
  std::vector<std::string> w = ApplyDeprecatedFlags(*f, /*has_config_file=*/true, &from_file);
  EXPECT_EQ(from_file.client_connection.kubeconfig, "/from/file");
  EXPECT_FLOAT_EQ(from_file.client_connection.qps,
                  config::DefaultConfiguration(scheduler::plugins::InTreePlugins()).client_connection.qps);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0].rfind("--kubeconfig is ignored: a --config file is given", 0), 0u) << w[0];

  auto proto = ParseFlags({"--kube-api-content-type=application/vnd.kubernetes.protobuf"});
  ASSERT_TRUE(proto.ok());
  config::KubeSchedulerConfiguration c = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  std::vector<std::string> pw = ApplyDeprecatedFlags(*proto, false, &c);
  ASSERT_EQ(pw.size(), 1u);
  EXPECT_NE(pw[0].find("ksched speaks application/json"), std::string::npos);
  EXPECT_FALSE(ParseFlags({"--kube-api-content-type=text/plain"}).ok());
  EXPECT_FALSE(ParseFlags({"--kube-api-qps=fast"}).ok());
  EXPECT_FALSE(ParseFlags({"--kube-api-burst=-1"}).ok());
}

TEST(FlagsTest, TlsFlags) {
  auto f = ParseFlags({"--tls-min-version=VersionTLS13",
                       "--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                       "--tls-cipher-suites", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "--permit-port-sharing"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->tls_min_version, 0x0304);
  EXPECT_EQ(f->tls12_cipher_list, "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305");
  EXPECT_EQ(f->tls_cipher_suites.size(), 3u);
  EXPECT_TRUE(f->permit_port_sharing);
  EXPECT_EQ(ParseFlags({}).value().tls_min_version, 0x0303);
  EXPECT_NE(ParseFlags({"--tls-min-version=TLS1.2"}).status().message().find("unknown tls version"), std::string::npos);
  EXPECT_NE(ParseFlags({"--tls-cipher-suites=TLS_NOPE"}).status().message().find("TLS_NOPE not supported"),
            std::string::npos);
  EXPECT_FALSE(ParseFlags({"--bind-address=not-an-ip"}).ok());
  EXPECT_EQ(ParseFlags({"--bind-address=::1"}).value().bind_address, "::1");
}

// kube-scheduler 1.37's flag: Go CurveIDs, checked with kube's texts.
TEST(FlagsTest, TlsCurvePreferences) {
  EXPECT_EQ(ParseFlags({"--tls-curve-preferences=29,23"}).value().tls_groups_list, "X25519:P-256");
  EXPECT_EQ(ParseFlags({}).value().tls_groups_list, "");
  auto message = [](const std::string& v) {
    return std::string(ParseFlags({"--tls-curve-preferences=" + v}).status().message());
  };
  EXPECT_NE(message("0").find("curve preference 0 is out of range (must be 1-65535)"), std::string::npos);
  EXPECT_NE(message("23,23").find("duplicate curve preference 23"), std::string::npos);
  EXPECT_NE(message("77").find("curve preference 77 is not supported by the current Go version"),
            std::string::npos);
  EXPECT_NE(message("4588").find("not supported by ksched's TLS library"), std::string::npos);
  EXPECT_NE(message("x").find("invalid syntax"), std::string::npos);
}

TEST(FlagsTest, MinCompatibilityVersionIsCheckedAndIgnored) {
  auto f = ParseFlags({"--min-compatibility-version=kube=1.35"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_NE(ParseFlags({"--min-compatibility-version=1.20"}).status().message().find(
                "min compatibility version 1.20 is not between [1.34, 1.37]"),
            std::string::npos);
  EXPECT_NE(ParseFlags({"--min-compatibility-version=foo=1.35"}).status().message().find(
                "component not registered: foo"),
            std::string::npos);
}

// Only the syntax is checked here: the gates themselves are checked against
// the chosen minor's list at start-up (FeatureGates::Set).
TEST(FlagsTest, FeatureGatesTakeKubesSyntax) {
  auto f = ParseFlags({"--feature-gates=kube:SchedulerPopFromBackoffQ=false,AllAlpha=false",
                       "--feature-gates", "kube:SchedulerAsyncPreemption=false"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->feature_gates, "SchedulerPopFromBackoffQ=false,AllAlpha=false,SchedulerAsyncPreemption=false");
  EXPECT_TRUE(f->warnings.empty());
  EXPECT_FALSE(ParseFlags({"--feature-gates=SchedulerQueueingHints=maybe"}).ok());
  EXPECT_FALSE(ParseFlags({"--feature-gates=SchedulerQueueingHints"}).ok());
  EXPECT_FALSE(ParseFlags({"--feature-gates=wardle:Foo=true"}).ok());
}

TEST(FlagsTest, EmulatedVersionChoosesTheMinor) {
  EXPECT_FALSE(ParseFlags({}).value().emulated_minor.has_value());
  EXPECT_EQ(ParseFlags({"--emulated-version=kube=1.35"}).value().emulated_minor, 35);
  EXPECT_EQ(ParseFlags({"--emulated-version=1.37"}).value().emulated_minor, 37);
  EXPECT_EQ(ParseFlags({"--emulated-version=1.34"}).value().emulated_minor, 34);
  auto old = ParseFlags({"--emulated-version=1.20"});
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("emulation version 1.20 is not between [1.34, 1.37]"), std::string::npos)
      << old.status().message();
  EXPECT_FALSE(ParseFlags({"--emulated-version=1.38"}).ok());
  EXPECT_FALSE(ParseFlags({"--emulated-version=wardle=1.2"}).ok());
  EXPECT_FALSE(ParseFlags({"--emulated-version=v1.x"}).ok());
}

TEST(FlagsTest, MetricsAndLogFlags) {
  EXPECT_TRUE(ParseFlags({"--show-hidden-metrics-for-version=1.33"}).ok());
  EXPECT_NE(ParseFlags({"--show-hidden-metrics-for-version=1.30"}).status().message().find("(1.33..1.36)"),
            std::string::npos);
  auto f = ParseFlags({"--logging-format=json", "--vmodule=schedule_one=4", "--log-flush-frequency=2s",
                       "--log-json-split-stream", "-v", "3", "--version=raw"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->logging_format, "json");
  EXPECT_EQ(f->vmodule, "schedule_one=4");
  EXPECT_EQ(f->log_flush_frequency, std::chrono::seconds(2));
  EXPECT_TRUE(f->log_split_stream);
  EXPECT_EQ(f->verbosity, 3);
  EXPECT_TRUE(f->version);
  EXPECT_EQ(f->version_mode, "raw");
  EXPECT_FALSE(ParseFlags({"--logging-format=xml"}).ok());
  EXPECT_FALSE(ParseFlags({"--log-text-info-buffer-size=lots"}).ok());
  EXPECT_TRUE(ParseFlags({"--log-text-info-buffer-size=2Ki"}).ok());
  auto d = ParseFlags({"--disabled-metrics=scheduler_goroutines", "--disabled-metrics=scheduler_cache_size,x"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->disabled_metrics, (std::vector<std::string>{"scheduler_goroutines", "scheduler_cache_size", "x"}));
  EXPECT_TRUE(d->warnings.empty());
}

}  // namespace
}  // namespace ksched::app
