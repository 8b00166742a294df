#include "pkg/apiserverlite/crd.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;

json PodGroupCrd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "podgroups.scheduling.x-k8s.io"},
    "spec": {"group": "scheduling.x-k8s.io", "scope": "Namespaced",
             "names": {"kind": "PodGroup", "plural": "podgroups", "shortNames": ["pg", "pgs"]},
             "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                           "subresources": {"status": {}}}]}})");
}

TEST(CrdTest, OneServedVersionWithStatus) {
  auto r = CustomResourcesOf(PodGroupCrd());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().size(), 1u);
  const ResourceInfo& info = r.value()[0];
  EXPECT_EQ(info.ApiVersion(), "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(info.kind, "PodGroup");
  EXPECT_EQ(info.singular, "podgroup");
  EXPECT_TRUE(info.namespaced);
  EXPECT_TRUE(info.HasStatus());
  EXPECT_EQ(info.short_names, (std::vector<std::string>{"pg", "pgs"}));
  EXPECT_EQ(info.StorageKey(), "scheduling.x-k8s.io/podgroups");
}

TEST(CrdTest, OtherServedVersionsAreViewsOfTheStorageVersion) {
  json crd = PodGroupCrd();
  crd["spec"]["scope"] = "Cluster";
  crd["spec"]["versions"] = json::parse(R"([
    {"name": "v1beta1", "served": true, "storage": false},
    {"name": "v1", "served": true, "storage": true},
    {"name": "v1alpha1", "served": false, "storage": false}])");
  auto r = CustomResourcesOf(crd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[0].version, "v1");
  EXPECT_TRUE(r.value()[0].storage_plural.empty());
  EXPECT_FALSE(r.value()[0].namespaced);
  EXPECT_FALSE(r.value()[0].HasStatus());
  EXPECT_EQ(r.value()[1].version, "v1beta1");
  EXPECT_EQ(r.value()[1].StorageKey(), "scheduling.x-k8s.io/podgroups");
}

TEST(CrdTest, InvalidDefinitionsNameTheField) {
  struct Case {
    std::function<void(json&)> edit;
    std::string field;
  };
  std::vector<Case> cases = {
      {[](json& c) { c["metadata"]["name"] = "groups.scheduling.x-k8s.io"; }, "metadata.name"},
      {[](json& c) { c["spec"]["group"] = "nodots"; }, "spec.group"},
      {[](json& c) { c["spec"].erase("group"); }, "spec.group"},
      {[](json& c) { c["spec"]["names"]["plural"] = "PodGroups"; }, "spec.names.plural"},
      {[](json& c) { c["spec"]["names"].erase("kind"); }, "spec.names.kind"},
      {[](json& c) { c["spec"]["scope"] = "Global"; }, "spec.scope"},
      {[](json& c) { c["spec"]["versions"] = json::array(); }, "spec.versions"},
      {[](json& c) { c["spec"]["versions"][0]["storage"] = false; }, "spec.versions"},
      {[](json& c) { c["spec"]["versions"][0]["served"] = false; }, "spec.versions"},
      {[](json& c) { c["spec"]["versions"].push_back(c["spec"]["versions"][0]); },
       "spec.versions[1].name"},
      {[](json& c) { c["spec"] = "x"; }, "spec"},
  };
  for (const auto& c : cases) {
    json crd = PodGroupCrd();
    c.edit(crd);
    auto r = CustomResourcesOf(crd);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().code, 422) << c.field;
    EXPECT_EQ(r.error().details["causes"][0]["field"], c.field) << r.error().message;
  }
}

TEST(CrdTest, EstablishedStatus) {
  json crd = PodGroupCrd();
  SetEstablishedStatus(crd, util::WallTime{});
  EXPECT_EQ(crd["status"]["acceptedNames"]["listKind"], "PodGroupList");
  EXPECT_EQ(crd["status"]["acceptedNames"]["singular"], "podgroup");
  EXPECT_EQ(crd["status"]["storedVersions"], json::array({"v1alpha1"}));
  ASSERT_EQ(crd["status"]["conditions"].size(), 2u);
  EXPECT_EQ(crd["status"]["conditions"][1]["type"], "Established");
  EXPECT_EQ(crd["status"]["conditions"][1]["status"], "True");
}

}  // namespace
}  // namespace ksched::apiserver
