// ksched (app::Server: informers, queue, framework with the in-tree
// plugins, binding through the API) against an in-process
// kube-apiserver-lite on loopback, driven the way a user drives a cluster:
// nodes and pods are created, patched and deleted through the REST API and
// the test watches where pods land.
//
// Each test starts its own API server and scheduler (a few hundred ms).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/ksched/server.h"
#include "pkg/apiserverlite/handler.h"
#include "pkg/client/rest_client.h"
#include "pkg/metrics/http_server.h"
#include "pkg/scheduler/client_adapters.h"
#include "pkg/scheduler/queue/metrics.h"
#include "test/integration/eventually.h"
#include "test/integration/scheduler_fixture.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using integration::Node;

json Pod(const std::string& name, const std::string& cpu, const std::string& scheduler = "ksched") {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"schedulerName", scheduler},
                {"containers",
                 json::array({{{"name", "c"},
                               {"image", "registry.k8s.io/pause:3.10"},
                               {"resources", {{"requests", {{"cpu", cpu}, {"memory", "64Mi"}}}}}}})}}}};
}

// Counts binding calls per pod and can let "another binder" bind a pod
// first, through the API, so ksched's own binding gets the server's 409.
class RecordingBinder final : public scheduler::framework::BindingClient {
 public:
  explicit RecordingBinder(client::RestClient& client) : inner_(client), client_(client) {}

  util::Status Bind(const api::Pod& pod, std::string_view node) override {
    std::string other;
    {
      std::lock_guard<std::mutex> l(mu_);
      ++calls_[pod.metadata.name];
      auto it = steal_.find(pod.metadata.name);
      if (it != steal_.end()) other = it->second;
    }
    if (!other.empty()) {
      json binding = {{"apiVersion", "v1"},
                      {"kind", "Binding"},
                      {"metadata", {{"name", pod.metadata.name}, {"namespace", pod.metadata.namespace_}}},
                      {"target", {{"kind", "Node"}, {"name", other}}}};
      auto r = client_.Post("/api/v1/namespaces/" + pod.metadata.namespace_ + "/pods/" + pod.metadata.name + "/binding",
                            binding);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
    util::Status s = inner_.Bind(pod, node);
    std::lock_guard<std::mutex> l(mu_);
    results_[pod.metadata.name].push_back(s.code());
    return s;
  }

  // The next binding of `pod` is preceded by someone else binding it to
  // `node`.
  void StealNext(const std::string& pod, const std::string& node) {
    std::lock_guard<std::mutex> l(mu_);
    steal_[pod] = node;
  }
  int Calls(const std::string& pod) {
    std::lock_guard<std::mutex> l(mu_);
    return calls_[pod];
  }
  std::map<std::string, int> AllCalls() {
    std::lock_guard<std::mutex> l(mu_);
    return calls_;
  }
  std::vector<util::StatusCode> Results(const std::string& pod) {
    std::lock_guard<std::mutex> l(mu_);
    return results_[pod];
  }

 private:
  scheduler::RestBindingClient inner_;
  client::RestClient& client_;
  std::mutex mu_;
  std::map<std::string, int> calls_;
  std::map<std::string, std::string> steal_;
  std::map<std::string, std::vector<util::StatusCode>> results_;
};

class SchedulerIntegrationTest : public integration::SchedulerFixture {
 protected:
  void SetUp() override { StartApiServer(); }

  // Every binding goes through binder_; the queue's metrics also reach
  // queue_metrics_.
  void StartScheduler(const std::string& yaml = integration::kKschedConfig,
                      scheduler::framework::FeatureGates gates = {}) {
    binder_ = std::make_unique<RecordingBinder>(*kubectl_);
    SchedulerFixture::StartScheduler(yaml, [&](app::ServerOptions& o) {
      o.features = gates;
      o.binding_client = binder_.get();
      o.extra_queue_metrics = &queue_metrics_;
    });
  }

  void DeletePod(const std::string& name) {
    auto r = kubectl_->Delete("/api/v1/namespaces/default/pods/" + name);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::vector<json> EventsFor(const std::string& pod) {
    std::vector<json> out;
    auto r = kubectl_->Get("/apis/events.k8s.io/v1/namespaces/default/events");
    if (!r.ok()) return out;
    for (const json& e : (*r)["items"]) {
      if (e["regarding"].value("name", "") == pod) out.push_back(e);
    }
    return out;
  }
  // The scheduler's queue record of the pod (attempts, rejectors).
  std::optional<scheduler::framework::QueuedPodInfo> Queued(const std::string& pod) {
    return server_->Scheduler().Queue().GetPod(pod, "default");
  }
  // How many events with `label` the scheduler's handlers have finished.
  uint64_t HandledEvents(const std::string& label) {
    return server_->Metrics().EventHandlingDuration(label).Collect().histogram.sample_count;
  }

  std::unique_ptr<RecordingBinder> binder_;
  scheduler::queue::CountingQueueMetrics queue_metrics_;
};

TEST_F(SchedulerIntegrationTest, BasicFit) {
  CreateNode(Node("small", "2"));
  CreateNode(Node("large", "8"));
  StartScheduler();
  CreatePod(Pod("big", "6"));
  CreatePod(Pod("tiny", "100m"));
  EXPECT_EQ(WaitBound("big"), "large");
  EXPECT_FALSE(WaitBound("tiny").empty());
  std::vector<json> events;
  ASSERT_TRUE(Eventually([&] { return !(events = EventsFor("big")).empty(); }));
  EXPECT_EQ(events[0]["reason"], "Scheduled");
  EXPECT_EQ(events[0]["note"], "Successfully assigned default/big to large");
  EXPECT_EQ(events[0]["reportingController"], "ksched");
  EXPECT_EQ(binder_->Calls("big"), 1);
}

TEST_F(SchedulerIntegrationTest, TaintsAndTolerations) {
  CreateNode(Node("gpu", "8", json::object(), json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}})));
  CreateNode(Node("plain", "2"));
  StartScheduler();
  json tolerant = Pod("tolerant", "4");
  tolerant["spec"]["tolerations"] = json::array({{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "gpu"}, {"effect", "NoSchedule"}}});
  CreatePod(tolerant);
  CreatePod(Pod("intolerant", "4"));
  CreatePod(Pod("small", "500m"));
  EXPECT_EQ(WaitBound("tolerant"), "gpu");
  EXPECT_EQ(WaitBound("small"), "plain");
  std::string msg = WaitUnschedulableMessage("intolerant");
  EXPECT_EQ(msg.rfind("0/2 nodes are available: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("Insufficient cpu"), std::string::npos) << msg;
  EXPECT_NE(msg.find("untolerated taint"), std::string::npos) << msg;
  EXPECT_EQ(NodeOf("intolerant"), "");
}

TEST_F(SchedulerIntegrationTest, NodeAffinity) {
  CreateNode(Node("a", "4", {{"topology.kubernetes.io/zone", "z1"}}));
  CreateNode(Node("b", "4", {{"topology.kubernetes.io/zone", "z2"}}));
  StartScheduler();
  json p = Pod("zoned", "100m");
  p["spec"]["affinity"] = {{"nodeAffinity",
                            {{"requiredDuringSchedulingIgnoredDuringExecution",
                              {{"nodeSelectorTerms",
                                json::array({{{"matchExpressions",
                                               json::array({{{"key", "topology.kubernetes.io/zone"},
                                                             {"operator", "In"},
                                                             {"values", json::array({"z2"})}}})}}})}}}}}};
  CreatePod(p);
  json q = Pod("selected", "100m");
  q["spec"]["nodeSelector"] = {{"topology.kubernetes.io/zone", "z1"}};
  CreatePod(q);
  EXPECT_EQ(WaitBound("zoned"), "b");
  EXPECT_EQ(WaitBound("selected"), "a");
}

TEST_F(SchedulerIntegrationTest, InterPodAffinityAndAntiAffinity) {
  CreateNode(Node("a1", "4", {{"topology.kubernetes.io/zone", "za"}, {"kubernetes.io/hostname", "a1"}}));
  CreateNode(Node("a2", "4", {{"topology.kubernetes.io/zone", "za"}, {"kubernetes.io/hostname", "a2"}}));
  CreateNode(Node("b1", "4", {{"topology.kubernetes.io/zone", "zb"}, {"kubernetes.io/hostname", "b1"}}));
  StartScheduler();
  auto term = [](const std::string& app, const std::string& key) {
    return json::array({{{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}}});
  };
  // Caches repel each other per host: three caches on three hosts, a fourth
  // has nowhere to go.
  for (int i = 0; i < 4; ++i) {
    json c = Pod("cache-" + std::to_string(i), "100m");
    c["metadata"]["labels"] = {{"app", "cache"}};
    c["spec"]["affinity"] = {
        {"podAntiAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", term("cache", "kubernetes.io/hostname")}}}};
    CreatePod(c);
    if (i < 3) {
      EXPECT_FALSE(WaitBound("cache-" + std::to_string(i)).empty());
    }
  }
  std::set<std::string> hosts;
  for (int i = 0; i < 3; ++i) hosts.insert(NodeOf("cache-" + std::to_string(i)));
  EXPECT_EQ(hosts.size(), 3u);
  std::string msg = WaitUnschedulableMessage("cache-3");
  EXPECT_NE(msg.find("anti-affinity"), std::string::npos) << msg;

  // An API pod must share a zone with a "db" pod: only zb has one.
  json db = Pod("db", "100m");
  db["metadata"]["labels"] = {{"app", "db"}};
  db["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "b1"}};
  CreatePod(db);
  EXPECT_EQ(WaitBound("db"), "b1");
  json api_pod = Pod("api", "100m");
  api_pod["spec"]["affinity"] = {
      {"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", term("db", "topology.kubernetes.io/zone")}}}};
  CreatePod(api_pod);
  EXPECT_EQ(WaitBound("api"), "b1");
}

TEST_F(SchedulerIntegrationTest, TopologySpreadAcrossZones) {
  for (const char* z : {"za", "zb"}) {
    for (int i = 0; i < 2; ++i) {
      std::string name = std::string(z) + "-" + std::to_string(i);
      CreateNode(Node(name, "8", {{"topology.kubernetes.io/zone", z}, {"kubernetes.io/hostname", name}}));
    }
  }
  StartScheduler();
  for (int i = 0; i < 6; ++i) {
    json p = Pod("web-" + std::to_string(i), "100m");
    p["metadata"]["labels"] = {{"app", "web"}};
    p["spec"]["topologySpreadConstraints"] = json::array({{{"maxSkew", 1},
                                                           {"topologyKey", "topology.kubernetes.io/zone"},
                                                           {"whenUnsatisfiable", "DoNotSchedule"},
                                                           {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}});
    CreatePod(p);
    // One at a time, so each placement sees the previous ones.
    ASSERT_FALSE(WaitBound("web-" + std::to_string(i)).empty());
  }
  std::map<char, int> per_zone;
  for (int i = 0; i < 6; ++i) ++per_zone[NodeOf("web-" + std::to_string(i))[1]];
  EXPECT_EQ(per_zone['a'], 3);
  EXPECT_EQ(per_zone['b'], 3);
}

TEST_F(SchedulerIntegrationTest, HostPorts) {
  CreateNode(Node("a", "4"));
  CreateNode(Node("b", "4"));
  StartScheduler();
  auto with_port = [](const std::string& name) {
    json p = Pod(name, "100m");
    p["spec"]["containers"][0]["ports"] = json::array({{{"containerPort", 8080}, {"hostPort", 8080}}});
    return p;
  };
  CreatePod(with_port("p1"));
  std::string n1 = WaitBound("p1");
  CreatePod(with_port("p2"));
  std::string n2 = WaitBound("p2");
  EXPECT_FALSE(n1.empty());
  EXPECT_FALSE(n2.empty());
  EXPECT_NE(n1, n2);
  CreatePod(with_port("p3"));
  std::string msg = WaitUnschedulableMessage("p3");
  EXPECT_NE(msg.find("free ports"), std::string::npos) << msg;
}

TEST_F(SchedulerIntegrationTest, SchedulingGatesRemovedLater) {
  CreateNode(Node("a", "4"));
  StartScheduler();
  json p = Pod("gated", "100m");
  p["spec"]["schedulingGates"] = json::array({{{"name", "example.com/wait"}}});
  CreatePod(p);
  ASSERT_TRUE(Eventually([&] {
    auto info = Queued("gated");
    return info.has_value() && info->Gated();
  }));
  EXPECT_EQ(Queued("gated")->attempts, 0);
  EXPECT_EQ(NodeOf("gated"), "");
  auto r = kubectl_->Patch("/api/v1/namespaces/default/pods/gated", client::PatchType::kJsonMerge,
                           json{{"spec", {{"schedulingGates", nullptr}}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(WaitBound("gated"), "a");
}

TEST_F(SchedulerIntegrationTest, PodsOfOtherSchedulersAreLeftAloneButCounted) {
  CreateNode(Node("a", "4"));
  CreateNode(Node("b", "4"));
  StartScheduler();
  // Placed by someone else: takes 3 of a's 4 cpus.
  json placed = Pod("placed", "3", "default-scheduler");
  placed["spec"]["nodeName"] = "a";
  CreatePod(placed);
  CreatePod(Pod("foreign", "100m", "default-scheduler"));
  ASSERT_TRUE(Eventually([&] {
    auto ni = server_->Scheduler().Cache().GetNodeInfo("a");
    return ni.ok() && ni->requested().milli_cpu == 3000;
  }));
  CreatePod(Pod("mine", "2"));
  EXPECT_EQ(WaitBound("mine"), "b");
  // The other scheduler's pending pod is never touched.
  EXPECT_EQ(NodeOf("foreign"), "");
  EXPECT_EQ(binder_->Calls("foreign"), 0);
  EXPECT_EQ(binder_->Calls("placed"), 0);
  EXPECT_FALSE(Queued("foreign").has_value());
  EXPECT_TRUE(EventsFor("foreign").empty());
}

TEST_F(SchedulerIntegrationTest, PendingPodIsScheduledWhenANodeIsAddedNotOnUnrelatedEvents) {
  CreateNode(Node("a", "2"));
  StartScheduler();
  CreatePod(Pod("hungry", "3"));
  std::string msg = WaitUnschedulableMessage("hungry");
  // 3 cpus never fit a 2-cpu node, so preemption cannot help (kube's text;
  // DynamicResources' PostFilter, first, has no claim to free).
  EXPECT_EQ(msg,
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
  ASSERT_TRUE(Eventually([&] {
    auto info = Queued("hungry");
    return info.has_value() && info->unschedulable_plugins.Has("NodeResourcesFit");
  }));
  const int attempts = Queued("hungry")->attempts;
  EXPECT_EQ(attempts, 1);
  const int64_t moved_before = queue_metrics_.IncomingPods(scheduler::queue::QueueName::kActive) +
                               queue_metrics_.IncomingPods(scheduler::queue::QueueName::kBackoff);

  // Unrelated to NodeResourcesFit: a node label change, another scheduler's
  // pod placed elsewhere, a PVC.
  auto patched = kubectl_->Patch("/api/v1/nodes/a", client::PatchType::kJsonMerge,
                                 json{{"metadata", {{"labels", {{"team", "blue"}}}}}});
  ASSERT_TRUE(patched.ok());
  json placed = Pod("elsewhere", "100m", "default-scheduler");
  placed["spec"]["nodeName"] = "a";
  CreatePod(placed);
  Create("/api/v1/namespaces/default/persistentvolumeclaims",
         json{{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", "claim"}, {"namespace", "default"}}},
              {"spec", {{"accessModes", json::array({"ReadWriteOnce"})},
                        {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  // The handlers observe their duration after the queue has seen the
  // event: wait until all three were handled.
  ASSERT_TRUE(Eventually([&] {
    return HandledEvents("NodeUpdateNodeLabel") == 1 && HandledEvents("AssignedPodAdd") == 1 &&
           HandledEvents("PersistentVolumeClaimAdd") == 1;
  }));
  EXPECT_EQ(Queued("hungry")->attempts, attempts);
  EXPECT_EQ(queue_metrics_.IncomingPods(scheduler::queue::QueueName::kActive) +
                queue_metrics_.IncomingPods(scheduler::queue::QueueName::kBackoff),
            moved_before);

  // A node that fits: scheduled at once, not after the 5-minute flush.
  const auto added = std::chrono::steady_clock::now();
  CreateNode(Node("big", "8"));
  EXPECT_EQ(WaitBound("hungry", seconds(5)), "big");
  EXPECT_LT(std::chrono::steady_clock::now() - added, seconds(5));
  EXPECT_GE(queue_metrics_.IncomingPods(scheduler::queue::QueueName::kActive, "NodeAdd") +
                queue_metrics_.IncomingPods(scheduler::queue::QueueName::kBackoff, "NodeAdd"),
            1);
}

TEST_F(SchedulerIntegrationTest, Endpoints) {
  CreateNode(Node("a", "1"));
  StartScheduler();
  CreatePod(Pod("ok", "100m"));
  CreatePod(Pod("stuck", "4"));
  EXPECT_EQ(WaitBound("ok"), "a");
  WaitUnschedulableMessage("stuck");
  auto get = [&](const std::string& path) {
    return server_->Endpoints().Serve(metrics::HttpRequest{"GET", path, {}});
  };
  EXPECT_EQ(get("/readyz").status, 200);
  EXPECT_EQ(get("/healthz").status, 200);
  json configz = json::parse(get("/configz").body);
  EXPECT_EQ(configz["componentconfig"]["profiles"][0]["schedulerName"], "ksched");
  json pending = json::parse(get("/debug/pending").body);
  ASSERT_EQ(pending["pods"].size(), 1u) << pending.dump();
  EXPECT_EQ(pending["pods"][0]["name"], "stuck");
  EXPECT_EQ(pending["pods"][0]["queue"], "unschedulable");
  EXPECT_EQ(pending["pods"][0]["attempts"], 1);
  EXPECT_EQ(pending["pods"][0]["unschedulablePlugins"], json::array({"NodeResourcesFit"}));
  EXPECT_EQ(pending["pods"][0]["lastFailureMessage"],
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
  std::string metrics_text = get("/metrics").body;
  EXPECT_NE(metrics_text.find("scheduler_schedule_attempts_total{profile=\"ksched\",result=\"scheduled\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics_text.find("scheduler_pending_pods{queue=\"unschedulable\"} 1"), std::string::npos);
}

TEST_F(SchedulerIntegrationTest, QueueingHintsOff) {
  CreateNode(Node("a", "2"));
  scheduler::framework::FeatureGates gates;
  gates.scheduler_queueing_hints = false;
  StartScheduler(integration::kKschedConfig, gates);
  CreatePod(Pod("hungry", "3"));
  WaitUnschedulableMessage("hungry");
  // A node too small for the pod fails the pre-check: it stays put.
  CreateNode(Node("b", "2"));
  ASSERT_TRUE(Eventually([&] { return HandledEvents("NodeAdd") == 2; }));
  EXPECT_EQ(Queued("hungry")->attempts, 1);
  CreateNode(Node("c", "4"));
  EXPECT_EQ(WaitBound("hungry", seconds(5)), "c");
}

TEST_F(SchedulerIntegrationTest, PendingPodIsScheduledWhenAPodIsDeleted) {
  CreateNode(Node("a", "4"));
  StartScheduler();
  CreatePod(Pod("first", "3"));
  EXPECT_EQ(WaitBound("first"), "a");
  CreatePod(Pod("second", "2"));
  WaitUnschedulableMessage("second");
  const auto deleted = std::chrono::steady_clock::now();
  DeletePod("first");
  EXPECT_EQ(WaitBound("second", seconds(5)), "a");
  EXPECT_LT(std::chrono::steady_clock::now() - deleted, seconds(5));
}

// As kube-scheduler: a 409 on the binding is a binding error (FailedScheduling
// Event, PodScheduled=False SchedulerError, backoff); the informer's report
// of the pod bound elsewhere then takes it out of the queue before its
// backoff ends, so it is not bound again.
TEST_F(SchedulerIntegrationTest, BindingConflictIsABindingErrorAndNotRetried) {
  CreateNode(Node("a", "4"));
  CreateNode(Node("b", "4"));
  StartScheduler();
  // Another binder binds the pod to b just before ksched's binding.
  binder_->StealNext("contested", "b");
  CreatePod(Pod("contested", "100m"));
  EXPECT_EQ(WaitBound("contested"), "b");
  ASSERT_TRUE(Eventually([&] { return !binder_->Results("contested").empty(); }));
  EXPECT_EQ(binder_->Results("contested"), std::vector<util::StatusCode>{util::StatusCode::kConflict});
  // The informer reports the pod on b; ksched's cache agrees and nothing is
  // pending.
  ASSERT_TRUE(Eventually([&] {
    auto ni = server_->Scheduler().Cache().GetNodeInfo("b");
    return ni.ok() && ni->pods().size() == 1;
  }));
  ASSERT_TRUE(Eventually([&] { return server_->Scheduler().PendingPodsDebug().empty(); }));
  ASSERT_TRUE(Eventually([&] {
    for (const json& e : EventsFor("contested")) {
      if (e["reason"] == "FailedScheduling") return true;
    }
    return false;
  }));
  EXPECT_EQ(binder_->Calls("contested"), 1);

  // A pod created already bound is never bound again either.
  json prebound = Pod("prebound", "100m");
  prebound["spec"]["nodeName"] = "a";
  CreatePod(prebound);
  ASSERT_TRUE(Eventually([&] { return server_->Scheduler().Cache().PodCount() == 2; }));
  EXPECT_EQ(binder_->Calls("prebound"), 0);
  EXPECT_EQ(NodeOf("prebound"), "a");
}

TEST_F(SchedulerIntegrationTest, WatchDropsLoseNothing) {
  TearDown();
  apiserver::ServerOptions faulty;
  faulty.bookmark_interval = milliseconds(200);
  faulty.fault_drop_watches_every = milliseconds(300);
  // Re-watches after a compaction get 410 and relist.
  faulty.watch_history = 50;
  faulty.fault_compact_every = milliseconds(700);
  StartApiServer(faulty);
  for (int i = 0; i < 5; ++i) CreateNode(Node("n" + std::to_string(i), "4"));
  StartScheduler();
  for (int i = 5; i < 10; ++i) CreateNode(Node("n" + std::to_string(i), "4"));
  const int kPods = 60;
  for (int i = 0; i < kPods; ++i) {
    CreatePod(Pod("p" + std::to_string(i), "500m"));
    if (i % 10 == 9) std::this_thread::sleep_for(milliseconds(150));  // spread over several watch drops
  }
  // 10 nodes x 4 cpu hold 80 such pods: all fit.
  for (int i = 0; i < kPods; ++i) EXPECT_FALSE(WaitBound("p" + std::to_string(i), seconds(20)).empty()) << i;
  // Delete some while watches keep dropping; the cache must follow.
  for (int i = 0; i < 20; ++i) DeletePod("p" + std::to_string(i));
  ASSERT_TRUE(Eventually([&] { return server_->Scheduler().Cache().PodCount() == kPods - 20; }, seconds(20)))
      << server_->Scheduler().Cache().PodCount();
  EXPECT_EQ(server_->Scheduler().Cache().NodeCount(), 10u);
  for (const auto& [pod, calls] : binder_->AllCalls()) EXPECT_EQ(calls, 1) << pod << " bound more than once";
  EXPECT_TRUE(server_->Scheduler().PendingPodsDebug().empty());
}

// ---- volumes (VolumeBinding + kube-apiserver-lite's simulated PV controller)

json StorageClass(const std::string& name, const std::string& mode,
                  const std::string& provisioner = "kubernetes.io/no-provisioner") {
  return json{{"apiVersion", "storage.k8s.io/v1"},
              {"kind", "StorageClass"},
              {"metadata", {{"name", name}}},
              {"provisioner", provisioner},
              {"volumeBindingMode", mode}};
}

// A local PV of `storage_class` pinned to `node` by hostname.
json LocalPV(const std::string& name, const std::string& storage_class, const std::string& node,
             const std::string& size = "1Gi") {
  return json{{"apiVersion", "v1"},
              {"kind", "PersistentVolume"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"capacity", {{"storage", size}}},
                {"accessModes", json::array({"ReadWriteOnce"})},
                {"storageClassName", storage_class},
                {"local", {{"path", "/mnt/disks/" + name}}},
                {"nodeAffinity",
                 {{"required",
                   {{"nodeSelectorTerms",
                     json::array({{{"matchExpressions",
                                    json::array({{{"key", "kubernetes.io/hostname"},
                                                  {"operator", "In"},
                                                  {"values", json::array({node})}}})}}})}}}}}}}};
}

json Claim(const std::string& name, const std::string& storage_class, const std::string& size = "1Gi") {
  return json{{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"accessModes", json::array({"ReadWriteOnce"})},
                {"storageClassName", storage_class},
                {"resources", {{"requests", {{"storage", size}}}}}}}};
}

json PodWithClaim(const std::string& name, const std::string& claim) {
  json p = Pod(name, "100m");
  p["spec"]["volumes"] = json::array({{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}}});
  return p;
}

class VolumeIntegrationTest : public SchedulerIntegrationTest {
 protected:
  void SetUp() override {
    StartApiServer(apiserver::ServerOptions{}, milliseconds(20));  // kubelets and PV controller
  }
  std::string Phase(const std::string& path) {
    json o = GetObject(path);
    return o.is_object() && o.contains("status") ? o["status"].value("phase", "") : "";
  }
  std::string ClaimPhase(const std::string& claim) {
    return Phase("/api/v1/namespaces/default/persistentvolumeclaims/" + claim);
  }
  std::string VolumeOf(const std::string& claim) {
    json c = GetObject("/api/v1/namespaces/default/persistentvolumeclaims/" + claim);
    return c.is_object() ? c["spec"].value("volumeName", "") : "";
  }
};

TEST_F(VolumeIntegrationTest, PVCStaticBinding) {
  CreateNode(Node("n1", "4", {{"kubernetes.io/hostname", "n1"}}));
  CreateNode(Node("n2", "4", {{"kubernetes.io/hostname", "n2"}}));
  CreateNode(Node("n3", "4", {{"kubernetes.io/hostname", "n3"}}));
  StartScheduler();
  // The pod comes first: its Immediate claim is unbound until the PV
  // controller binds it, and the claim's update brings the pod back.
  CreatePod(PodWithClaim("db", "db-data"));
  Create("/apis/storage.k8s.io/v1/storageclasses", StorageClass("manual", "Immediate"));
  Create("/api/v1/persistentvolumes", LocalPV("pv-n2", "manual", "n2"));
  Create("/api/v1/namespaces/default/persistentvolumeclaims", Claim("db-data", "manual"));
  EXPECT_EQ(WaitBound("db"), "n2");
  EXPECT_EQ(VolumeOf("db-data"), "pv-n2");
  EXPECT_EQ(ClaimPhase("db-data"), "Bound");
  EXPECT_EQ(Phase("/api/v1/persistentvolumes/pv-n2"), "Bound");
  EXPECT_EQ(binder_->Calls("db"), 1);
}

TEST_F(VolumeIntegrationTest, WaitForFirstConsumer) {
  CreateNode(Node("n1", "4", {{"kubernetes.io/hostname", "n1"}}));
  CreateNode(Node("n2", "4", {{"kubernetes.io/hostname", "n2"}}));
  CreateNode(Node("n3", "4", {{"kubernetes.io/hostname", "n3"}}));
  Create("/apis/storage.k8s.io/v1/storageclasses", StorageClass("local", "WaitForFirstConsumer"));
  Create("/api/v1/persistentvolumes", LocalPV("pv-n2", "local", "n2"));
  Create("/api/v1/persistentvolumes", LocalPV("pv-n3", "local", "n3", "2Gi"));
  for (const char* c : {"c1", "c2", "c3"}) Create("/api/v1/namespaces/default/persistentvolumeclaims", Claim(c, "local"));
  // The PV controller leaves WaitForFirstConsumer claims alone.
  ASSERT_TRUE(Eventually([&] { return Phase("/api/v1/persistentvolumes/pv-n3") == "Available"; }));
  EXPECT_EQ(ClaimPhase("c1"), "Pending");
  StartScheduler();
  // Back to back: p2 is scheduled while p1's binding is still in flight,
  // so only the assumed claimRef keeps it off p1's PV.
  CreatePod(PodWithClaim("p1", "c1"));
  CreatePod(PodWithClaim("p2", "c2"));
  std::string n1 = WaitBound("p1");
  std::string n2 = WaitBound("p2");
  EXPECT_TRUE(n1 == "n2" || n1 == "n3") << n1;
  EXPECT_TRUE(n2 == "n2" || n2 == "n3") << n2;
  EXPECT_NE(n1, n2);
  ASSERT_TRUE(Eventually([&] { return ClaimPhase("c1") == "Bound" && ClaimPhase("c2") == "Bound"; }));
  EXPECT_EQ(VolumeOf("c1"), "pv-" + n1);
  EXPECT_EQ(VolumeOf("c2"), "pv-" + n2);
  // No PV is left for a third claim.
  CreatePod(PodWithClaim("p3", "c3"));
  std::string msg = WaitUnschedulableMessage("p3");
  EXPECT_EQ(msg,
            "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. no new claims "
            "to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
      << msg;
  EXPECT_EQ(ClaimPhase("c3"), "Pending");
  // A new PV on n1 lets it in.
  Create("/api/v1/persistentvolumes", LocalPV("pv-n1", "local", "n1"));
  EXPECT_EQ(WaitBound("p3"), "n1");
  ASSERT_TRUE(Eventually([&] { return ClaimPhase("c3") == "Bound"; }));
  EXPECT_EQ(VolumeOf("c3"), "pv-n1");
}

TEST_F(VolumeIntegrationTest, DynamicProvisioningOnTheChosenNode) {
  CreateNode(Node("n1", "4", {{"kubernetes.io/hostname", "n1"}, {"topology.kubernetes.io/zone", "a"}}));
  CreateNode(Node("n2", "4", {{"kubernetes.io/hostname", "n2"}, {"topology.kubernetes.io/zone", "b"}}));
  json sc = StorageClass("zonal", "WaitForFirstConsumer", "csi.example.com");
  sc["allowedTopologies"] = json::array(
      {{{"matchLabelExpressions", json::array({{{"key", "topology.kubernetes.io/zone"}, {"values", {"b"}}}})}}});
  Create("/apis/storage.k8s.io/v1/storageclasses", sc);
  Create("/api/v1/namespaces/default/persistentvolumeclaims", Claim("scratch", "zonal", "5Gi"));
  StartScheduler();
  CreatePod(PodWithClaim("worker", "scratch"));
  EXPECT_EQ(WaitBound("worker"), "n2");
  ASSERT_TRUE(Eventually([&] { return ClaimPhase("scratch") == "Bound"; }));
  json claim = GetObject("/api/v1/namespaces/default/persistentvolumeclaims/scratch");
  EXPECT_EQ(claim["metadata"]["annotations"].value("volume.kubernetes.io/selected-node", ""), "n2");
  json pv = GetObject("/api/v1/persistentvolumes/" + claim["spec"].value("volumeName", ""));
  EXPECT_EQ(pv["spec"]["capacity"].value("storage", ""), "5Gi");
}

// Without a PV controller the binding never completes: PreBind waits
// (bindTimeoutSeconds, 600 s by default) until Stop cancels it.
TEST_F(SchedulerIntegrationTest, StopCancelsAVolumeBindingWait) {
  CreateNode(Node("n1", "4", {{"kubernetes.io/hostname", "n1"}}));
  Create("/apis/storage.k8s.io/v1/storageclasses", StorageClass("local", "WaitForFirstConsumer"));
  Create("/api/v1/persistentvolumes", LocalPV("pv-n1", "local", "n1"));
  json pv = *kubectl_->Get("/api/v1/persistentvolumes/pv-n1");
  pv["status"]["phase"] = "Available";  // what a PV controller would do
  ASSERT_TRUE(kubectl_->Put("/api/v1/persistentvolumes/pv-n1/status", pv).ok());
  Create("/api/v1/namespaces/default/persistentvolumeclaims", Claim("data", "local"));
  StartScheduler();
  CreatePod(PodWithClaim("stuck", "data"));
  // PreBind has written the claimRef and is waiting for the binding.
  ASSERT_TRUE(Eventually([&] {
    auto r = kubectl_->Get("/api/v1/persistentvolumes/pv-n1");
    return r.ok() && (*r)["spec"].contains("claimRef");
  }));
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(10));
  server_.reset();
  EXPECT_EQ(NodeOf("stuck"), "");
}

}  // namespace
}  // namespace ksched

// ---- preemption (DefaultPreemption in the default profile; the simulated
// kubelet ends deleted pods gracefully)

namespace ksched {
namespace {

json PriorityPod(const std::string& name, const std::string& cpu, int priority, const std::string& node = "") {
  json p = Pod(name, "100m");
  p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu;
  p["spec"]["priority"] = priority;
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

class PreemptionIntegrationTest : public SchedulerIntegrationTest {
 protected:
  void SetUp() override {
    StartApiServer(apiserver::ServerOptions{}, milliseconds(20));
  }
  bool Exists(const std::string& pod) { return GetPod(pod).is_object(); }
  // The scheduler's pending pods, for failure messages.
  std::string PendingDump() {
    std::string out;
    for (const auto& p : server_->Scheduler().PendingPodsDebug()) {
      out += p.pod->metadata.name + " in " + p.queue + " attempts " + std::to_string(p.attempts) + " rejectors [";
      for (const auto& r : p.unschedulable_plugins) out += r + " ";
      out += "] last: " + p.last_failure_message + "; ";
    }
    return out;
  }
  std::vector<std::string> Reasons(const std::string& pod) {
    std::vector<std::string> out;
    for (const json& e : EventsFor(pod)) out.push_back(e.value("reason", ""));
    return out;
  }
  bool HasReason(const std::string& pod, const std::string& reason) {
    for (const std::string& r : Reasons(pod)) {
      if (r == reason) return true;
    }
    return false;
  }
  // Waits until every pod in `pods` is known to the scheduler's cache.
  void WaitCached(size_t n) {
    ASSERT_TRUE(Eventually([&] { return server_->Scheduler().Cache().PodCount() == n; }))
        << server_->Scheduler().Cache().PodCount();
  }
};

TEST_F(PreemptionIntegrationTest, HighPriorityPodEvictsTheFewestVictimsAndIsBoundThere) {
  CreateNode(Node("a", "4"));
  CreateNode(Node("b", "4"));
  // a: 1 + 1 + 2 cpus of priorities 1, 1, 2; b: 2 + 2 cpus of priority 5.
  CreatePod(PriorityPod("a-l1", "1", 1, "a"));
  CreatePod(PriorityPod("a-l2", "1", 1, "a"));
  CreatePod(PriorityPod("a-l3", "2", 2, "a"));
  CreatePod(PriorityPod("b-l4", "2", 5, "b"));
  CreatePod(PriorityPod("b-l5", "2", 5, "b"));
  StartScheduler();
  WaitCached(5);
  // 3 cpus: on a, a-l3 and one of the priority-1 pods must go (a-l1 is
  // reprieved: with it back 1 + 3 = 4 fits); on b both would go, and b's
  // most important victim has a higher priority. So: a, two victims.
  CreatePod(PriorityPod("high", "3", 100));
  EXPECT_EQ(WaitBound("high", seconds(15)), "a");
  EXPECT_FALSE(Exists("a-l3"));
  std::vector<std::string> survivors;
  for (const char* p : {"a-l1", "a-l2", "b-l4", "b-l5"}) {
    if (Exists(p)) survivors.push_back(p);
  }
  // Exactly one of the two equal priority-1 pods was evicted.
  ASSERT_EQ(survivors.size(), 3u);
  EXPECT_EQ(survivors[1], "b-l4");
  EXPECT_EQ(survivors[2], "b-l5");
  const std::string evicted = survivors[0] == "a-l1" ? "a-l2" : "a-l1";
  ASSERT_TRUE(Eventually([&] { return HasReason("a-l3", "Preempted") && HasReason(evicted, "Preempted"); }));
  for (const json& e : EventsFor("a-l3")) {
    if (e["reason"] != "Preempted") continue;
    EXPECT_EQ(e["related"]["name"], "high");
    EXPECT_EQ(e["note"], "Preempted by pod " + GetPod("high")["metadata"]["uid"].get<std::string>() + " on node a");
  }
  EXPECT_FALSE(HasReason("b-l4", "Preempted"));
  EXPECT_GE(server_->Metrics().PreemptionAttempts().Collect().counter.value, 1.0);
  auto victims = server_->Metrics().PreemptionVictims().Collect().histogram;
  EXPECT_EQ(victims.sample_count, 1u);
  EXPECT_EQ(victims.sample_sum, 2.0);
}

TEST_F(PreemptionIntegrationTest, PreemptorWaitsForTerminatingVictimsAndIsRetriedWhenTheyGo) {
  CreateNode(Node("a", "4"));
  json victim = PriorityPod("victim", "4", 1, "a");
  victim["metadata"]["finalizers"] = json::array({"example.com/keep"});
  CreatePod(victim);
  StartScheduler();
  WaitCached(1);
  CreatePod(PriorityPod("high", "4", 100));
  // The victim is marked (DisruptionTarget) and deleted, but its finalizer
  // keeps it on the node: the preemptor is nominated there and waits.
  ASSERT_TRUE(Eventually([&] { return GetPod("high")["status"].value("nominatedNodeName", "") == "a"; }));
  json marked;
  ASSERT_TRUE(Eventually([&] {
    marked = GetPod("victim");
    return marked.is_object() && marked["metadata"].contains("deletionTimestamp");
  }));
  bool disruption_target = false;
  for (const json& c : marked["status"].value("conditions", json::array())) {
    if (c.value("type", "") == "DisruptionTarget") {
      disruption_target = c.value("status", "") == "True" && c.value("reason", "") == "PreemptionByScheduler" &&
                          c.value("message", "") == "ksched: preempting to accommodate a higher priority pod";
    }
  }
  EXPECT_TRUE(disruption_target) << marked["status"].dump();
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_TRUE(NodeOf("high").empty());
  // Once the victim is really gone, the preemptor is retried by the pod's
  // deletion event (not by the 5-minute unschedulable flush).
  const auto released = std::chrono::steady_clock::now();
  auto r = kubectl_->Patch("/api/v1/namespaces/default/pods/victim", client::PatchType::kJsonMerge,
                           json{{"metadata", {{"finalizers", nullptr}}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(WaitBound("high", seconds(15)), "a") << PendingDump() << " victim: " << GetPod("victim").dump();
  EXPECT_LT(std::chrono::steady_clock::now() - released, seconds(12));
  EXPECT_EQ(server_->Metrics().PreemptionVictims().Collect().histogram.sample_count, 1u);
  // Asynchronous preemption (kube 1.34's default): one run, and the
  // preemptor was not retried while its victim terminated, so it failed
  // once, as kube-scheduler does.
  auto& runs = server_->Metrics().PreemptionGoroutinesExecution(metrics::GoroutineResult::kSuccess);
  EXPECT_EQ(runs.Collect().counter.value, 1.0);
  std::vector<std::string> failures;
  for (const json& e : EventsFor("high")) {
    if (e.value("reason", "") == "FailedScheduling") failures.push_back(e.value("note", ""));
  }
  EXPECT_EQ(failures, std::vector<std::string>{"0/1 nodes are available: 1 Insufficient cpu."});
}

TEST_F(PreemptionIntegrationTest, PreemptionPolicyNeverEvictsNothing) {
  CreateNode(Node("a", "4"));
  CreatePod(PriorityPod("low", "4", 1, "a"));
  StartScheduler();
  WaitCached(1);
  json never = PriorityPod("never", "4", 100);
  never["spec"]["preemptionPolicy"] = "Never";
  CreatePod(never);
  EXPECT_EQ(WaitUnschedulableMessage("never"),
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due "
            "to preemptionPolicy=Never.");
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_TRUE(Exists("low"));
  EXPECT_FALSE(GetPod("low")["metadata"].contains("deletionTimestamp"));
  EXPECT_TRUE(NodeOf("never").empty());
  EXPECT_EQ(server_->Metrics().PreemptionVictims().Collect().histogram.sample_count, 0u);
}

TEST_F(PreemptionIntegrationTest, PodDisruptionBudgetsSteerTheChoice) {
  CreateNode(Node("a", "4"));
  CreateNode(Node("b", "4"));
  // a's pod has the lower priority, but a PDB (from the informer) protects it.
  json protected_pod = PriorityPod("db", "4", 1, "a");
  protected_pod["metadata"]["labels"] = {{"app", "db"}};
  CreatePod(protected_pod);
  CreatePod(PriorityPod("web", "4", 50, "b"));
  Create("/apis/policy/v1/namespaces/default/poddisruptionbudgets",
         json{{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "db"}, {"namespace", "default"}}},
              {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}});
  StartScheduler();
  WaitCached(2);
  CreatePod(PriorityPod("high", "4", 100));
  EXPECT_EQ(WaitBound("high", seconds(15)), "b");
  EXPECT_TRUE(Exists("db"));
  EXPECT_FALSE(Exists("web"));
}

}  // namespace
}  // namespace ksched
