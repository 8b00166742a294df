#include "pkg/apiserverlite/patch.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;

json Apply(const json& original, const json& patch, const std::string& kind = "Pod") {
  auto r = ApplyStrategicMergePatch(original, patch, kind);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : json();
}

const json kPod = json::parse(R"({
  "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}, "finalizers": ["x"],
               "ownerReferences": [{"uid": "u1", "name": "rs"}]},
  "spec": {
    "containers": [
      {"name": "app", "image": "app:1", "ports": [{"containerPort": 80, "name": "http"}],
       "env": [{"name": "A", "value": "1"}]},
      {"name": "side", "image": "side:1"}
    ],
    "tolerations": [{"key": "t1", "operator": "Exists"}],
    "volumes": [{"name": "v", "emptyDir": {}}]
  },
  "status": {"phase": "Pending",
             "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"},
                            {"type": "Ready", "status": "False"}]}
})");

TEST(MergePatchTest, Rfc7386) {
  auto r = ApplyMergePatch(kPod, json::parse(R"({"metadata":{"labels":{"a":null,"c":"3"}},
                                                 "spec":{"tolerations":[]}})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["metadata"]["labels"], json::parse(R"({"b":"2","c":"3"})"));
  EXPECT_EQ(r.value()["spec"]["tolerations"], json::array());
  EXPECT_EQ(r.value()["spec"]["containers"], kPod["spec"]["containers"]);
  EXPECT_FALSE(ApplyMergePatch(kPod, json::array()).ok());
}

TEST(StrategicMergePatchTest, ContainersMergeByName) {
  json out = Apply(kPod, json::parse(R"({"spec":{"containers":[
      {"name":"side","image":"side:2"},{"name":"new","image":"new:1"}]}})"));
  auto& c = out["spec"]["containers"];
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]["image"], "app:1");
  EXPECT_EQ(c[0]["ports"][0]["containerPort"], 80);
  EXPECT_EQ(c[1]["image"], "side:2");
  EXPECT_EQ(c[2]["name"], "new");
}

TEST(StrategicMergePatchTest, NestedListsMergeByTheirKeys) {
  json out = Apply(kPod, json::parse(R"({"spec":{"containers":[
      {"name":"app","ports":[{"containerPort":443}],"env":[{"name":"A","value":"2"},{"name":"B","value":"3"}]}]}})"));
  auto& app = out["spec"]["containers"][0];
  EXPECT_EQ(app["ports"].size(), 2u);
  EXPECT_EQ(app["env"], json::parse(R"([{"name":"A","value":"2"},{"name":"B","value":"3"}])"));
}

TEST(StrategicMergePatchTest, ConditionsMergeByType) {
  json out = Apply(kPod, json::parse(R"({"status":{"conditions":[
      {"type":"PodScheduled","status":"True","reason":null}]}})"));
  auto& conds = out["status"]["conditions"];
  ASSERT_EQ(conds.size(), 2u);
  EXPECT_EQ(conds[0], json::parse(R"({"type":"PodScheduled","status":"True"})"));
  EXPECT_EQ(conds[1]["type"], "Ready");
}

TEST(StrategicMergePatchTest, TolerationsAreReplaced) {
  json out = Apply(kPod, json::parse(R"({"spec":{"tolerations":[{"key":"t2","operator":"Exists"}]}})"));
  EXPECT_EQ(out["spec"]["tolerations"], json::parse(R"([{"key":"t2","operator":"Exists"}])"));
}

TEST(StrategicMergePatchTest, FinalizersAreASetAndOwnerReferencesMergeByUid) {
  json out = Apply(kPod, json::parse(R"({"metadata":{"finalizers":["y","x"],
      "ownerReferences":[{"uid":"u1","name":"rs2"},{"uid":"u2","name":"other"}]}})"));
  EXPECT_EQ(out["metadata"]["finalizers"], json::parse(R"(["x","y"])"));
  EXPECT_EQ(out["metadata"]["ownerReferences"].size(), 2u);
  EXPECT_EQ(out["metadata"]["ownerReferences"][0]["name"], "rs2");
}

// The DynamicResources plugin's Unreserve: one pod out of reservedFor by
// uid, the others kept.
TEST(StrategicMergePatchTest, ResourceClaimReservedForMergesByUid) {
  json claim = json::parse(R"({"metadata": {"name": "c", "uid": "cu"},
      "status": {"reservedFor": [{"resource": "pods", "name": "a", "uid": "ua"},
                                 {"resource": "pods", "name": "b", "uid": "ub"}]}})");
  json out = Apply(claim, json::parse(R"({"metadata": {"uid": "cu"},
      "status": {"reservedFor": [{"$patch": "delete", "uid": "ua"}]}})"), "ResourceClaim");
  EXPECT_EQ(out["status"]["reservedFor"], json::parse(R"([{"resource": "pods", "name": "b", "uid": "ub"}])"));
}

TEST(StrategicMergePatchTest, DeleteDirectives) {
  json out = Apply(kPod, json::parse(R"({
      "metadata": {"labels": {"b": null}, "$deleteFromPrimitiveList/finalizers": ["x"]},
      "spec": {"containers": [{"name": "side", "$patch": "delete"}],
               "volumes": [{"$patch": "delete", "name": "v"}]}})"));
  EXPECT_EQ(out["metadata"]["labels"], json::parse(R"({"a":"1"})"));
  EXPECT_EQ(out["metadata"]["finalizers"], json::array());
  ASSERT_EQ(out["spec"]["containers"].size(), 1u);
  EXPECT_EQ(out["spec"]["containers"][0]["name"], "app");
  EXPECT_EQ(out["spec"]["volumes"], json::array());
}

TEST(StrategicMergePatchTest, ReplaceDirectives) {
  json out = Apply(kPod, json::parse(R"({
      "metadata": {"labels": {"$patch": "replace", "z": "9"}},
      "spec": {"containers": [{"$patch": "replace"}, {"name": "only", "image": "o:1"}]}})"));
  EXPECT_EQ(out["metadata"]["labels"], json::parse(R"({"z":"9"})"));
  EXPECT_EQ(out["spec"]["containers"], json::parse(R"([{"name":"only","image":"o:1"}])"));
  json gone = Apply(kPod, json::parse(R"({"status": {"$patch": "delete"}})"));
  EXPECT_FALSE(gone.contains("status"));
}

TEST(StrategicMergePatchTest, SetElementOrderAndRetainKeys) {
  json out = Apply(kPod, json::parse(R"({"spec": {
      "$setElementOrder/containers": [{"name": "side"}, {"name": "app"}],
      "containers": [{"name": "side", "image": "side:3"}],
      "volumes": [{"name": "v", "hostPath": {"path": "/x"}, "$retainKeys": ["name", "hostPath"]}]}})"));
  EXPECT_EQ(out["spec"]["containers"][0]["name"], "side");
  EXPECT_EQ(out["spec"]["containers"][0]["image"], "side:3");
  EXPECT_EQ(out["spec"]["containers"][1]["name"], "app");
  EXPECT_EQ(out["spec"]["volumes"][0], json::parse(R"({"name":"v","hostPath":{"path":"/x"}})"));
}

TEST(StrategicMergePatchTest, NodeConditionsAndAddressesMergeByType) {
  json node = json::parse(R"({"status":{"addresses":[{"type":"InternalIP","address":"1.1.1.1"}],
      "conditions":[{"type":"Ready","status":"False"}]}})");
  json out = Apply(node, json::parse(R"({"status":{"addresses":[{"type":"Hostname","address":"n"}],
      "conditions":[{"type":"Ready","status":"True"}]}})"), "Node");
  EXPECT_EQ(out["status"]["addresses"].size(), 2u);
  EXPECT_EQ(out["status"]["conditions"], json::parse(R"([{"type":"Ready","status":"True"}])"));
  // In another kind the same path has no merge key: replaced.
  json other = Apply(node, json::parse(R"({"status":{"addresses":[]}})"), "Lease");
  EXPECT_EQ(other["status"]["addresses"], json::array());
}

TEST(StrategicMergePatchTest, MalformedPatchesAreBadRequests) {
  auto missing_key = ApplyStrategicMergePatch(
      kPod, json::parse(R"({"spec":{"containers":[{"image":"x"}]}})"), "Pod");
  ASSERT_FALSE(missing_key.ok());
  EXPECT_EQ(missing_key.error().code, 400);
  auto bad_directive =
      ApplyStrategicMergePatch(kPod, json::parse(R"({"spec":{"$patch":"explode"}})"), "Pod");
  ASSERT_FALSE(bad_directive.ok());
  EXPECT_EQ(bad_directive.error().code, 400);
  auto bad_retain =
      ApplyStrategicMergePatch(kPod, json::parse(R"({"spec":{"$retainKeys":"x"}})"), "Pod");
  EXPECT_FALSE(bad_retain.ok());
  EXPECT_FALSE(ApplyStrategicMergePatch(kPod, json::parse("[1]"), "Pod").ok());
  EXPECT_FALSE(ApplyStrategicMergePatch(kPod, json::parse(R"({"$patch":"delete"})"), "Pod").ok());
}

TEST(JsonPatchTest, Rfc6902) {
  auto r = ApplyJsonPatch(kPod, json::parse(R"([
      {"op":"test","path":"/status/phase","value":"Pending"},
      {"op":"replace","path":"/status/phase","value":"Running"},
      {"op":"add","path":"/metadata/labels/c","value":"3"},
      {"op":"remove","path":"/spec/containers/1"}])"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["status"]["phase"], "Running");
  EXPECT_EQ(r.value()["metadata"]["labels"]["c"], "3");
  EXPECT_EQ(r.value()["spec"]["containers"].size(), 1u);

  auto failed_test =
      ApplyJsonPatch(kPod, json::parse(R"([{"op":"test","path":"/status/phase","value":"x"}])"));
  ASSERT_FALSE(failed_test.ok());
  EXPECT_EQ(failed_test.error().code, 422);
  auto missing = ApplyJsonPatch(kPod, json::parse(R"([{"op":"remove","path":"/nope"}])"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 422);
  auto malformed = ApplyJsonPatch(kPod, json::parse(R"([{"op":"frobnicate","path":"/a"}])"));
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().code, 400);
  EXPECT_FALSE(ApplyJsonPatch(kPod, json::object()).ok());
}

TEST(PatchTypeTest, ContentTypes) {
  PatchType t;
  ASSERT_TRUE(ParsePatchType("application/merge-patch+json", &t));
  EXPECT_EQ(t, PatchType::kMerge);
  ASSERT_TRUE(ParsePatchType("application/strategic-merge-patch+json; charset=utf-8", &t));
  EXPECT_EQ(t, PatchType::kStrategicMerge);
  ASSERT_TRUE(ParsePatchType("application/json-patch+json", &t));
  EXPECT_EQ(t, PatchType::kJson);
  EXPECT_FALSE(ParsePatchType("application/apply-patch+yaml", &t));
  EXPECT_FALSE(ParsePatchType("application/json", &t));
}

}  // namespace
}  // namespace ksched::apiserver
