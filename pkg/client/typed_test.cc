#include "pkg/client/typed.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "pkg/client/event_calls.h"
#include "pkg/client/lease_calls.h"
#include "pkg/client/pod_calls.h"
#include "pkg/client/resource_path.h"
#include "pkg/client/test_server.h"

namespace ksched::client {
namespace {

using testing::RecordedRequest;
using testing::Reply;
using testing::StreamingServer;
using testing::TestServer;

std::unique_ptr<RestClient> NewClient(const std::string& url, util::Clock& clock) {
  RestConfig config;
  config.host = url;
  config.qps = 0;
  RestClientOptions options;
  options.retry.max_retries = 0;
  return std::move(RestClient::Create(config, clock, options)).value();
}

std::string StatusBody(int code, const std::string& reason, const std::string& message = "") {
  return nlohmann::json{{"kind", "Status"}, {"code", code}, {"reason", reason},
                        {"message", message.empty() ? reason : message}}
      .dump();
}

TEST(ResourcePathTest, PathsFromTypeInfo) {
  EXPECT_EQ(ApiPrefix("v1"), "/api/v1");
  EXPECT_EQ(ApiPrefix("storage.k8s.io/v1"), "/apis/storage.k8s.io/v1");
  EXPECT_EQ(CollectionPath<api::Pod>("default"), "/api/v1/namespaces/default/pods");
  EXPECT_EQ(CollectionPath<api::Pod>(""), "/api/v1/pods");
  EXPECT_EQ(CollectionPath<api::Node>("ignored"), "/api/v1/nodes");
  EXPECT_EQ(CollectionPath<api::PersistentVolume>(), "/api/v1/persistentvolumes");
  EXPECT_EQ(CollectionPath<api::PersistentVolumeClaim>("d"), "/api/v1/namespaces/d/persistentvolumeclaims");
  EXPECT_EQ(CollectionPath<api::Namespace>(), "/api/v1/namespaces");
  EXPECT_EQ(CollectionPath<api::StorageClass>(), "/apis/storage.k8s.io/v1/storageclasses");
  EXPECT_EQ(CollectionPath<api::CSINode>(), "/apis/storage.k8s.io/v1/csinodes");
  EXPECT_EQ(CollectionPath<api::CSIDriver>(), "/apis/storage.k8s.io/v1/csidrivers");
  EXPECT_EQ(CollectionPath<api::PodDisruptionBudget>(""), "/apis/policy/v1/poddisruptionbudgets");
  EXPECT_EQ(CollectionPath<api::Event>("d"), "/apis/events.k8s.io/v1/namespaces/d/events");
  EXPECT_EQ(ObjectPath<api::Lease>("kube-system", "ksched"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched");
  EXPECT_EQ(ObjectPath<api::Pod>("d", "p", "binding"), "/api/v1/namespaces/d/pods/p/binding");
  EXPECT_EQ(ObjectPath<api::Node>("", "n1", "status"), "/api/v1/nodes/n1/status");
}

TEST(TypedTest, ListDecodesItemsAndSkipsBadOnes) {
  TestServer server([](const RecordedRequest&) {
    nlohmann::json list = {
        {"kind", "PodList"},
        {"metadata", {{"resourceVersion", "42"}}},
        {"items",
         {{{"metadata", {{"name", "a"}, {"namespace", "d"}}}, {"spec", {{"nodeName", "n1"}}}},
          {{"metadata", {{"name", "bad"}, {"namespace", "d"}}}, {"spec", {{"containers", "not-a-list"}}}},
          {{"metadata", {{"name", "b"}, {"namespace", "d"}}}, {"spec", {{"schedulerName", "ksched"}}}}}}};
    return Reply{200, list.dump()};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  ListOptions opts;
  opts.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  util::StatusOr<TypedList<api::Pod>> list = ListObjects<api::Pod>(*client, "", opts);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->resource_version, "42");
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[0].spec.node_name, "n1");
  EXPECT_EQ(list->items[1].spec.scheduler_name, "ksched");
  ASSERT_EQ(list->skipped.size(), 1u);
  EXPECT_EQ(list->skipped[0].code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(list->skipped[0].message().rfind("pods d/bad: ", 0), 0u) << list->skipped[0].message();
  EXPECT_EQ(server.requests()[0].path, "/api/v1/pods");
}

TEST(TypedTest, WatchDecodesObjectsAndReportsBadOnes) {
  StreamingServer stream;
  util::FakeClock clock;
  auto client = NewClient(stream.url(), clock);
  std::mutex mu;
  std::vector<TypedWatchEvent<api::Node>> events;
  std::vector<util::Status> errors;
  TypedWatchSink<api::Node> sink = [&](util::StatusOr<TypedWatchEvent<api::Node>> e) {
    std::lock_guard<std::mutex> l(mu);
    if (e.ok()) {
      events.push_back(std::move(e).value());
    } else {
      errors.push_back(e.status());
    }
  };
  auto result = std::async(std::launch::async, [&] {
    return WatchObjects<api::Node>(*client, "", WatchOptions{}, sink, std::stop_token());
  });
  stream.WaitReplied();
  stream.Write(R"({"type":"ADDED","object":{"kind":"Node","metadata":{"name":"n1","resourceVersion":"5"},)"
               R"("spec":{"unschedulable":true}}})"
               "\n"
               R"({"type":"MODIFIED","object":{"metadata":{"name":"n2"},"spec":{"taints":7}}})"
               "\n"
               R"({"type":"BOOKMARK","object":{"kind":"Node","metadata":{"resourceVersion":"9"}}})"
               "\n");
  stream.Close();
  util::Status s = result.get();
  EXPECT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "ADDED");
  EXPECT_EQ(events[0].object.metadata.name, "n1");
  EXPECT_TRUE(events[0].object.spec.unschedulable);
  EXPECT_EQ(events[1].type, "BOOKMARK");
  EXPECT_EQ(events[1].object.metadata.resource_version, "9");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message().rfind("watch MODIFIED nodes n2: ", 0), 0u) << errors[0].message();
  EXPECT_EQ(stream.server().requests()[0].path, "/api/v1/nodes");
}

// A Binding of d/`name` (uid uid-1) to node `node`.
api::Binding MakeBinding(const std::string& name, const std::string& node) {
  api::Binding b;
  b.metadata.namespace_ = "d";
  b.metadata.name = name;
  b.metadata.uid = "uid-1";
  b.target.kind = "Node";
  b.target.name = node;
  return b;
}

TEST(TypedTest, BindPodPostsABinding) {
  TestServer server([](const RecordedRequest& r) {
    if (r.path.find("/taken/") != std::string::npos) {
      return Reply{409, StatusBody(409, "Conflict", "pod taken is already assigned to node \"n2\"")};
    }
    return Reply{201, R"({"kind":"Status","status":"Success"})"};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  api::Binding b = MakeBinding("web-1", "n1");
  util::Status s = BindPod(*client, b);
  ASSERT_TRUE(s.ok()) << s.ToString();
  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/api/v1/namespaces/d/pods/web-1/binding");
  nlohmann::json body = nlohmann::json::parse(req.body);
  EXPECT_EQ(body["kind"], "Binding");
  EXPECT_EQ(body["apiVersion"], "v1");
  EXPECT_EQ(body["target"]["name"], "n1");
  EXPECT_EQ(body["metadata"]["uid"], "uid-1");

  b.metadata.name = "taken";
  // The error is worded as client-go's: it becomes the pod's FailedScheduling
  // message, which must be kube-scheduler's.
  util::Status taken = BindPod(*client, b);
  EXPECT_EQ(taken.code(), util::StatusCode::kConflict);
  EXPECT_EQ(server.request_count(), 2u) << "a conflict is not read back";
  EXPECT_EQ(taken.message(), "pod taken is already assigned to node \"n2\"");
  b.target.name = "";
  EXPECT_EQ(BindPod(*client, b).code(), util::StatusCode::kInvalidArgument);
}

// A POST whose answer is a 5xx (or lost) may still have bound the pod:
// BindPod reads it back and takes a pod on the target node as bound.
TEST(TypedTest, BindPodReadsThePodBackWhenTheAnswerLeavesItOpen) {
  TestServer server([](const RecordedRequest& r) {
    if (r.method == "POST") return Reply{503, StatusBody(503, "ServiceUnavailable", "proxy closed the connection")};
    const std::string name = r.path.substr(r.path.rfind('/') + 1);
    nlohmann::json pod = {{"apiVersion", "v1"}, {"kind", "Pod"},
                          {"metadata", {{"namespace", "d"}, {"name", name}, {"uid", "uid-1"}}}};
    if (name == "applied") pod["spec"]["nodeName"] = "n1";
    if (name == "elsewhere") pod["spec"]["nodeName"] = "n2";
    if (name == "gone") return Reply{404, StatusBody(404, "NotFound")};
    return Reply{200, pod.dump()};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  api::Binding b = MakeBinding("applied", "n1");
  util::Status applied = BindPod(*client, b);
  EXPECT_TRUE(applied.ok()) << applied.ToString();
  ASSERT_EQ(server.request_count(), 2u);
  EXPECT_EQ(server.requests()[1].method, "GET");
  EXPECT_EQ(server.requests()[1].path, "/api/v1/namespaces/d/pods/applied");
  for (const char* name : {"unbound", "elsewhere", "gone"}) {
    b.metadata.name = name;
    EXPECT_EQ(BindPod(*client, b).code(), util::StatusCode::kUnavailable) << name;
  }
  // Another incarnation of the pod on the node is not this binding's.
  b.metadata.name = "applied";
  b.metadata.uid = "uid-2";
  EXPECT_EQ(BindPod(*client, b).code(), util::StatusCode::kUnavailable);
}

// BindPod only syntax-checks the 2xx answer: any JSON is fine, anything
// else is the same error Post would give.
TEST(TypedTest, BindPodChecksTheAnswerIsJson) {
  TestServer server([](const RecordedRequest& r) {
    if (r.path.find("/blank/") != std::string::npos) return Reply{201, ""};
    if (r.path.find("/utf8/") != std::string::npos) return Reply{201, "{\"message\":\"\xc3\xa9\"}"};
    return Reply{201, R"({"kind":"Status","status":)"};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  api::Binding b = MakeBinding("blank", "n1");
  EXPECT_TRUE(BindPod(*client, b).ok());
  b.metadata.name = "utf8";
  EXPECT_TRUE(BindPod(*client, b).ok());
  b.metadata.name = "broken";
  util::Status s = BindPod(*client, b);
  EXPECT_EQ(s.code(), util::StatusCode::kInternal);
  EXPECT_NE(s.message().find("response body is not JSON"), std::string::npos) << s.ToString();
}

// DecodeResponse answers as DecodeResult(ParseJsonBody(...)) does.
TEST(TypedTest, DecodeResponseMatchesDecodeResult) {
  Request r;
  r.verb = "POST";
  r.path = "/apis/events.k8s.io/v1/namespaces/d/events";
  const std::vector<std::string> bodies = {
      R"({"metadata":{"name":"e","namespace":"d","resourceVersion":"7"},"reason":"Scheduled","note":"ok",
          "eventTime":"2026-11-24T10:00:00.000000Z","regarding":{"kind":"Pod","name":"p"}})",
      R"({"metadata":{"name":"e\u00e9"}})",
      R"({"metadata":{"name":7}})",
      "not json",
      "",
      "[]",
  };
  for (const std::string& body : bodies) {
    SCOPED_TRACE(body);
    util::StatusOr<api::Event> fast = DecodeResponse<api::Event>(r, Response{201, body});
    util::StatusOr<api::Event> slow = DecodeResult<api::Event>(ParseJsonBody(r, Response{201, body}));
    ASSERT_EQ(fast.ok(), slow.ok());
    if (fast.ok()) {
      EXPECT_EQ(api::ToJson(*fast), api::ToJson(*slow));
    } else {
      EXPECT_EQ(fast.status().ToString(), slow.status().ToString());
    }
  }
  EXPECT_EQ(DecodeResponse<api::Event>(r, util::Status(util::StatusCode::kUnavailable, "down")).status().code(),
            util::StatusCode::kUnavailable);
}

TEST(TypedTest, PatchPodStatusUsesStrategicMerge) {
  TestServer server([](const RecordedRequest&) {
    return Reply{200, R"({"kind":"Pod","metadata":{"name":"p","namespace":"d"},)"
                      R"("status":{"nominatedNodeName":"n2","conditions":[{"type":"PodScheduled","status":"False"}]}})"};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  nlohmann::json patch = {
      {"status",
       {{"conditions", {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}},
        {"nominatedNodeName", "n2"}}}};
  util::StatusOr<api::Pod> pod = PatchPodStatus(*client, "d", "p", patch);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->status.nominated_node_name, "n2");
  RecordedRequest req = server.requests()[0];
  EXPECT_EQ(req.method, "PATCH");
  EXPECT_EQ(req.path, "/api/v1/namespaces/d/pods/p/status");
  EXPECT_EQ(req.headers["content-type"], "application/strategic-merge-patch+json");
  EXPECT_EQ(nlohmann::json::parse(req.body), patch);
}

TEST(TypedTest, DeletePodWithGraceAndPrecondition) {
  TestServer server([](const RecordedRequest& r) {
    if (r.path.ends_with("/gone")) return Reply{404, StatusBody(404, "NotFound")};
    return Reply{200, R"({"kind":"Pod","metadata":{"name":"victim"}})"};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  DeleteOptions opts;
  opts.grace_period_seconds = 0;
  opts.precondition_uid = "uid-9";
  ASSERT_TRUE(DeletePod(*client, "d", "victim", opts).ok());
  ASSERT_TRUE(DeletePod(*client, "d", "plain").ok());
  EXPECT_EQ(DeletePod(*client, "d", "gone").code(), util::StatusCode::kNotFound);

  std::vector<RecordedRequest> reqs = server.requests();
  EXPECT_EQ(reqs[0].method, "DELETE");
  EXPECT_EQ(reqs[0].path, "/api/v1/namespaces/d/pods/victim");
  nlohmann::json body = nlohmann::json::parse(reqs[0].body);
  EXPECT_EQ(body["kind"], "DeleteOptions");
  EXPECT_EQ(body["gracePeriodSeconds"], 0);
  EXPECT_EQ(body["preconditions"]["uid"], "uid-9");
  EXPECT_TRUE(reqs[1].body.empty());
  EXPECT_TRUE(DeleteOptionsJson({}).is_null());
}

TEST(TypedTest, CreateAndPatchEvents) {
  TestServer server([](const RecordedRequest& r) {
    nlohmann::json stored = {{"kind", "Event"},
                             {"apiVersion", "events.k8s.io/v1"},
                             {"metadata", {{"name", "web-1.abc"}, {"namespace", "d"}, {"resourceVersion", "3"}}},
                             {"reason", "Scheduled"}};
    return Reply{r.method == "POST" ? 201 : 200, stored.dump()};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);
  api::Event e;
  e.metadata.namespace_ = "d";
  e.metadata.name = "web-1.abc";
  e.reason = "Scheduled";
  e.note = "Successfully assigned d/web-1 to n1";
  e.type = "Normal";
  e.action = "Binding";
  e.reporting_controller = "ksched";
  e.reporting_instance = "ksched-host";
  e.regarding.kind = "Pod";
  e.regarding.name = "web-1";
  util::Status created = CreateEvent(*client, e);
  ASSERT_TRUE(created.ok()) << created.ToString();
  nlohmann::json patch = {{"series", {{"count", 2}}}};
  ASSERT_TRUE(PatchEvent(*client, "d", "web-1.abc", patch).ok());

  std::vector<RecordedRequest> reqs = server.requests();
  EXPECT_EQ(reqs[0].path, "/apis/events.k8s.io/v1/namespaces/d/events");
  nlohmann::json body = nlohmann::json::parse(reqs[0].body);
  EXPECT_EQ(body["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(body["reportingController"], "ksched");
  EXPECT_EQ(body["regarding"]["name"], "web-1");
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].path, "/apis/events.k8s.io/v1/namespaces/d/events/web-1.abc");
  EXPECT_EQ(reqs[1].headers["content-type"], "application/strategic-merge-patch+json");
}

TEST(TypedTest, LeaseGetCreateUpdate) {
  std::mutex mu;
  std::string stored_rv;  // empty: no lease yet
  TestServer server([&](const RecordedRequest& r) {
    std::lock_guard<std::mutex> l(mu);
    auto lease_json = [&] {
      return nlohmann::json{{"kind", "Lease"},
                            {"metadata", {{"name", "ksched"}, {"namespace", "kube-system"}, {"resourceVersion", stored_rv}}},
                            {"spec", {{"holderIdentity", "me"}}}}
          .dump();
    };
    if (r.method == "GET") return stored_rv.empty() ? Reply{404, StatusBody(404, "NotFound")} : Reply{200, lease_json()};
    if (r.method == "POST") {
      if (!stored_rv.empty()) return Reply{409, StatusBody(409, "AlreadyExists")};
      stored_rv = "1";
      return Reply{201, lease_json()};
    }
    nlohmann::json body = nlohmann::json::parse(r.body);
    if (body["metadata"]["resourceVersion"] != stored_rv) return Reply{409, StatusBody(409, "Conflict")};
    stored_rv = std::to_string(std::stoi(stored_rv) + 1);
    return Reply{200, lease_json()};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);

  util::StatusOr<api::Lease> missing = GetLease(*client, "kube-system", "ksched");
  EXPECT_EQ(missing.status().code(), util::StatusCode::kNotFound);

  api::Lease lease;
  lease.metadata.namespace_ = "kube-system";
  lease.metadata.name = "ksched";
  lease.spec.holder_identity = "me";
  util::StatusOr<api::Lease> created = CreateLease(*client, lease);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(CreateLease(*client, lease).status().code(), util::StatusCode::kAlreadyExists);

  util::StatusOr<api::Lease> got = GetLease(*client, "kube-system", "ksched");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->spec.holder_identity, "me");
  util::StatusOr<api::Lease> updated = UpdateLease(*client, *got);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->metadata.resource_version, "2");
  EXPECT_EQ(UpdateLease(*client, *got).status().code(), util::StatusCode::kConflict);  // stale version

  api::Lease no_rv = lease;
  EXPECT_EQ(UpdateLease(*client, no_rv).status().code(), util::StatusCode::kInvalidArgument);

  std::vector<RecordedRequest> reqs = server.requests();
  EXPECT_EQ(reqs[1].path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
  EXPECT_EQ(reqs[4].method, "PUT");
  EXPECT_EQ(reqs[4].path, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ksched");
}

TEST(TypedTest, UpdateObjectPutsThePersistentVolumeAndClaim) {
  std::mutex mu;
  std::vector<RecordedRequest> reqs;
  TestServer server([&](const RecordedRequest& r) {
    std::lock_guard<std::mutex> l(mu);
    reqs.push_back(r);
    nlohmann::json body = nlohmann::json::parse(r.body);
    if (body["metadata"].value("resourceVersion", "") == "stale") return Reply{409, StatusBody(409, "Conflict")};
    body["metadata"]["resourceVersion"] = "8";
    return Reply{200, body.dump()};
  });
  util::FakeClock clock;
  auto client = NewClient(server.url(), clock);

  api::PersistentVolume pv;
  pv.metadata.name = "pv-1";
  pv.metadata.resource_version = "7";
  pv.spec.claim_ref = api::ObjectReference{"PersistentVolumeClaim", "default", "data", "u1", "v1", "", ""};
  util::StatusOr<api::PersistentVolume> stored = UpdateObject(*client, pv);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->metadata.resource_version, "8");
  ASSERT_TRUE(stored->spec.claim_ref.has_value());
  EXPECT_EQ(stored->spec.claim_ref->name, "data");

  api::PersistentVolumeClaim pvc;
  pvc.metadata.namespace_ = "default";
  pvc.metadata.name = "data";
  pvc.metadata.resource_version = "stale";
  EXPECT_EQ(UpdateObject(*client, pvc).status().code(), util::StatusCode::kConflict);

  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].path, "/api/v1/persistentvolumes/pv-1");
  EXPECT_EQ(reqs[1].method, "PUT");
  EXPECT_EQ(reqs[1].path, "/api/v1/namespaces/default/persistentvolumeclaims/data");
}

}  // namespace
}  // namespace ksched::client
