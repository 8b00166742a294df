#include "pkg/apiserverlite/defaulting.h"

#include <gtest/gtest.h>

namespace ksched::apiserver {
namespace {

using nlohmann::json;

const ResourceInfo& Info(const std::string& group, const std::string& plural) {
  return *ResourceTable::Default().Find(group, "v1", plural);
}

const util::WallTime kNow = util::WallTime(std::chrono::seconds(1767225600));

json MinimalPod() {
  return json::parse(R"({"metadata":{"name":"p"},
      "spec":{"containers":[{"name":"c","image":"i",
              "resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]},
      "status":{"phase":"Running"}})");
}

TEST(PrepareForCreateTest, PodDefaultsAndServerManagedMetadata) {
  auto r = PrepareForCreate(Info("", "pods"), MinimalPod(), "default", kNow);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const json& p = r.value();
  EXPECT_EQ(p["kind"], "Pod");
  EXPECT_EQ(p["apiVersion"], "v1");
  EXPECT_EQ(p["metadata"]["namespace"], "default");
  EXPECT_EQ(p["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(p["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(p["metadata"]["generation"], 1);
  EXPECT_EQ(p["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(p["spec"]["priority"], 0);
  EXPECT_EQ(p["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(p["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  EXPECT_EQ(p["spec"]["containers"][0]["resources"]["requests"],
            json::parse(R"({"cpu":"1","memory":"1Gi"})"));
  EXPECT_EQ(p["spec"]["tolerations"].size(), 2u);
  EXPECT_EQ(p["spec"]["tolerations"][0]["key"], "node.kubernetes.io/not-ready");
  EXPECT_EQ(p["spec"]["tolerations"][0]["tolerationSeconds"], 300);
  // Status is the server's: the client's "Running" is dropped.
  EXPECT_EQ(p["status"], json::parse(R"({"phase":"Pending","qosClass":"Guaranteed"})"));
}

TEST(PrepareForCreateTest, KeepsExplicitValues) {
  json pod = MinimalPod();
  pod["spec"]["schedulerName"] = "ksched";
  pod["spec"]["priority"] = 100;
  pod["spec"]["tolerations"] = json::parse(R"([{"operator":"Exists"}])");
  auto r = PrepareForCreate(Info("", "pods"), pod, "ns", kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["spec"]["schedulerName"], "ksched");
  EXPECT_EQ(r.value()["spec"]["priority"], 100);
  EXPECT_EQ(r.value()["spec"]["tolerations"].size(), 1u);
}

TEST(PrepareForCreateTest, GenerateNameAndNameRules) {
  json pod = MinimalPod();
  pod["metadata"] = {{"generateName", "web-"}};
  auto r = PrepareForCreate(Info("", "pods"), pod, "ns", kNow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["metadata"]["name"].get<std::string>().rfind("web-", 0), 0u);

  pod["metadata"] = json::object();
  auto missing = PrepareForCreate(Info("", "pods"), pod, "ns", kNow);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 422);
  EXPECT_EQ(missing.error().details["causes"][0]["field"], "metadata.name");

  pod["metadata"] = {{"name", "Bad_Name"}};
  auto bad = PrepareForCreate(Info("", "pods"), pod, "ns", kNow);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 422);

  auto ns = PrepareForCreate(Info("", "namespaces"), {{"metadata", {{"name", "a.b"}}}}, "", kNow);
  EXPECT_FALSE(ns.ok());
}

TEST(PrepareForCreateTest, ShapeAndIdentityErrorsAreBadRequests) {
  auto check = [](json obj, const std::string& ns) {
    auto r = PrepareForCreate(Info("", "pods"), std::move(obj), ns, kNow);
    EXPECT_FALSE(r.ok());
    return r.ok() ? 0 : r.error().code;
  };
  json wrong_ns = MinimalPod();
  wrong_ns["metadata"]["namespace"] = "other";
  EXPECT_EQ(check(wrong_ns, "default"), 400);
  json wrong_kind = MinimalPod();
  wrong_kind["kind"] = "Node";
  EXPECT_EQ(check(wrong_kind, "default"), 400);
  json wrong_version = MinimalPod();
  wrong_version["apiVersion"] = "v2";
  EXPECT_EQ(check(wrong_version, "default"), 400);
  json with_rv = MinimalPod();
  with_rv["metadata"]["resourceVersion"] = "5";
  EXPECT_EQ(check(with_rv, "default"), 400);
  json bad_labels = MinimalPod();
  bad_labels["metadata"]["labels"] = {{"a", 1}};
  EXPECT_EQ(check(bad_labels, "default"), 400);
  EXPECT_EQ(check(json::array(), "default"), 400);
  json bad_quantity = MinimalPod();
  bad_quantity["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "lots";
  EXPECT_EQ(check(bad_quantity, "default"), 400);
  json no_containers = MinimalPod();
  no_containers["spec"]["containers"] = json::array();
  EXPECT_EQ(check(no_containers, "default"), 422);
  json unnamed = MinimalPod();
  unnamed["spec"]["containers"][0].erase("name");
  EXPECT_EQ(check(unnamed, "default"), 422);
}

TEST(PrepareForCreateTest, OtherKinds) {
  auto node = PrepareForCreate(
      Info("", "nodes"),
      json::parse(R"({"metadata":{"name":"n","namespace":"x"},"status":{"capacity":{"cpu":"4"}}})"),
      "", kNow);
  ASSERT_TRUE(node.ok());
  EXPECT_FALSE(node.value()["metadata"].contains("namespace"));
  EXPECT_EQ(node.value()["status"]["allocatable"]["cpu"], "4");  // node status is kept

  auto ns = PrepareForCreate(Info("", "namespaces"), {{"metadata", {{"name", "team"}}}}, "", kNow);
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(ns.value()["status"]["phase"], "Active");
  EXPECT_EQ(ns.value()["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");

  auto pvc = PrepareForCreate(
      Info("", "persistentvolumeclaims"),
      json::parse(R"({"metadata":{"name":"c"},"status":{"phase":"Bound"}})"), "ns", kNow);
  ASSERT_TRUE(pvc.ok());
  EXPECT_EQ(pvc.value()["status"]["phase"], "Pending");
  EXPECT_EQ(pvc.value()["spec"]["volumeMode"], "Filesystem");

  auto pdb = PrepareForCreate(Info("policy", "poddisruptionbudgets"),
                              {{"metadata", {{"name", "b"}}}}, "ns", kNow);
  ASSERT_TRUE(pdb.ok());
  EXPECT_EQ(pdb.value()["status"]["disruptionsAllowed"], 0);

  auto sc = PrepareForCreate(Info("storage.k8s.io", "storageclasses"),
                             {{"metadata", {{"name", "fast"}}}, {"provisioner", "x"}}, "", kNow);
  ASSERT_TRUE(sc.ok());
  EXPECT_EQ(sc.value()["volumeBindingMode"], "Immediate");
  EXPECT_EQ(sc.value()["apiVersion"], "storage.k8s.io/v1");
}

TEST(PrepareForUpdateTest, KeepsIdentityAndStatusAndChecksResourceVersion) {
  auto created = PrepareForCreate(Info("", "pods"), MinimalPod(), "ns", kNow);
  json current = created.value();
  current["metadata"]["resourceVersion"] = "10";
  json next = current;
  next["metadata"]["uid"] = "";
  next["metadata"]["labels"] = {{"a", "b"}};
  next["status"]["phase"] = "Running";
  next["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z";
  auto r = PrepareForUpdate(Info("", "pods"), next, current);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()["metadata"]["uid"], current["metadata"]["uid"]);
  EXPECT_EQ(r.value()["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(r.value()["metadata"]["labels"]["a"], "b");
  EXPECT_EQ(r.value()["status"]["phase"], "Pending");
  EXPECT_EQ(r.value()["metadata"]["generation"], 1);  // metadata-only change

  json stale = next;
  stale["metadata"]["resourceVersion"] = "9";
  auto conflict = PrepareForUpdate(Info("", "pods"), stale, current);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().code, 409);
  EXPECT_EQ(conflict.error().reason, "Conflict");
  EXPECT_EQ(conflict.error().message,
            "Operation cannot be fulfilled on pods \"p\": the object has been modified; please "
            "apply your changes to the latest version and try again");

  json wrong_uid = next;
  wrong_uid["metadata"]["uid"] = "other";
  EXPECT_EQ(PrepareForUpdate(Info("", "pods"), wrong_uid, current).error().code, 409);
}

// kube-apiserver refuses any change to a PV's volume source (found when
// ksched's PUT of a local PV, which dropped the unmodelled source's fields,
// was rejected by the real server and accepted here).
TEST(PrepareForUpdateTest, PersistentVolumeSourceIsImmutable) {
  json pv = {{"apiVersion", "v1"},
             {"kind", "PersistentVolume"},
             {"metadata", {{"name", "local-b"}}},
             {"spec",
              {{"capacity", {{"storage", "1Gi"}}},
               {"accessModes", {"ReadWriteOnce"}},
               {"local", {{"path", "/mnt/disk"}}}}}};
  json current = PrepareForCreate(Info("", "persistentvolumes"), pv, "", kNow).value();
  json bind = current;
  bind["spec"]["claimRef"] = {{"namespace", "ns"}, {"name", "data"}};
  ASSERT_TRUE(PrepareForUpdate(Info("", "persistentvolumes"), bind, current).ok());
  json lost = bind;
  lost["spec"]["local"] = json::object();
  auto forbidden = PrepareForUpdate(Info("", "persistentvolumes"), lost, current);
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().code, 422);
  EXPECT_EQ(forbidden.error().details["causes"][0]["field"], "spec.persistentvolumesource");
  EXPECT_EQ(forbidden.error().details["causes"][0]["message"],
            "Forbidden: spec.persistentvolumesource is immutable after creation");
}

TEST(PrepareForUpdateTest, PodSpecIsMostlyImmutable) {
  json current = PrepareForCreate(Info("", "pods"), MinimalPod(), "ns", kNow).value();
  json image = current;
  image["spec"]["containers"][0]["image"] = "i:2";
  auto ok = PrepareForUpdate(Info("", "pods"), image, current);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value()["metadata"]["generation"], 2);
  json node = current;
  node["spec"]["nodeName"] = "n1";
  auto forbidden = PrepareForUpdate(Info("", "pods"), node, current);
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().code, 422);
  EXPECT_EQ(forbidden.error().details["causes"][0]["reason"], "FieldValueForbidden");
}

TEST(PrepareForUpdateTest, GenerationFollowsSpecChanges) {
  json current =
      PrepareForCreate(Info("", "nodes"), {{"metadata", {{"name", "n"}}}}, "", kNow).value();
  json next = current;
  next["spec"]["unschedulable"] = true;
  auto r = PrepareForUpdate(Info("", "nodes"), next, current);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["metadata"]["generation"], 2);
}

TEST(PrepareForStatusUpdateTest, OnlyStatusChanges) {
  json current = PrepareForCreate(Info("", "pods"), MinimalPod(), "ns", kNow).value();
  current["metadata"]["resourceVersion"] = "3";
  json body = current;
  body["spec"]["nodeName"] = "sneaky";
  body["metadata"]["labels"] = {{"x", "y"}};
  body["status"] = {{"phase", "Running"}, {"nominatedNodeName", "n2"}};
  auto r = PrepareForStatusUpdate(Info("", "pods"), body, current);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["status"]["phase"], "Running");
  EXPECT_EQ(r.value()["status"]["nominatedNodeName"], "n2");
  EXPECT_FALSE(r.value()["spec"].contains("nodeName"));
  EXPECT_FALSE(r.value()["metadata"].contains("labels"));
  body["metadata"]["resourceVersion"] = "2";
  EXPECT_EQ(PrepareForStatusUpdate(Info("", "pods"), body, current).error().code, 409);
}

TEST(PodQosClassTest, Classes) {
  auto pod = [](json resources) {
    return json{{"spec", {{"containers", {{{"name", "c"}, {"resources", resources}}}}}}};
  };
  EXPECT_EQ(PodQosClass(pod(json::object())), "BestEffort");
  EXPECT_EQ(PodQosClass(pod(json::parse(R"({"requests":{"cpu":"1"}})"))), "Burstable");
  EXPECT_EQ(PodQosClass(pod(json::parse(
                R"({"requests":{"cpu":"1000m","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}})"))),
            "Guaranteed");
  EXPECT_EQ(PodQosClass(pod(json::parse(
                R"({"requests":{"cpu":"500m","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}})"))),
            "Burstable");
}

}  // namespace
}  // namespace ksched::apiserver
