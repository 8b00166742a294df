#include "cmd/kubectl-ksched/options.h"

#include <gtest/gtest.h>

#include "cmd/kubectl-ksched/reach.h"

namespace ksched::kubectl_ksched {
namespace {

TEST(OptionsTest, ParsesKubectlConnectionFlagsInEverySpelling) {
  util::StatusOr<Options> o = ParseArgs({"why", "web-1", "-n", "shop", "--kubeconfig=/k", "--context", "prod",
                                         "-ojson", "--token", "t", "--request-timeout=2m", "--port", "10300"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->command, "why");
  EXPECT_EQ(o->pod, "web-1");
  EXPECT_EQ(o->namespace_, "shop");
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_EQ(o->context, "prod");
  EXPECT_EQ(o->output, "json");
  EXPECT_EQ(o->token, "t");
  EXPECT_EQ(o->request_timeout_seconds, 120);
  EXPECT_EQ(o->port, 10300);
  EXPECT_EQ(ParseArgs({"why", "pod/web-1", "--namespace=x"})->pod, "web-1");
  EXPECT_EQ(ParseArgs({"why", "shop/web-1"})->pod, "shop/web-1");
  EXPECT_EQ(ParseArgs({"queue", "-o", "text", "--endpoint", "https://127.0.0.1:10259"})->endpoint,
            "https://127.0.0.1:10259");
}

TEST(OptionsTest, RejectsWhatItDoesNotKnow) {
  EXPECT_FALSE(ParseArgs({}).ok());
  EXPECT_FALSE(ParseArgs({"whatif"}).ok());
  EXPECT_FALSE(ParseArgs({"why"}).ok());
  EXPECT_FALSE(ParseArgs({"why", "a", "b"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "x"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "-o", "yaml"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "--bogus"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "--context"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "--port", "0"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "--endpoint", "ftp://x"}).ok());
  EXPECT_NE(ParseArgs({"queue", "--bogus"}).status().message().find("--bogus"), std::string::npos);
}

TEST(OptionsTest, EveryCommandHasItsHelp) {
  ASSERT_TRUE(ParseArgs({"--help"}).ok());
  EXPECT_TRUE(ParseArgs({"--help"})->help);
  EXPECT_TRUE(ParseArgs({"why", "-h"})->help);
  EXPECT_EQ(ParseArgs({"why", "-h"})->command, "why");
  EXPECT_NE(Usage("").find("why POD"), std::string::npos);
  EXPECT_NE(Usage("why").find("Usage: kubectl ksched why POD"), std::string::npos);
  EXPECT_NE(Usage("queue").find("Usage: kubectl ksched queue"), std::string::npos);
  EXPECT_NE(Usage("what-if").find("Usage: kubectl ksched what-if -f pods.yaml"), std::string::npos);
  EXPECT_EQ(Usage("what-if").find("Reaching ksched"), std::string::npos);  // it does not talk to ksched
  EXPECT_TRUE(ParseArgs({"what-if", "--help"})->help);
  for (const char* c : {"", "why", "queue", "what-if"}) {
    EXPECT_NE(Usage(c).find("--kubeconfig"), std::string::npos) << c;
  }
}

TEST(OptionsTest, WhatIfTakesFilesConfigExplainAndHtml) {
  util::StatusOr<Options> o = ParseArgs({"what-if", "-f", "a.yaml", "--filename=b.yaml", "-fc.yaml", "--config",
                                         "cfg.yaml", "--explain", "-o", "html", "--chunk-size", "100", "--seed=7",
                                         "-n", "team"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->command, "what-if");
  EXPECT_EQ(o->files, (std::vector<std::string>{"a.yaml", "b.yaml", "c.yaml"}));
  EXPECT_EQ(o->config_file, "cfg.yaml");
  EXPECT_TRUE(o->explain);
  EXPECT_EQ(o->output, "html");
  EXPECT_EQ(o->chunk_size, 100);
  EXPECT_EQ(o->seed, 7u);
  EXPECT_EQ(o->namespace_, "team");
  EXPECT_EQ(ParseArgs({"what-if", "-f", "a", "-o", "table"})->output, "text");
  EXPECT_EQ(ParseArgs({"what-if", "-f", "a", "--chunk-size=0"})->chunk_size, 0);
  EXPECT_FALSE(ParseArgs({"what-if", "-f", "a", "--explain=false"})->explain);

  EXPECT_FALSE(ParseArgs({"what-if"}).ok());                  // no -f
  EXPECT_FALSE(ParseArgs({"what-if", "pods.yaml"}).ok());     // not positional
  EXPECT_FALSE(ParseArgs({"what-if", "-f", "a", "-o", "yaml"}).ok());
  EXPECT_FALSE(ParseArgs({"what-if", "-f", "a", "--chunk-size", "-1"}).ok());
  EXPECT_FALSE(ParseArgs({"what-if", "-f", "a", "--seed", "0"}).ok());
  EXPECT_FALSE(ParseArgs({"queue", "-o", "html"}).ok());      // html is what-if's
  EXPECT_FALSE(ParseArgs({"why", "p", "-f", "a.yaml"}).ok());  // -f is what-if's
  EXPECT_NE(ParseArgs({"what-if"}).status().message().find("-f pods.yaml"), std::string::npos);
}

TEST(OptionsTest, WhatIfTakesTheMinorAndFeatureGates) {
  util::StatusOr<Options> o = ParseArgs({"what-if", "-f", "a", "--emulated-version=1.35", "--feature-gates",
                                         "OpportunisticBatching=false"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->emulated_minor, 35);
  EXPECT_EQ(o->feature_gates, "OpportunisticBatching=false");
  EXPECT_EQ(ParseArgs({"what-if", "-f", "a", "--emulated-version", "kube=1.36"})->emulated_minor, 36);
  EXPECT_EQ(ParseArgs({"what-if", "-f", "a"})->emulated_minor, 0);
  util::StatusOr<Options> old = ParseArgs({"what-if", "-f", "a", "--emulated-version=1.20"});
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("--emulated-version must be 1.34 to 1.37"), std::string::npos)
      << old.status().message();
  EXPECT_FALSE(ParseArgs({"why", "p", "--emulated-version=1.35"}).ok());   // what-if's
  EXPECT_FALSE(ParseArgs({"queue", "--feature-gates=Foo=true"}).ok());   // what-if's
}

TEST(ReachTest, TheLeaderPodIsTheHolderIdentityBeforeItsUuid) {
  EXPECT_EQ(*LeaderPod("ksched-7d9f-abcde_0f3c2a1e-1111-2222-3333-444455556666"), "ksched-7d9f-abcde");
  EXPECT_EQ(*LeaderPod("plain-host"), "plain-host");
  EXPECT_FALSE(LeaderPod("").ok());
}

TEST(ReachTest, TheEndpointGetsTheUsersCredentialsButNotTheApiServersTrust) {
  client::RestConfig user;
  user.host = "https://api:6443";
  user.ca_file = "/api-ca.crt";
  user.cert_file = "/me.crt";
  user.key_file = "/me.key";
  Options o;
  o.endpoint_ca = "/ksched-ca.crt";
  client::RestConfig c = EndpointConfig(user, "https://10.0.0.5:10259", o, true);
  EXPECT_EQ(c.host, "https://10.0.0.5:10259");
  EXPECT_EQ(c.cert_file, "/me.crt");
  EXPECT_EQ(c.key_file, "/me.key");
  EXPECT_EQ(c.ca_file, "/ksched-ca.crt");
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  o.token = "tok";
  c = EndpointConfig(user, "https://127.0.0.1:1", o, false);
  EXPECT_EQ(c.bearer_token, "tok");
  EXPECT_TRUE(c.cert_file.empty());
  EXPECT_TRUE(c.insecure_skip_tls_verify);
}

}  // namespace
}  // namespace ksched::kubectl_ksched
