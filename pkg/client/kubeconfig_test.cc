#include "pkg/client/kubeconfig.h"

#include <gtest/gtest.h>

#include "pkg/client/file.h"
#include "pkg/client/test_util.h"

namespace ksched::client {
namespace {

using testing::TempDir;

constexpr char kTwoContexts[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes.default
- name: prod-cluster
  cluster:
    server: https://prod.example.com
    certificate-authority-data: Q0EtUEVN
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-user
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
)";

TEST(KubeconfigTest, CurrentContextWithTokenAndRelativeCaPath) {
  TempDir dir;
  std::string path = dir.Write("kube/config", kTwoContexts);
  util::StatusOr<RestConfig> c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://10.0.0.1:6443");
  EXPECT_EQ(c->ca_file, dir.path() + "/kube/certs/ca.crt");
  EXPECT_EQ(c->tls_server_name, "kubernetes.default");
  EXPECT_EQ(c->bearer_token, "dev-token");
  EXPECT_EQ(c->namespace_, "team-a");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->source, "kubeconfig " + path + " context dev");
}

TEST(KubeconfigTest, ExplicitContextWithInlineCertificates) {
  TempDir dir;
  std::string path = dir.Write("config", kTwoContexts);
  util::StatusOr<RestConfig> c = LoadKubeconfig(path, "prod");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "https://prod.example.com");
  EXPECT_EQ(c->ca_data, "CA-PEM");
  EXPECT_EQ(c->cert_data, "CERT");
  EXPECT_EQ(c->key_data, "KEY");
  EXPECT_TRUE(c->bearer_token.empty());
  EXPECT_EQ(c->namespace_, "default");
}

TEST(KubeconfigTest, CertificateFilesTokenFileAndInsecure) {
  TempDir dir;
  dir.Write("token", "file-token\n");
  std::string path = dir.Write("config", R"(
current-context: c
clusters:
- name: k
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
contexts:
- name: c
  context: {cluster: k, user: u}
users:
- name: u
  user:
    tokenFile: token
    client-certificate: /abs/client.crt
    client-key: keys/client.key
)");
  util::StatusOr<RestConfig> c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->bearer_token_file, dir.path() + "/token");
  EXPECT_TRUE(c->bearer_token.empty());
  EXPECT_EQ(c->cert_file, "/abs/client.crt");
  EXPECT_EQ(c->key_file, dir.path() + "/keys/client.key");
}

TEST(KubeconfigTest, TokenWinsOverTokenFile) {
  TempDir dir;
  std::string path = dir.Write("config", R"(
current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:8080"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {token: inline, tokenFile: /does/not/matter}}]
)");
  util::StatusOr<RestConfig> c = LoadKubeconfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->bearer_token, "inline");
  EXPECT_TRUE(c->bearer_token_file.empty());
}

TEST(KubeconfigTest, BasicAuthAndNoUser) {
  TempDir dir;
  std::string path = dir.Write("config", R"(
current-context: basic
clusters: [{name: k, cluster: {server: "http://127.0.0.1:8080"}}]
contexts:
- {name: basic, context: {cluster: k, user: u}}
- {name: anonymous, context: {cluster: k}}
users: [{name: u, user: {username: admin, password: secret}}]
)");
  util::StatusOr<RestConfig> basic = LoadKubeconfig(path);
  ASSERT_TRUE(basic.ok()) << basic.status().ToString();
  EXPECT_EQ(basic->username, "admin");
  EXPECT_EQ(basic->password, "secret");
  util::StatusOr<RestConfig> anon = LoadKubeconfig(path, "anonymous");
  ASSERT_TRUE(anon.ok()) << anon.status().ToString();
  EXPECT_TRUE(anon->username.empty());
}

void ExpectError(const std::string& yaml, const std::string& fragment, const std::string& context = "") {
  TempDir dir;
  std::string path = dir.Write("config", yaml);
  util::StatusOr<RestConfig> c = LoadKubeconfig(path, context);
  ASSERT_FALSE(c.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(c.status().code(), util::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find(fragment), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find(path), std::string::npos) << c.status().message();
}

TEST(KubeconfigTest, Errors) {
  ExpectError("clusters: []\n", "current-context is not set");
  ExpectError("current-context: x\ncontexts: []\n", "context \"x\" not found in contexts");
  ExpectError(kTwoContexts, "context \"staging\" not found", "staging");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: missing}}]
users: []
)",
              "user \"missing\" not found in users");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {certificate-authority-data: "!!!"}}]
contexts: [{name: c, context: {cluster: k}}]
)",
              "certificate-authority-data");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {}}]
contexts: [{name: c, context: {cluster: k}}]
)",
              "cluster \"k\": server is not set");
  ExpectError("current-context: [unclosed\n", "line 2, column 1: end of sequence flow not found");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x", insecure-skip-tls-verify: perhaps}}]
contexts: [{name: c, context: {cluster: k}}]
)",
              "insecure-skip-tls-verify: must be a boolean");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {tokenFile: /nonexistent/token}}]
)",
              "tokenFile");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x", certificate-authority-data: Q0E=, insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: k}}]
)",
              "insecure-skip-tls-verify is not allowed");
}

TEST(KubeconfigTest, UnsupportedAuthNamesTheUser) {
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: eks-admin}}]
users:
- name: eks-admin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: [eks, get-token]
)",
              "user \"eks-admin\" uses an exec credential plugin (command \"aws\")");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: gke}}]
users: [{name: gke, user: {auth-provider: {name: gcp}}}]
)",
              "user \"gke\" uses the auth-provider plugin \"gcp\"");
  ExpectError(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {token: t, as: someone}}]
)",
              "user \"u\": impersonation (as)");
}

// Text already read: the path only names the file and anchors relative
// paths; nothing is read from it.
TEST(KubeconfigTest, ParseKubeconfigUsesThePathForErrorsAndRelativePaths) {
  util::StatusOr<RestConfig> c = ParseKubeconfig(kTwoContexts, "/nowhere/kube/config");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_file, "/nowhere/kube/certs/ca.crt");
  EXPECT_EQ(c->source, "kubeconfig /nowhere/kube/config context dev");
  util::StatusOr<RestConfig> bad = ParseKubeconfig("clusters: [", "/nowhere/kube/config");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("kubeconfig /nowhere/kube/config: line 1, column", 0), 0u)
      << bad.status().message();
}

TEST(KubeconfigTest, MissingFile) {
  util::StatusOr<RestConfig> c = LoadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/nonexistent/kubeconfig"), std::string::npos);
}

}  // namespace
}  // namespace ksched::client
