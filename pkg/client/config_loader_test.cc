#include "pkg/client/config_loader.h"

#include <gtest/gtest.h>

#include "pkg/client/test_util.h"

namespace ksched::client {
namespace {

using testing::FakeEnvironment;
using testing::TempDir;

std::string Kubeconfig(const std::string& server) {
  return "current-context: c\n"
         "clusters: [{name: k, cluster: {server: \"" + server + "\"}}]\n"
         "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
         "users: [{name: u, user: {token: t}}]\n";
}

std::map<std::string, std::string> InClusterVars() {
  return {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
}

TEST(ConfigLoaderTest, KubeconfigFlagWinsAndMasterOverridesItsServer) {
  TempDir dir;
  dir.Write("sa/token", "sa");
  std::string path = dir.Write("config", Kubeconfig("https://from-file:6443"));
  Environment env = FakeEnvironment(InClusterVars(), dir.path() + "/sa");

  util::StatusOr<RestConfig> c = BuildConfigFromFlags("", path, env);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://from-file:6443");
  EXPECT_EQ(c->bearer_token, "t");

  util::StatusOr<RestConfig> overridden = BuildConfigFromFlags("http://127.0.0.1:9999", path, env);
  ASSERT_TRUE(overridden.ok()) << overridden.status().ToString();
  EXPECT_EQ(overridden->host, "http://127.0.0.1:9999");
  EXPECT_EQ(overridden->bearer_token, "t");  // credentials still come from the file
}

TEST(ConfigLoaderTest, InClusterWhenNoFlags) {
  TempDir dir;
  dir.Write("sa/token", "sa-token");
  std::string path = dir.Write("config", Kubeconfig("https://from-env:6443"));
  std::map<std::string, std::string> vars = InClusterVars();
  vars["KUBECONFIG"] = path;
  util::StatusOr<RestConfig> c = BuildConfigFromFlags("", "", FakeEnvironment(vars, dir.path() + "/sa"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://10.96.0.1:443");
  EXPECT_EQ(c->source, "in-cluster");
}

TEST(ConfigLoaderTest, KubeconfigEnvThenHomeThenMaster) {
  TempDir dir;
  std::string env_file = dir.Write("env-config", Kubeconfig("https://from-env:6443"));
  dir.Write("home/.kube/config", Kubeconfig("https://from-home:6443"));

  util::StatusOr<RestConfig> from_env = BuildConfigFromFlags(
      "", "", FakeEnvironment({{"KUBECONFIG", dir.path() + "/missing:" + env_file}, {"HOME", dir.path() + "/home"}}));
  ASSERT_TRUE(from_env.ok()) << from_env.status().ToString();
  EXPECT_EQ(from_env->host, "https://from-env:6443");

  util::StatusOr<RestConfig> from_home = BuildConfigFromFlags("", "", FakeEnvironment({{"HOME", dir.path() + "/home"}}));
  ASSERT_TRUE(from_home.ok()) << from_home.status().ToString();
  EXPECT_EQ(from_home->host, "https://from-home:6443");

  // --master with no kubeconfig anywhere: that server, anonymous. In-cluster
  // variables are ignored once --master is given.
  util::StatusOr<RestConfig> master =
      BuildConfigFromFlags("http://127.0.0.1:8080", "", FakeEnvironment(InClusterVars(), dir.path() + "/none"));
  ASSERT_TRUE(master.ok()) << master.status().ToString();
  EXPECT_EQ(master->host, "http://127.0.0.1:8080");
  EXPECT_TRUE(master->bearer_token.empty());
}

TEST(ConfigLoaderTest, NothingConfiguredIsAnError) {
  util::StatusOr<RestConfig> c = BuildConfigFromFlags("", "", FakeEnvironment({}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--kubeconfig or --master"), std::string::npos);
  util::StatusOr<RestConfig> bad_master = BuildConfigFromFlags("ftp://x", "", FakeEnvironment({}));
  ASSERT_FALSE(bad_master.ok());
  EXPECT_NE(bad_master.status().message().find("http:// or https://"), std::string::npos);
}

}  // namespace
}  // namespace ksched::client
