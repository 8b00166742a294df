#include "cmd/ksched/flags.h"

#include <gtest/gtest.h>

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

TEST(FlagsTest, UsageMentionsEveryFlag) {
  std::string u = FlagsUsage();
  for (const char* flag : {"--config", "--master", "--kubeconfig", "--v", "--secure-port", "--http-port",
                           "--bind-address", "--feature-gates", "--write-config-to", "--version", "--help"}) {
    EXPECT_NE(u.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace ksched::app
