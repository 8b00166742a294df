#include "pkg/auth/authentication_configmap.h"

#include <gtest/gtest.h>

namespace ksched::auth {
namespace {

TEST(AuthenticationConfigMapTest, ReadsWhatKubeApiserverWrites) {
  nlohmann::json cm = nlohmann::json::parse(R"({
    "kind": "ConfigMap",
    "metadata": {"name": "extension-apiserver-authentication", "namespace": "kube-system"},
    "data": {
      "client-ca-file": "CLIENT-CA",
      "requestheader-client-ca-file": "PROXY-CA",
      "requestheader-allowed-names": "[\"front-proxy-client\"]",
      "requestheader-username-headers": "[\"X-Remote-User\"]",
      "requestheader-group-headers": "[\"X-Remote-Group\"]",
      "requestheader-extra-headers-prefix": "[\"X-Remote-Extra-\"]",
      "requestheader-uid-headers": "[\"X-Remote-Uid\"]"
    }})");
  AuthenticationConfigMap a = ParseAuthenticationConfigMap(cm);
  EXPECT_EQ(a.client_ca_pem, "CLIENT-CA");
  EXPECT_EQ(a.requestheader_client_ca_pem, "PROXY-CA");
  EXPECT_EQ(a.requestheader.allowed_names, std::vector<std::string>{"front-proxy-client"});
  EXPECT_EQ(a.requestheader.username_headers, std::vector<std::string>{"X-Remote-User"});
  EXPECT_EQ(a.requestheader.group_headers, std::vector<std::string>{"X-Remote-Group"});
  EXPECT_EQ(a.requestheader.extra_headers_prefixes, std::vector<std::string>{"X-Remote-Extra-"});
  EXPECT_EQ(a.requestheader.uid_headers, std::vector<std::string>{"X-Remote-Uid"});
}

TEST(AuthenticationConfigMapTest, MissingOrMalformedValuesAreEmpty) {
  AuthenticationConfigMap none = ParseAuthenticationConfigMap(nlohmann::json::parse(R"({"data": {}})"));
  EXPECT_TRUE(none.client_ca_pem.empty());
  EXPECT_TRUE(none.requestheader_client_ca_pem.empty());
  EXPECT_TRUE(none.requestheader.username_headers.empty());
  EXPECT_TRUE(ParseAuthenticationConfigMap(nlohmann::json("not an object")).client_ca_pem.empty());
  AuthenticationConfigMap bad = ParseAuthenticationConfigMap(nlohmann::json::parse(R"({"data": {
      "client-ca-file": 7,
      "requestheader-username-headers": "X-Remote-User",
      "requestheader-group-headers": "[\"ok\", 3, null]",
      "requestheader-allowed-names": "{\"a\": 1}"}})"));
  EXPECT_TRUE(bad.client_ca_pem.empty());
  EXPECT_TRUE(bad.requestheader.username_headers.empty());  // not a JSON list
  EXPECT_EQ(bad.requestheader.group_headers, std::vector<std::string>{"ok"});
  EXPECT_TRUE(bad.requestheader.allowed_names.empty());
}

}  // namespace
}  // namespace ksched::auth
