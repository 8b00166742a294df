#include "pkg/apiserverlite/openapi.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;

TEST(OpenApiTest, IndexNamesEveryGroupVersion) {
  json index = OpenApiV3Index(ResourceTable::Default());
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/policy/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/coordination.k8s.io/v1"));
  std::string url = index["paths"]["api/v1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/api/v1?hash=", 0), 0u);
}

TEST(OpenApiTest, PatchOperationsDeclareFieldValidation) {
  json doc = OpenApiV3Document(ResourceTable::Default(), "", "v1");
  ASSERT_FALSE(doc.is_null());
  const json& patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"],
            json::parse(R"({"group":"","version":"v1","kind":"Pod"})"));
  bool has_field_validation = false;
  for (const auto& p : patch["parameters"]) {
    has_field_validation = has_field_validation || p["name"] == "fieldValidation";
  }
  EXPECT_TRUE(has_field_validation);
  EXPECT_TRUE(doc["paths"].contains("/api/v1/nodes/{name}"));
  EXPECT_TRUE(doc["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}/binding"));
  json storage = OpenApiV3Document(ResourceTable::Default(), "storage.k8s.io", "v1");
  EXPECT_EQ(storage["paths"]["/apis/storage.k8s.io/v1/csinodes/{name}"]["patch"]
                   ["x-kubernetes-group-version-kind"]["kind"],
            "CSINode");
  EXPECT_TRUE(OpenApiV3Document(ResourceTable::Default(), "batch", "v1").is_null());
}

}  // namespace
}  // namespace ksched::apiserver
