#include "pkg/apiserverlite/handler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "pkg/apiserverlite/cluster_simulation.h"
#include "pkg/apiserverlite/test_sink.h"

namespace ksched::apiserver {
namespace {

using nlohmann::json;
using std::chrono::seconds;

class HandlerTest : public ::testing::Test {
 protected:
  explicit HandlerTest(ServerOptions options = {}) : handler_(options, clock_) {}

  // Issues a request; `target` may carry a query string.
  ApiResponse Do(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::string& content_type = "application/json",
                 const std::string& accept = "application/json") {
    ApiRequest r;
    r.method = method;
    size_t q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t start = 0;
      while (start < query.size()) {
        size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        std::string kv = query.substr(start, amp - start);
        size_t eq = kv.find('=');
        r.query[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
        start = amp + 1;
      }
    }
    r.body = body;
    r.content_type = body.empty() ? "" : content_type;
    r.accept = accept;
    return handler_.Handle(r);
  }
  json DoJson(const std::string& method, const std::string& target, const json& body = nullptr,
              int want = 0) {
    ApiResponse r = Do(method, target, body.is_null() ? "" : body.dump());
    if (want != 0) {
      EXPECT_EQ(r.code, want) << method << " " << target << ": " << r.body;
    }
    return json::parse(r.body);
  }
  json CreatePod(const std::string& name, const std::string& ns = "default", json labels = {}) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "pause"}}}}}}};
    if (!labels.is_null()) pod["metadata"]["labels"] = labels;
    return DoJson("POST", "/api/v1/namespaces/" + ns + "/pods", pod, 201);
  }
  // Starts a watch and returns its sink.
  std::shared_ptr<CollectingSink> Watch(const std::string& target,
                                        const std::string& accept = "application/json") {
    ApiResponse r = Do("GET", target, "", "", accept);
    EXPECT_EQ(r.code, 200) << r.body;
    EXPECT_NE(r.watch, nullptr);
    auto sink = std::make_shared<CollectingSink>();
    if (r.watch) {
      r.watch->Start(sink);
      watches_.push_back(r.watch);
    }
    return sink;
  }
  void TearDown() override {
    for (auto& w : watches_) w->Stop();
  }

  util::FakeClock clock_;
  ApiHandler handler_;
  std::vector<std::shared_ptr<PendingWatch>> watches_;
};

TEST_F(HandlerTest, HealthVersionAndDiscovery) {
  EXPECT_EQ(Do("GET", "/healthz").body, "ok");
  EXPECT_EQ(Do("GET", "/readyz").code, 200);
  EXPECT_EQ(Do("GET", "/livez/ping").code, 200);
  json version = DoJson("GET", "/version", nullptr, 200);
  EXPECT_EQ(version["gitVersion"], "v1.34.0-ksched-lite");
  EXPECT_EQ(DoJson("GET", "/api", nullptr, 200)["kind"], "APIVersions");
  EXPECT_EQ(DoJson("GET", "/api/v1", nullptr, 200)["kind"], "APIResourceList");
  EXPECT_EQ(DoJson("GET", "/apis", nullptr, 200)["kind"], "APIGroupList");
  EXPECT_EQ(DoJson("GET", "/apis/policy", nullptr, 200)["kind"], "APIGroup");
  EXPECT_EQ(DoJson("GET", "/apis/storage.k8s.io/v1/", nullptr, 200)["groupVersion"],
            "storage.k8s.io/v1");
  EXPECT_EQ(DoJson("GET", "/openapi/v3", nullptr, 200)["paths"].size(), 9u);
  EXPECT_EQ(DoJson("GET", "/apis/resource.k8s.io/v1", nullptr, 200)["resources"].size(), 7u);  // 5 kinds, 2 status subresources
  EXPECT_EQ(Do("GET", "/openapi/v3/apis/policy/v1").code, 200);
  EXPECT_EQ(Do("GET", "/openapi/v2").code, 404);
  json missing = DoJson("GET", "/apis/batch/v1", nullptr, 404);
  EXPECT_EQ(missing["kind"], "Status");
  EXPECT_EQ(missing["reason"], "NotFound");
  EXPECT_EQ(Do("GET", "/api/v1/configmaps").code, 404);
  EXPECT_EQ(Do("GET", "/nothing").code, 404);
  EXPECT_EQ(Do("POST", "/api", "{}").code, 405);
  EXPECT_EQ(Do("GET", "/api/v1/pods", "", "", "application/vnd.kubernetes.protobuf").code, 406);
}

TEST_F(HandlerTest, SystemNamespacesAndPriorityClassesExist) {
  json ns = DoJson("GET", "/api/v1/namespaces", nullptr, 200);
  EXPECT_EQ(ns["kind"], "NamespaceList");
  EXPECT_EQ(ns["items"].size(), 4u);
  EXPECT_EQ(DoJson("GET", "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical",
                   nullptr, 200)["value"],
            2000001000);
}

TEST_F(HandlerTest, CreateGetAndErrors) {
  json pod = CreatePod("p1");
  EXPECT_EQ(pod["metadata"]["namespace"], "default");
  EXPECT_EQ(pod["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  json got = DoJson("GET", "/api/v1/namespaces/default/pods/p1", nullptr, 200);
  EXPECT_EQ(got, pod);
  EXPECT_EQ(DoJson("GET", "/api/v1/namespaces/default/pods/p1/status", nullptr, 200), pod);

  json again = pod;
  again["metadata"].erase("resourceVersion");
  json dup = DoJson("POST", "/api/v1/namespaces/default/pods", again, 409);
  EXPECT_EQ(dup["reason"], "AlreadyExists");
  json nsless = DoJson("POST", "/api/v1/namespaces/nope/pods",
                       {{"metadata", {{"name", "x"}}},
                        {"spec", {{"containers", {{{"name", "c"}}}}}}},
                       404);
  EXPECT_EQ(nsless["message"], "namespaces \"nope\" not found");
  json notfound = DoJson("GET", "/api/v1/namespaces/default/pods/zz", nullptr, 404);
  EXPECT_EQ(notfound["message"], "pods \"zz\" not found");
  EXPECT_EQ(notfound["details"], json::parse(R"({"name":"zz","kind":"pods"})"));
  json lease404 = DoJson("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
                         nullptr, 404);
  EXPECT_EQ(lease404["message"], "leases.coordination.k8s.io \"l\" not found");
  EXPECT_EQ(lease404["details"]["group"], "coordination.k8s.io");
}

TEST_F(HandlerTest, MalformedRequestsAreBadRequests) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  EXPECT_EQ(Do("POST", pods, "{not json").code, 400);
  EXPECT_EQ(Do("POST", pods, "").code, 400);
  EXPECT_EQ(Do("POST", pods, "[1,2]").code, 400);
  EXPECT_EQ(Do("POST", pods, R"({"kind":"Node","metadata":{"name":"x"}})").code, 400);
  EXPECT_EQ(Do("POST", pods, R"({"metadata":"x"})").code, 400);
  EXPECT_EQ(Do("POST", pods, R"({"metadata":{"name":"x"},"spec":{}})").code, 422);
  EXPECT_EQ(Do("POST", pods, "{}", "application/yaml").code, 415);
  EXPECT_EQ(Do("GET", pods + "?labelSelector=a in").code, 400);
  EXPECT_EQ(Do("GET", pods + "?fieldSelector=spec.bogus=1").code, 400);
  EXPECT_EQ(Do("GET", pods + "?limit=-1").code, 400);
  EXPECT_EQ(Do("GET", pods + "?resourceVersion=abc").code, 400);
  EXPECT_EQ(Do("GET", pods + "?continue=garbage").code, 400);
  EXPECT_EQ(Do("GET", pods + "?watch=1&timeoutSeconds=x").code, 400);
  EXPECT_EQ(Do("PUT", pods).code, 405);
  EXPECT_EQ(Do("POST", "/api/v1/pods", "{}").code, 405);
  EXPECT_EQ(Do("GET", "/api/v1/pods/x").code, 404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/nodes").code, 404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/x/logs").code, 404);
  json status = DoJson("POST", pods, nullptr);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["apiVersion"], "v1");
  EXPECT_EQ(status["status"], "Failure");
  EXPECT_EQ(status["code"], 400);
}

TEST_F(HandlerTest, ListSelectorsAndAllNamespaces) {
  DoJson("POST", "/api/v1/namespaces", {{"metadata", {{"name", "team"}}}}, 201);
  CreatePod("a", "default", {{"app", "web"}});
  CreatePod("b", "default", {{"app", "db"}});
  CreatePod("c", "team", {{"app", "web"}});
  json all = DoJson("GET", "/api/v1/pods", nullptr, 200);
  EXPECT_EQ(all["kind"], "PodList");
  EXPECT_EQ(all["apiVersion"], "v1");
  EXPECT_EQ(all["items"].size(), 3u);
  EXPECT_EQ(all["metadata"]["resourceVersion"],
            std::to_string(handler_.current_resource_version()));
  EXPECT_EQ(DoJson("GET", "/api/v1/namespaces/default/pods", nullptr, 200)["items"].size(), 2u);
  json web = DoJson("GET", "/api/v1/pods?labelSelector=app=web", nullptr, 200);
  EXPECT_EQ(web["items"].size(), 2u);
  json named = DoJson("GET", "/api/v1/pods?fieldSelector=metadata.name=b", nullptr, 200);
  ASSERT_EQ(named["items"].size(), 1u);
  EXPECT_EQ(named["items"][0]["metadata"]["name"], "b");
  json unassigned = DoJson("GET", "/api/v1/pods?fieldSelector=spec.nodeName=", nullptr, 200);
  EXPECT_EQ(unassigned["items"].size(), 3u);
}

TEST_F(HandlerTest, PaginationIsAConsistentSnapshot) {
  for (int i = 0; i < 5; ++i) CreatePod("p" + std::to_string(i));
  json page1 = DoJson("GET", "/api/v1/namespaces/default/pods?limit=2", nullptr, 200);
  ASSERT_EQ(page1["items"].size(), 2u);
  EXPECT_EQ(page1["metadata"]["remainingItemCount"], 3);
  std::string rv = page1["metadata"]["resourceVersion"];
  std::string cont = page1["metadata"]["continue"];
  // Changes after the first page do not show in later pages.
  CreatePod("p9");
  DoJson("DELETE", "/api/v1/namespaces/default/pods/p4", nullptr, 200);
  json page2 = DoJson("GET", "/api/v1/namespaces/default/pods?limit=2&continue=" + cont,
                      nullptr, 200);
  ASSERT_EQ(page2["items"].size(), 2u);
  EXPECT_EQ(page2["items"][0]["metadata"]["name"], "p2");
  EXPECT_EQ(page2["metadata"]["resourceVersion"], rv);
  json page3 = DoJson("GET", "/api/v1/namespaces/default/pods?limit=2&continue=" +
                                 page2["metadata"]["continue"].get<std::string>(),
                      nullptr, 200);
  ASSERT_EQ(page3["items"].size(), 1u);
  EXPECT_EQ(page3["items"][0]["metadata"]["name"], "p4");
  EXPECT_FALSE(page3["metadata"].contains("continue"));
  // A list that fits in one page has no continue token.
  json whole = DoJson("GET", "/api/v1/namespaces/default/pods?limit=100", nullptr, 200);
  EXPECT_FALSE(whole["metadata"].contains("continue"));
  EXPECT_EQ(whole["items"].size(), 5u);
}

TEST_F(HandlerTest, ContinueTokensExpireWithCompaction) {
  ServerOptions options;
  options.fault_compact_every = seconds(10);
  ApiHandler handler(options, clock_);
  auto req = [&](const std::string& path, const std::string& query) {
    ApiRequest r;
    r.method = "GET";
    r.path = path;
    if (!query.empty()) r.query["continue"] = query;
    r.query["limit"] = "1";
    return handler.Handle(r);
  };
  ApiResponse first = req("/api/v1/namespaces", "");
  std::string cont = json::parse(first.body)["metadata"]["continue"];
  EXPECT_EQ(req("/api/v1/namespaces", cont).code, 200);
  clock_.Step(seconds(10));
  // The compaction runs on the timer thread; poll through the API (no sleep).
  ApiResponse expired;
  auto deadline = std::chrono::steady_clock::now() + seconds(10);
  do {
    expired = req("/api/v1/namespaces", cont);
  } while (expired.code == 200 && std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(expired.code, 410);
  EXPECT_EQ(json::parse(expired.body)["reason"], "Expired");
}

TEST_F(HandlerTest, ListResourceVersionSemantics) {
  CreatePod("a");
  uint64_t now = handler_.current_resource_version();
  EXPECT_EQ(Do("GET", "/api/v1/pods?resourceVersion=0").code, 200);
  EXPECT_EQ(Do("GET", "/api/v1/pods?resourceVersion=" + std::to_string(now) +
                          "&resourceVersionMatch=NotOlderThan")
                .code,
            200);
  json too_large =
      DoJson("GET", "/api/v1/pods?resourceVersion=" + std::to_string(now + 100), nullptr, 504);
  EXPECT_EQ(too_large["details"]["causes"][0]["reason"], "ResourceVersionTooLarge");
  CreatePod("b");
  EXPECT_EQ(Do("GET", "/api/v1/pods?resourceVersion=" + std::to_string(now) +
                          "&resourceVersionMatch=Exact")
                .code,
            410);
}

TEST_F(HandlerTest, UpdateOptimisticConcurrency) {
  json pod = CreatePod("p");
  pod["metadata"]["labels"] = {{"v", "1"}};
  json v1 = DoJson("PUT", "/api/v1/namespaces/default/pods/p", pod, 200);
  EXPECT_NE(v1["metadata"]["resourceVersion"], pod["metadata"]["resourceVersion"]);
  // The old resourceVersion is stale now.
  pod["metadata"]["labels"] = {{"v", "2"}};
  json conflict = DoJson("PUT", "/api/v1/namespaces/default/pods/p", pod, 409);
  EXPECT_EQ(conflict["reason"], "Conflict");
  EXPECT_EQ(conflict["message"],
            "Operation cannot be fulfilled on pods \"p\": the object has been modified; please "
            "apply your changes to the latest version and try again");
  // No resourceVersion: unconditional.
  pod["metadata"].erase("resourceVersion");
  EXPECT_EQ(DoJson("PUT", "/api/v1/namespaces/default/pods/p", pod, 200)["metadata"]["labels"]["v"],
            "2");
  json renamed = pod;
  renamed["metadata"]["name"] = "q";
  EXPECT_EQ(Do("PUT", "/api/v1/namespaces/default/pods/p", renamed.dump()).code, 400);
  EXPECT_EQ(Do("PUT", "/api/v1/namespaces/default/pods/zz",
               json{{"metadata", {{"name", "zz"}}}}.dump())
                .code,
            404);
  // Status writes go through the status subresource only.
  json with_status = DoJson("GET", "/api/v1/namespaces/default/pods/p");
  with_status["status"]["phase"] = "Running";
  EXPECT_EQ(DoJson("PUT", "/api/v1/namespaces/default/pods/p", with_status, 200)["status"]["phase"],
            "Pending");
  with_status.erase("metadata");
  with_status["metadata"] = {{"name", "p"}};
  EXPECT_EQ(DoJson("PUT", "/api/v1/namespaces/default/pods/p/status", with_status,
                   200)["status"]["phase"],
            "Running");
}

TEST_F(HandlerTest, PatchTypes) {
  CreatePod("p");
  const std::string path = "/api/v1/namespaces/default/pods/p";
  ApiResponse merge =
      Do("PATCH", path, R"({"metadata":{"labels":{"a":"1"}}})", "application/merge-patch+json");
  ASSERT_EQ(merge.code, 200) << merge.body;
  ApiResponse smp = Do("PATCH", path + "/status",
                       R"({"status":{"conditions":[{"type":"PodScheduled","status":"False",
                            "reason":"Unschedulable"}],"nominatedNodeName":"n2"}})",
                       "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.code, 200) << smp.body;
  json after = json::parse(smp.body);
  EXPECT_EQ(after["status"]["nominatedNodeName"], "n2");
  EXPECT_EQ(after["status"]["conditions"][0]["reason"], "Unschedulable");
  EXPECT_EQ(after["metadata"]["labels"]["a"], "1");
  ApiResponse jp = Do("PATCH", path, R"([{"op":"add","path":"/metadata/labels/b","value":"2"}])",
                      "application/json-patch+json");
  ASSERT_EQ(jp.code, 200) << jp.body;
  EXPECT_EQ(json::parse(jp.body)["metadata"]["labels"]["b"], "2");
  // A patch carrying a stale resourceVersion is a precondition.
  EXPECT_EQ(Do("PATCH", path, R"({"metadata":{"resourceVersion":"1"}})",
               "application/merge-patch+json")
                .code,
            409);
  EXPECT_EQ(Do("PATCH", path, R"({"metadata":{"name":"other"}})", "application/merge-patch+json")
                .code,
            422);
  EXPECT_EQ(Do("PATCH", path, "{}", "application/apply-patch+yaml").code, 415);
  EXPECT_EQ(Do("PATCH", path, "{oops", "application/merge-patch+json").code, 400);
  EXPECT_EQ(Do("PATCH", path, R"({"spec":{"containers":[{"image":"x"}]}})",
               "application/strategic-merge-patch+json")
                .code,
            400);
  EXPECT_EQ(Do("PATCH", path, R"({"spec":{"nodeName":"n1"}})", "application/merge-patch+json")
                .code,
            422);
  EXPECT_EQ(Do("PATCH", "/api/v1/namespaces/default/pods/zz", "{}",
               "application/merge-patch+json")
                .code,
            404);
}

TEST_F(HandlerTest, BindingSetsNodeOnceAndOnlyOnce) {
  CreatePod("p");
  auto watch = Watch("/api/v1/namespaces/default/pods?watch=1&resourceVersion=" +
                     std::to_string(handler_.current_resource_version()));
  json ok = DoJson("POST", "/api/v1/namespaces/default/pods/p/binding",
                   {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", "p"}, {"annotations", {{"a", "b"}}}}},
                    {"target", {{"kind", "Node"}, {"name", "n1"}}}},
                   201);
  EXPECT_EQ(ok["status"], "Success");
  json pod = DoJson("GET", "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
  EXPECT_EQ(pod["metadata"]["annotations"]["a"], "b");
  EXPECT_EQ(pod["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(pod["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(watch->types(), std::vector<std::string>{"MODIFIED"});

  json again = DoJson("POST", "/api/v1/namespaces/default/pods/p/binding",
                      {{"target", {{"name", "n2"}}}}, 409);
  EXPECT_EQ(again["reason"], "Conflict");
  EXPECT_EQ(again["message"],
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
            "node \"n1\"");
  EXPECT_EQ(DoJson("GET", "/api/v1/namespaces/default/pods/p")["spec"]["nodeName"], "n1");

  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/zz/binding",
               R"({"target":{"name":"n1"}})")
                .code,
            404);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/p/binding", R"({"target":{}})").code, 422);
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods/p/binding",
               R"({"metadata":{"name":"q"},"target":{"name":"n1"}})")
                .code,
            400);
  // The legacy bindings collection takes the pod name from the body.
  CreatePod("q");
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/bindings",
               R"({"metadata":{"name":"q"},"target":{"name":"n3"}})")
                .code,
            201);
  EXPECT_EQ(DoJson("GET", "/api/v1/namespaces/default/pods/q")["spec"]["nodeName"], "n3");
}

TEST_F(HandlerTest, DeleteAndPreconditions) {
  json pod = CreatePod("p");
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p",
               R"({"preconditions":{"uid":"not-it"}})")
                .code,
            409);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p?dryRun=All").code, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p", "{bad").code, 400);
  json deleted = DoJson("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=30",
                        {{"kind", "DeleteOptions"},
                         {"apiVersion", "v1"},
                         {"preconditions", {{"uid", pod["metadata"]["uid"]}}}},
                        200);
  EXPECT_EQ(deleted["metadata"]["name"], "p");
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 404);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p").code, 404);

  json fin = {{"metadata", {{"name", "f"}, {"finalizers", {"x/y"}}}},
              {"spec", {{"containers", {{{"name", "c"}}}}}}};
  DoJson("POST", "/api/v1/namespaces/default/pods", fin, 201);
  json pending = DoJson("DELETE", "/api/v1/namespaces/default/pods/f", nullptr, 200);
  EXPECT_TRUE(pending["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/f").code, 200);
  EXPECT_EQ(Do("PATCH", "/api/v1/namespaces/default/pods/f",
               R"({"metadata":{"finalizers":null}})", "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/f").code, 404);
}

TEST_F(HandlerTest, DeleteCollectionAndNamespaces) {
  DoJson("POST", "/api/v1/namespaces", {{"metadata", {{"name", "team"}}}}, 201);
  CreatePod("a", "team", {{"x", "1"}});
  CreatePod("b", "team");
  CreatePod("c", "default", {{"x", "1"}});
  json gone = DoJson("DELETE", "/api/v1/pods?labelSelector=x=1", nullptr, 200);
  EXPECT_EQ(gone["kind"], "PodList");
  EXPECT_EQ(gone["items"].size(), 2u);
  EXPECT_EQ(DoJson("GET", "/api/v1/pods")["items"].size(), 1u);

  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default").code, 403);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/team").code, 200);
  EXPECT_EQ(DoJson("GET", "/api/v1/pods")["items"].size(), 0u);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team").code, 404);
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/team").code, 404);
}

TEST_F(HandlerTest, WatchStreamsAndResumes) {
  CreatePod("a");
  auto from_zero = Watch("/api/v1/namespaces/default/pods?watch=true");
  ASSERT_EQ(from_zero->types(), std::vector<std::string>{"ADDED"});
  uint64_t rv = handler_.current_resource_version();
  CreatePod("b");
  DoJson("DELETE", "/api/v1/namespaces/default/pods/a", nullptr, 200);
  EXPECT_EQ(from_zero->types(), (std::vector<std::string>{"ADDED", "ADDED", "DELETED"}));
  auto resumed = Watch("/api/v1/namespaces/default/pods?watch=1&resourceVersion=" +
                       std::to_string(rv));
  EXPECT_EQ(resumed->types(), (std::vector<std::string>{"ADDED", "DELETED"}));
  auto legacy = Watch("/api/v1/watch/namespaces/default/pods?resourceVersion=" +
                      std::to_string(rv));
  EXPECT_EQ(legacy->types(), (std::vector<std::string>{"ADDED", "DELETED"}));
  auto filtered = Watch("/api/v1/pods?watch=1&fieldSelector=metadata.name=b");
  EXPECT_EQ(filtered->types(), std::vector<std::string>{"ADDED"});
}

TEST_F(HandlerTest, WatchTooOldIsAnErrorEvent) {
  ServerOptions options;
  options.watch_history = 2;
  ApiHandler handler(options, clock_);
  ApiRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/default/pods";
  for (int i = 0; i < 4; ++i) {
    create.body = json{{"metadata", {{"name", "p" + std::to_string(i)}}},
                       {"spec", {{"containers", {{{"name", "c"}}}}}}}
                      .dump();
    ASSERT_EQ(handler.Handle(create).code, 201);
  }
  ApiRequest watch;
  watch.method = "GET";
  watch.path = "/api/v1/pods";
  watch.query = {{"watch", "1"}, {"resourceVersion", "1"}};
  ApiResponse r = handler.Handle(watch);
  ASSERT_TRUE(r.watch);
  auto sink = std::make_shared<CollectingSink>();
  r.watch->Start(sink);
  ASSERT_EQ(sink->lines().size(), 1u);
  json event = sink->lines()[0];
  EXPECT_EQ(event["type"], "ERROR");
  EXPECT_EQ(event["object"]["kind"], "Status");
  EXPECT_EQ(event["object"]["code"], 410);
  EXPECT_EQ(event["object"]["reason"], "Expired");
  EXPECT_TRUE(sink->closed());
}

TEST_F(HandlerTest, ExpireWatchesEndsStreamsAndExpiresTheNewestVersion) {
  CreatePod("a");
  const std::string newest = std::to_string(handler_.current_resource_version());
  auto sink = Watch("/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" + newest);
  handler_.ExpireWatches();
  EXPECT_TRUE(sink->closed());
  // Even a client that had the newest version (from an event or a
  // bookmark) gets 410 on its re-watch.
  auto rewatch = Watch("/api/v1/pods?watch=1&resourceVersion=" + newest);
  ASSERT_TRUE(rewatch->WaitFor([](const auto&, bool closed) { return closed; }));
  ASSERT_EQ(rewatch->lines().size(), 1u);
  EXPECT_EQ(rewatch->lines()[0]["object"]["code"], 410);
  // A relist's version is watchable again.
  json list = DoJson("GET", "/api/v1/pods", nullptr, 200);
  auto after = Watch("/api/v1/pods?watch=1&resourceVersion=" + list["metadata"]["resourceVersion"].get<std::string>());
  EXPECT_FALSE(after->closed());
}

TEST_F(HandlerTest, WatchTimeoutAndBookmarksFollowTheClock) {
  auto sink = Watch("/api/v1/pods?watch=1&timeoutSeconds=30&allowWatchBookmarks=true"
                    "&resourceVersion=" +
                    std::to_string(handler_.current_resource_version()));
  clock_.Step(seconds(5));  // the default bookmark interval
  ASSERT_TRUE(sink->WaitFor([](const auto& lines, bool) { return !lines.empty(); }));
  EXPECT_EQ(sink->lines()[0]["type"], "BOOKMARK");
  EXPECT_EQ(sink->lines()[0]["object"]["kind"], "Pod");
  EXPECT_FALSE(sink->closed());
  clock_.Step(seconds(25));
  ASSERT_TRUE(sink->WaitFor([](const auto&, bool closed) { return closed; }));
}

TEST_F(HandlerTest, SendInitialEventsEndsWithAnnotatedBookmark) {
  CreatePod("a");
  auto sink = Watch(
      "/api/v1/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
      "&resourceVersionMatch=NotOlderThan");
  EXPECT_EQ(sink->types(), (std::vector<std::string>{"ADDED", "BOOKMARK"}));
}

TEST_F(HandlerTest, TablesForKubectl) {
  CreatePod("a");
  const std::string accept =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
      "g=meta.k8s.io,application/json";
  ApiResponse list = Do("GET", "/api/v1/namespaces/default/pods", "", "", accept);
  json table = json::parse(list.body);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["columnDefinitions"][2]["name"], "Status");
  EXPECT_EQ(table["rows"][0]["cells"][0], "a");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Pending");
  EXPECT_EQ(table["metadata"]["resourceVersion"],
            std::to_string(handler_.current_resource_version()));
  json one = json::parse(Do("GET", "/api/v1/namespaces/default/pods/a", "", "", accept).body);
  EXPECT_EQ(one["rows"].size(), 1u);
  auto sink = Watch("/api/v1/namespaces/default/pods?watch=1", accept);
  CreatePod("b");
  auto lines = sink->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["object"]["kind"], "Table");
  EXPECT_TRUE(lines[0]["object"]["columnDefinitions"].is_array());
  EXPECT_TRUE(lines[1]["object"]["columnDefinitions"].is_null());
  EXPECT_EQ(lines[1]["object"]["rows"][0]["cells"][0], "b");
}

TEST_F(HandlerTest, EventsK8sIoIsAViewOfCoreEvents) {
  json v1 = {{"apiVersion", "events.k8s.io/v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "p.1"}}},
             {"eventTime", "2026-01-01T00:00:00.000000Z"},
             {"reportingController", "ksched"},
             {"reportingInstance", "ksched-1"},
             {"action", "Binding"},
             {"reason", "Scheduled"},
             {"type", "Normal"},
             {"regarding", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
             {"note", "assigned"}};
  auto core_watch = Watch("/api/v1/namespaces/default/events?watch=1");
  auto v1_watch = Watch("/apis/events.k8s.io/v1/events?watch=1&fieldSelector=regarding.name=p");
  json created = DoJson("POST", "/apis/events.k8s.io/v1/namespaces/default/events", v1, 201);
  EXPECT_EQ(created["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(created["note"], "assigned");
  json core = DoJson("GET", "/api/v1/namespaces/default/events/p.1", nullptr, 200);
  EXPECT_EQ(core["apiVersion"], "v1");
  EXPECT_EQ(core["message"], "assigned");
  EXPECT_EQ(core["involvedObject"]["name"], "p");
  json list = DoJson("GET", "/apis/events.k8s.io/v1/events?fieldSelector=reason=Scheduled",
                     nullptr, 200);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["reportingController"], "ksched");
  EXPECT_EQ(Do("PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/p.1",
               R"({"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:01.000000Z"}})",
               "application/merge-patch+json")
                .code,
            200);
  ASSERT_EQ(core_watch->lines().size(), 2u);
  EXPECT_EQ(core_watch->lines()[0]["object"]["apiVersion"], "v1");
  ASSERT_EQ(v1_watch->lines().size(), 2u);
  EXPECT_EQ(v1_watch->lines()[1]["object"]["series"]["count"], 2);
  EXPECT_EQ(Do("POST", "/apis/events.k8s.io/v1/namespaces/default/events",
               json{{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", {{"name", "x"}}}}.dump())
                .code,
            400);
}

TEST_F(HandlerTest, PriorityAdmission) {
  DoJson("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
         {{"metadata", {{"name", "high"}}}, {"value", 1000}, {"preemptionPolicy", "Never"}}, 201);
  json pod = {{"metadata", {{"name", "p"}}},
              {"spec", {{"priorityClassName", "high"}, {"containers", {{{"name", "c"}}}}}}};
  json created = DoJson("POST", "/api/v1/namespaces/default/pods", pod, 201);
  EXPECT_EQ(created["spec"]["priority"], 1000);
  EXPECT_EQ(created["spec"]["preemptionPolicy"], "Never");
  pod["metadata"]["name"] = "q";
  pod["spec"]["priorityClassName"] = "missing";
  json forbidden = DoJson("POST", "/api/v1/namespaces/default/pods", pod, 403);
  EXPECT_EQ(forbidden["reason"], "Forbidden");
  pod["spec"]["priorityClassName"] = "high";
  pod["spec"]["priority"] = 5;
  EXPECT_EQ(Do("POST", "/api/v1/namespaces/default/pods", pod.dump()).code, 403);
  // Without a class an explicit priority is kept; the default is 0.
  json plain = {{"metadata", {{"name", "r"}}},
                {"spec", {{"priority", 7}, {"containers", {{{"name", "c"}}}}}}};
  EXPECT_EQ(DoJson("POST", "/api/v1/namespaces/default/pods", plain, 201)["spec"]["priority"], 7);
  DoJson("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
         {{"metadata", {{"name", "dflt"}}}, {"value", 50}, {"globalDefault", true}}, 201);
  json defaulted = {{"metadata", {{"name", "s"}}}, {"spec", {{"containers", {{{"name", "c"}}}}}}};
  json s = DoJson("POST", "/api/v1/namespaces/default/pods", defaulted, 201);
  EXPECT_EQ(s["spec"]["priority"], 50);
  EXPECT_EQ(s["spec"]["priorityClassName"], "dflt");
}

TEST_F(HandlerTest, OtherResources) {
  for (auto [path, body] : std::vector<std::pair<std::string, json>>{
           {"/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}},
           {"/api/v1/persistentvolumes", {{"metadata", {{"name", "pv1"}}}}},
           {"/api/v1/namespaces/default/persistentvolumeclaims", {{"metadata", {{"name", "c1"}}}}},
           {"/apis/storage.k8s.io/v1/storageclasses",
            {{"metadata", {{"name", "sc"}}}, {"provisioner", "x"}}},
           {"/apis/storage.k8s.io/v1/csinodes", {{"metadata", {{"name", "n1"}}}}},
           {"/apis/storage.k8s.io/v1/csidrivers", {{"metadata", {{"name", "d"}}}}},
           {"/apis/policy/v1/namespaces/default/poddisruptionbudgets",
            {{"metadata", {{"name", "b"}}}}},
           {"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
            {{"metadata", {{"name", "ksched"}}}, {"spec", {{"holderIdentity", "me"}}}}},
           {"/api/v1/namespaces/default/events", {{"metadata", {{"name", "e"}}}}}}) {
    ApiResponse r = Do("POST", path, body.dump());
    EXPECT_EQ(r.code, 201) << path << ": " << r.body;
    json list = DoJson("GET", path, nullptr, 200);
    EXPECT_EQ(list["items"].size(), 1u) << path;
  }
  json lease = DoJson("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched");
  lease["spec"]["holderIdentity"] = "you";
  EXPECT_EQ(DoJson("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched",
                   lease, 200)["spec"]["holderIdentity"],
            "you");
  EXPECT_EQ(Do("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched",
               lease.dump())
                .code,
            409);
  json pvc = DoJson("GET", "/api/v1/namespaces/default/persistentvolumeclaims/c1");
  pvc["status"] = {{"phase", "Bound"}};
  EXPECT_EQ(DoJson("PUT", "/api/v1/namespaces/default/persistentvolumeclaims/c1/status", pvc,
                   200)["status"]["phase"],
            "Bound");
}

TEST_F(HandlerTest, GenerateName) {
  json pod = {{"metadata", {{"generateName", "web-"}}},
              {"spec", {{"containers", {{{"name", "c"}}}}}}};
  json a = DoJson("POST", "/api/v1/namespaces/default/pods", pod, 201);
  json b = DoJson("POST", "/api/v1/namespaces/default/pods", pod, 201);
  EXPECT_NE(a["metadata"]["name"], b["metadata"]["name"]);
}

json PodGroupCrd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "podgroups.scheduling.x-k8s.io"},
    "spec": {"group": "scheduling.x-k8s.io", "scope": "Namespaced",
             "names": {"kind": "PodGroup", "plural": "podgroups", "shortNames": ["pg"]},
             "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                           "subresources": {"status": {}}}]}})");
}

TEST_F(HandlerTest, CustomResourcesAreServedOnceTheirDefinitionExists) {
  const std::string pgs = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";
  EXPECT_EQ(Do("GET", pgs).code, 404);
  EXPECT_EQ(Do("GET", "/apis/scheduling.x-k8s.io").code, 404);
  json crd = DoJson("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    PodGroupCrd(), 201);
  EXPECT_EQ(crd["status"]["conditions"][1]["type"], "Established");

  // Discovery.
  json group = DoJson("GET", "/apis/scheduling.x-k8s.io", nullptr, 200);
  EXPECT_EQ(group["preferredVersion"]["groupVersion"], "scheduling.x-k8s.io/v1alpha1");
  json resources = DoJson("GET", "/apis/scheduling.x-k8s.io/v1alpha1", nullptr, 200);
  ASSERT_EQ(resources["resources"].size(), 2u);
  EXPECT_EQ(resources["resources"][0]["name"], "podgroups");
  EXPECT_EQ(resources["resources"][0]["namespaced"], true);
  EXPECT_EQ(resources["resources"][1]["name"], "podgroups/status");
  bool listed = false;
  json groups = DoJson("GET", "/apis", nullptr, 200);
  for (const auto& g : groups["groups"]) {
    listed = listed || g["name"] == "scheduling.x-k8s.io";
  }
  EXPECT_TRUE(listed);
  EXPECT_EQ(Do("GET", "/openapi/v3/apis/scheduling.x-k8s.io/v1alpha1").code, 200);

  // Create, watch, status subresource, patch, list, delete.
  auto watch = Watch(pgs + "?watch=1");
  json pg = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "gang"}}},
             {"spec", {{"minMember", 3}}},
             {"status", {{"phase", "Running"}}}};
  json created = DoJson("POST", pgs, pg, 201);
  EXPECT_EQ(created["spec"]["minMember"], 3);
  EXPECT_EQ(created["metadata"]["namespace"], "default");
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(DoJson("POST", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/nowhere/podgroups", pg,
                   404)["reason"],
            "NotFound");
  EXPECT_EQ(Do("POST", pgs, pg.dump()).code, 409);
  EXPECT_EQ(Do("PATCH", pgs + "/gang/status", R"({"status":{"phase":"Scheduling","scheduled":1}})",
               "application/merge-patch+json")
                .code,
            200);
  // A write of the object keeps the status; one of status keeps the spec.
  Do("PATCH", pgs + "/gang", R"({"spec":{"minMember":2},"status":{"phase":"Failed"}})",
     "application/merge-patch+json");
  json got = DoJson("GET", pgs + "/gang", nullptr, 200);
  EXPECT_EQ(got["spec"]["minMember"], 2);
  EXPECT_EQ(got["status"]["phase"], "Scheduling");
  EXPECT_EQ(got["status"]["scheduled"], 1);
  EXPECT_EQ(got["metadata"]["generation"], 2);
  EXPECT_EQ(DoJson("GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", nullptr, 200)["items"]
                .size(),
            1u);
  ASSERT_GE(watch->lines().size(), 3u);
  EXPECT_EQ(watch->lines()[0]["type"], "ADDED");
  EXPECT_EQ(watch->lines()[1]["object"]["status"]["phase"], "Scheduling");
  EXPECT_EQ(Do("DELETE", pgs + "/gang").code, 200);
  EXPECT_EQ(Do("GET", pgs + "/gang").code, 404);
  EXPECT_EQ(watch->lines().back()["type"], "DELETED");
}

TEST_F(HandlerTest, DeletingADefinitionStopsServingAndDeletesItsObjects) {
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const std::string pgs = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";
  DoJson("POST", crds, PodGroupCrd(), 201);
  json pg = {{"metadata", {{"name", "gang"}, {"finalizers", {"x.io/keep"}}}}};
  DoJson("POST", pgs, pg, 201);
  auto watch = Watch(pgs + "?watch=1&resourceVersion=1");
  EXPECT_EQ(Do("DELETE", crds + "/podgroups.scheduling.x-k8s.io").code, 200);
  EXPECT_EQ(Do("GET", pgs).code, 404);
  EXPECT_EQ(Do("GET", "/apis/scheduling.x-k8s.io/v1alpha1").code, 404);
  EXPECT_TRUE(watch->closed());
  // Defined again: served again, and the old objects are gone.
  DoJson("POST", crds, PodGroupCrd(), 201);
  EXPECT_EQ(DoJson("GET", pgs, nullptr, 200)["items"].size(), 0u);
}

TEST_F(HandlerTest, ClusterScopedAndMultiVersionCustomResources) {
  json crd = PodGroupCrd();
  crd["metadata"]["name"] = "widgets.example.com";
  crd["spec"] = json::parse(R"({"group": "example.com", "scope": "Cluster",
      "names": {"kind": "Widget", "plural": "widgets"},
      "versions": [{"name": "v1", "served": true, "storage": true},
                   {"name": "v1beta1", "served": true, "storage": false}]})");
  DoJson("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, 201);
  json w = DoJson("POST", "/apis/example.com/v1beta1/widgets",
                  {{"apiVersion", "example.com/v1beta1"}, {"kind", "Widget"},
                   {"metadata", {{"name", "w"}}}, {"size", 1}},
                  201);
  EXPECT_EQ(w["apiVersion"], "example.com/v1beta1");
  json v1 = DoJson("GET", "/apis/example.com/v1/widgets/w", nullptr, 200);
  EXPECT_EQ(v1["apiVersion"], "example.com/v1");
  EXPECT_EQ(v1["size"], 1);
  EXPECT_FALSE(v1["metadata"].contains("namespace"));
  EXPECT_EQ(Do("GET", "/apis/example.com/v1/namespaces/default/widgets").code, 404);
  // No status subresource: status is written with the object.
  EXPECT_EQ(Do("PUT", "/apis/example.com/v1/widgets/w/status", v1.dump()).code, 404);
  json group = DoJson("GET", "/apis/example.com", nullptr, 200);
  EXPECT_EQ(group["versions"].size(), 2u);
  EXPECT_EQ(group["preferredVersion"]["version"], "v1");
}

TEST_F(HandlerTest, InvalidOrConflictingDefinitionsAreRefused) {
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  json bad = PodGroupCrd();
  bad["spec"]["scope"] = "Everywhere";
  EXPECT_EQ(DoJson("POST", crds, bad, 422)["reason"], "Invalid");
  json taken = PodGroupCrd();
  taken["metadata"]["name"] = "storageclasses.storage.k8s.io";
  taken["spec"]["group"] = "storage.k8s.io";
  taken["spec"]["scope"] = "Cluster";
  taken["spec"]["names"] = {{"kind", "StorageClass"}, {"plural", "storageclasses"}};
  json refused = DoJson("POST", crds, taken, 422);
  EXPECT_EQ(refused["reason"], "Invalid");
  EXPECT_EQ(refused["details"]["causes"][0]["field"], "spec.names");
  EXPECT_EQ(Do("GET", crds + "/storageclasses.storage.k8s.io").code, 404);
  EXPECT_EQ(Do("GET", "/apis/storage.k8s.io/v1/storageclasses").code, 200);
}

class FaultTest : public HandlerTest {
 protected:
  static ServerOptions Faults() {
    ServerOptions o;
    o.fault_error_rate = 1.0;
    return o;
  }
  FaultTest() : HandlerTest(Faults()) {}
};

TEST_F(FaultTest, ErrorRateAnswers500ButNotToWatchesOrHealth) {
  json err = DoJson("GET", "/api/v1/pods", nullptr, 500);
  EXPECT_EQ(err["reason"], "InternalError");
  EXPECT_EQ(Do("GET", "/healthz").code, 200);
  Watch("/api/v1/pods?watch=1");
}

class TooManyRequestsTest : public HandlerTest {
 protected:
  static ServerOptions Faults() {
    ServerOptions o;
    o.fault_429_rate = 1.0;
    return o;
  }
  TooManyRequestsTest() : HandlerTest(Faults()) {}
};

TEST_F(TooManyRequestsTest, Answers429WithRetryAfter) {
  ApiResponse r = Do("GET", "/api/v1/pods");
  EXPECT_EQ(r.code, 429);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Retry-After", "1"}));
  EXPECT_EQ(json::parse(r.body)["reason"], "TooManyRequests");
}

class DropWatchesTest : public HandlerTest {
 protected:
  static ServerOptions Faults() {
    ServerOptions o;
    o.fault_drop_watches_every = seconds(3);
    return o;
  }
  DropWatchesTest() : HandlerTest(Faults()) {}
};

TEST_F(DropWatchesTest, ClosesEveryWatchPeriodically) {
  auto a = Watch("/api/v1/pods?watch=1");
  auto b = Watch("/api/v1/nodes?watch=1");
  clock_.Step(seconds(3));
  EXPECT_TRUE(a->WaitFor([](const auto&, bool closed) { return closed; }));
  EXPECT_TRUE(b->WaitFor([](const auto&, bool closed) { return closed; }));
}

class KubeletTest : public HandlerTest {
 protected:
  static ServerOptions Kubelet() {
    ServerOptions o;
    o.graceful_pod_deletion = true;
    return o;
  }
  KubeletTest() : HandlerTest(Kubelet()), simulation_(handler_, clock_, seconds(1)) {}

  // The kubelet's counters move after its store call returns, and the store
  // sends the watch event a test waits for before it returns: wait for the
  // counter too (it is behind by microseconds; the bound only keeps a
  // broken kubelet from hanging the test).
  static bool CountReaches(const std::function<uint64_t()>& count, uint64_t want) {
    for (int i = 0; i < 10000 && count() < want; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return count() == want;
  }

  ClusterSimulation simulation_;
};

TEST_F(KubeletTest, BoundPodsRunAndNodesBecomeReady) {
  auto nodes = Watch("/api/v1/nodes?watch=1");
  DoJson("POST", "/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}, 201);
  CreatePod("idle");  // never bound: must stay Pending
  CreatePod("p");
  auto pods = Watch("/api/v1/namespaces/default/pods?watch=1");
  DoJson("POST", "/api/v1/namespaces/default/pods/p/binding", {{"target", {{"name", "n1"}}}}, 201);
  clock_.Step(seconds(1));
  ASSERT_TRUE(pods->WaitFor([](const std::vector<json>& lines, bool) {
    return !lines.empty() && lines.back()["object"]["status"].value("phase", "") == "Running";
  }));
  json pod = DoJson("GET", "/api/v1/namespaces/default/pods/p");
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["ready"], true);
  EXPECT_EQ(pod["status"]["hostIP"], DoJson("GET", "/api/v1/nodes/n1")["status"]["addresses"][0]["address"]);
  EXPECT_FALSE(pod["status"]["podIP"].get<std::string>().empty());
  ASSERT_TRUE(nodes->WaitFor([](const std::vector<json>& lines, bool) {
    return lines.size() >= 2 && lines.back()["type"] == "MODIFIED";
  }));
  json node = DoJson("GET", "/api/v1/nodes/n1");
  bool ready = false;
  for (const auto& c : node["status"]["conditions"]) {
    ready = ready || (c["type"] == "Ready" && c["status"] == "True");
  }
  EXPECT_TRUE(ready);
  EXPECT_TRUE(CountReaches([&] { return simulation_.kubelet().pods_started(); }, 1));
  // A start of "idle" would have been due no later than p's, and timers run in
  // deadline order.
  EXPECT_EQ(DoJson("GET", "/api/v1/namespaces/default/pods/idle")["status"]["phase"], "Pending");
}

TEST_F(KubeletTest, DeletingABoundPodIsGraceful) {
  DoJson("POST", "/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}, 201);
  CreatePod("p");
  CreatePod("idle");
  DoJson("POST", "/api/v1/namespaces/default/pods/p/binding", {{"target", {{"name", "n1"}}}}, 201);
  auto pods = Watch("/api/v1/namespaces/default/pods?watch=1");
  // Bound: marked terminating with the pod's grace period, still there.
  json marked = DoJson("DELETE", "/api/v1/namespaces/default/pods/p", nullptr, 200);
  EXPECT_EQ(marked["metadata"]["deletionGracePeriodSeconds"], 30);
  EXPECT_TRUE(marked["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  // A precondition on another uid is refused.
  json wrong = {{"preconditions", {{"uid", "other"}}}};
  EXPECT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/p", wrong.dump()).code, 409);
  // The kubelet ends it after its delay.
  clock_.Step(seconds(1));
  ASSERT_TRUE(pods->WaitFor([](const std::vector<json>& lines, bool) {
    return !lines.empty() && lines.back()["type"] == "DELETED";
  }));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 404);
  EXPECT_TRUE(CountReaches([&] { return simulation_.kubelet().pods_terminated(); }, 1));
  // Unbound: no kubelet, deleted at once.
  DoJson("DELETE", "/api/v1/namespaces/default/pods/idle", nullptr, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/idle").code, 404);
}

TEST_F(KubeletTest, GracePeriodZeroDeletesABoundPodAtOnce) {
  DoJson("POST", "/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}, 201);
  CreatePod("p");
  DoJson("POST", "/api/v1/namespaces/default/pods/p/binding", {{"target", {{"name", "n1"}}}}, 201);
  DoJson("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0", nullptr, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 404);
}

TEST_F(KubeletTest, FinalizersOutliveTheKubeletsDelete) {
  DoJson("POST", "/api/v1/nodes", {{"metadata", {{"name", "n1"}}}}, 201);
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"finalizers", {"example.com/keep"}}}},
              {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
  DoJson("POST", "/api/v1/namespaces/default/pods", pod, 201);
  DoJson("DELETE", "/api/v1/namespaces/default/pods/p", nullptr, 200);
  auto pods = Watch("/api/v1/namespaces/default/pods?watch=1");
  clock_.Step(seconds(1));
  ASSERT_TRUE(pods->WaitFor([](const std::vector<json>& lines, bool) {
    return !lines.empty() && lines.back()["object"]["metadata"].value("deletionGracePeriodSeconds", -1) == 0;
  }));
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 200);
  // Removing the finalizer ends it.
  EXPECT_EQ(Do("PATCH", "/api/v1/namespaces/default/pods/p", R"({"metadata":{"finalizers":null}})",
               "application/merge-patch+json")
                .code,
            200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/p").code, 404);
}

}  // namespace
}  // namespace ksched::apiserver
