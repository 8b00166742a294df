#include "pkg/client/in_cluster.h"

#include <gtest/gtest.h>

#include "pkg/client/test_util.h"

namespace ksched::client {
namespace {

using testing::FakeEnvironment;
using testing::TempDir;

TEST(InClusterTest, ReadsServiceAccountFiles) {
  TempDir dir;
  dir.Write("token", "sa-token\n");
  dir.Write("ca.crt", "CA");
  dir.Write("namespace", "kube-system\n");
  Environment env = FakeEnvironment({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
                                    dir.path());
  ASSERT_TRUE(InClusterEnvironmentPresent(env));
  util::StatusOr<RestConfig> c = InClusterConfig(env);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://10.96.0.1:443");
  EXPECT_EQ(c->bearer_token, "sa-token");
  EXPECT_EQ(c->bearer_token_file, dir.path() + "/token");
  EXPECT_EQ(c->ca_file, dir.path() + "/ca.crt");
  EXPECT_EQ(c->namespace_, "kube-system");
  EXPECT_EQ(c->source, "in-cluster");
}

TEST(InClusterTest, BracketsIpv6AndToleratesMissingCaAndNamespace) {
  TempDir dir;
  dir.Write("token", "t");
  Environment env =
      FakeEnvironment({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}, dir.path());
  util::StatusOr<RestConfig> c = InClusterConfig(env);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://[fd00::1]:6443");
  EXPECT_TRUE(c->ca_file.empty());
  EXPECT_EQ(c->namespace_, "default");
}

TEST(InClusterTest, Errors) {
  TempDir dir;
  Environment no_env = FakeEnvironment({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}}, dir.path());
  EXPECT_FALSE(InClusterEnvironmentPresent(no_env));
  util::StatusOr<RestConfig> c = InClusterConfig(no_env);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("KUBERNETES_SERVICE_PORT must be defined"), std::string::npos);

  Environment env =
      FakeEnvironment({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, dir.path());
  util::StatusOr<RestConfig> no_token = InClusterConfig(env);
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.status().message().find(dir.path() + "/token"), std::string::npos);
}

}  // namespace
}  // namespace ksched::client
