#include "cmd/ksched/flags.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"

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
  EXPECT_FALSE(f->authentication_tolerate_lookup_failure);
  EXPECT_TRUE(f->client_ca_file.empty());
  EXPECT_TRUE(f->authentication_kubeconfig.empty());
  EXPECT_TRUE(f->authorization_kubeconfig.empty());
}

TEST(FlagsTest, DelegatedAuthFlags) {
  auto f = ParseFlags({"--client-ca-file=/ca.crt", "--authentication-kubeconfig", "/authn", "--authorization-kubeconfig=/authz",
                       "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure=true",
                       "--authentication-token-webhook-cache-ttl=1m", "--authorization-webhook-cache-authorized-ttl=5m",
                       "--authorization-webhook-cache-unauthorized-ttl=30s",
                       "--authorization-always-allow-paths=/healthz,/metrics,/debug/*"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->client_ca_file, "/ca.crt");
  EXPECT_EQ(f->authentication_kubeconfig, "/authn");
  EXPECT_EQ(f->authorization_kubeconfig, "/authz");
  EXPECT_TRUE(f->authentication_skip_lookup);
  EXPECT_TRUE(f->authentication_tolerate_lookup_failure);
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
                       "10251", "--secure-port=0", "--feature-gates", "SchedulerQueueingHints=false", "--version"});
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->master, "http://127.0.0.1:8080");
  EXPECT_EQ(f->config_file, "/etc/ksched.yaml");
  EXPECT_EQ(f->verbosity, 4);
  EXPECT_EQ(f->http_port, 10251);
  EXPECT_EQ(f->secure_port, 0);
  EXPECT_EQ(f->feature_gates, "SchedulerQueueingHints=false");
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
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration();
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
  config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration();
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

TEST(FlagsTest, UsageMentionsEveryFlag) {
  std::string u = FlagsUsage();
  for (const char* flag :
       {"--config", "--master", "--kubeconfig", "--v", "--secure-port", "--http-port", "--bind-address",
        "--feature-gates", "--write-config-to", "--version", "--help",
        "--leader-elect[=BOOL]", "--leader-elect-lease-duration", "--leader-elect-renew-deadline",
        "--leader-elect-retry-period", "--leader-elect-resource-lock", "--leader-elect-resource-name",
        "--leader-elect-resource-namespace", "--tls-cert-file", "--tls-private-key-file", "--client-ca-file",
        "--authentication-kubeconfig", "--authorization-kubeconfig", "--authentication-skip-lookup",
        "--authentication-tolerate-lookup-failure", "--authentication-token-webhook-cache-ttl",
        "--authorization-webhook-cache-authorized-ttl", "--authorization-webhook-cache-unauthorized-ttl",
        "--authorization-always-allow-paths"}) {
    EXPECT_NE(u.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace ksched::app
