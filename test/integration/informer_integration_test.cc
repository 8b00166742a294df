// Informers against kube-apiserver-lite on loopback, with the server's fault
// injection on: watch streams dropped every 0.9 s, the event history
// compacted every 0.6 s (so re-watches get 410 and relist), 5% of requests answered 500
// and 1% 429; on top, the test forces a 410 on every informer 8 times during
// the workload (see ForceRelists). Four writers run a random workload of a few thousand creates,
// updates, bindings, status changes and deletes over every resource type a
// scheduler watches. Then:
//   - every informer's Store equals the server's list (keys and
//     resourceVersions; pods with kube-scheduler's field selector);
//   - every handler saw a consistent story per object: no update before its
//     add, no event for an object (UID) after its delete, updates that never
//     go back in resourceVersion, and a final set equal to the Store;
//   - the faults were really exercised (relists, watch restarts);
//   - Shutdown() returns promptly.
// Also checks RestListerWatcher's paging and selectors against the server.
#include <gtest/gtest.h>

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/apiserverlite/handler.h"
#include "pkg/client/resource_path.h"
#include "pkg/client/rest_client.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/rest_lister_watcher.h"
#include "test/integration/loopback_api_server.h"

namespace ksched {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

uint64_t Rv(const std::string& rv) {
  uint64_t v = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), v);
  return v;
}

// Checks the handler calls of one informer (optionally through a filter)
// tell a consistent story, and keeps the set of objects they describe.
template <class T>
class ConsistencyChecker {
 public:
  using Ptr = std::shared_ptr<const T>;

  informer::ResourceEventHandlerFuncs<T> Handler(std::function<bool(const T&)> filter = nullptr) {
    informer::ResourceEventHandlerFuncs<T> f;
    f.filter = std::move(filter);
    f.on_add = [this](const Ptr& obj, bool) { OnAdd(*obj); };
    f.on_update = [this](const Ptr& old_obj, const Ptr& new_obj) { OnUpdate(*old_obj, *new_obj); };
    f.on_delete = [this](const Ptr& obj, bool unknown) { OnDelete(*obj, unknown); };
    return f;
  }

  std::map<std::string, std::string> Present() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, std::string> out;
    for (const auto& [key, entry] : present_) out[key] = entry.rv;
    return out;
  }
  std::vector<std::string> Violations() const {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }
  int64_t calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  bool WaitForKey(const std::string& key, std::chrono::seconds timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return present_.count(key) != 0; });
  }

 private:
  struct Entry {
    std::string rv;
    std::string uid;
  };

  void Violation(std::string what) {
    if (violations_.size() < 20) violations_.push_back(std::move(what));
  }

  void OnAdd(const T& obj) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_;
      std::string key = api::KeyOf(obj.metadata);
      if (present_.count(key) != 0) Violation("add of present " + key);
      if (deleted_uids_.count(obj.metadata.uid) != 0) Violation("add of deleted uid " + key);
      present_[key] = Entry{obj.metadata.resource_version, obj.metadata.uid};
    }
    cv_.notify_all();
  }

  void OnUpdate(const T& old_obj, const T& new_obj) {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    std::string key = api::KeyOf(new_obj.metadata);
    auto it = present_.find(key);
    if (it == present_.end()) {
      Violation("update before add " + key);
      return;
    }
    if (it->second.rv != old_obj.metadata.resource_version) {
      Violation("update of " + key + " from " + old_obj.metadata.resource_version + " but last saw " + it->second.rv);
    }
    if (old_obj.metadata.uid != new_obj.metadata.uid) Violation("update across uids " + key);
    if (deleted_uids_.count(new_obj.metadata.uid) != 0) Violation("update of deleted uid " + key);
    if (Rv(new_obj.metadata.resource_version) < Rv(it->second.rv)) {
      Violation("update of " + key + " went back from " + it->second.rv + " to " + new_obj.metadata.resource_version);
    }
    it->second.rv = new_obj.metadata.resource_version;
  }

  void OnDelete(const T& obj, bool unknown) {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    std::string key = api::KeyOf(obj.metadata);
    auto it = present_.find(key);
    if (it == present_.end()) {
      Violation(std::string("delete of absent ") + key + (unknown ? " (tombstone)" : ""));
      return;
    }
    if (it->second.uid != obj.metadata.uid) Violation("delete of " + key + " with another uid");
    deleted_uids_.insert(obj.metadata.uid);
    present_.erase(it);
  }

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, Entry> present_;
  std::set<std::string> deleted_uids_;
  std::vector<std::string> violations_;
  int64_t calls_ = 0;
};

struct Kind {
  std::string api_version;
  std::string resource;
  bool namespaced;
  std::function<json(const std::string& ns, const std::string& name)> make;
};

json Meta(const std::string& ns, const std::string& name) {
  json m = {{"name", name}, {"labels", {{"app", "load"}}}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

std::vector<Kind> Kinds() {
  return {
      {"v1", "pods", true,
       [](const std::string& ns, const std::string& name) {
         return json{{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", Meta(ns, name)},
                     {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
       }},
      {"v1", "nodes", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", Meta("", name)}, {"spec", json::object()}};
       }},
      {"v1", "persistentvolumes", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "v1"},
                     {"kind", "PersistentVolume"},
                     {"metadata", Meta("", name)},
                     {"spec",
                      {{"capacity", {{"storage", "1Gi"}}},
                       {"accessModes", {"ReadWriteOnce"}},
                       {"storageClassName", "standard"},
                       {"hostPath", {{"path", "/tmp/" + name}}}}}};
       }},
      {"v1", "persistentvolumeclaims", true,
       [](const std::string& ns, const std::string& name) {
         return json{{"apiVersion", "v1"},
                     {"kind", "PersistentVolumeClaim"},
                     {"metadata", Meta(ns, name)},
                     {"spec",
                      {{"accessModes", {"ReadWriteOnce"}},
                       {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
       }},
      {"storage.k8s.io/v1", "storageclasses", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "storage.k8s.io/v1"},
                     {"kind", "StorageClass"},
                     {"metadata", Meta("", name)},
                     {"provisioner", "example.com/disk"}};
       }},
      {"storage.k8s.io/v1", "csinodes", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "storage.k8s.io/v1"},
                     {"kind", "CSINode"},
                     {"metadata", Meta("", name)},
                     {"spec", {{"drivers", json::array()}}}};
       }},
      {"storage.k8s.io/v1", "csidrivers", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "storage.k8s.io/v1"},
                     {"kind", "CSIDriver"},
                     {"metadata", Meta("", name)},
                     {"spec", {{"attachRequired", false}}}};
       }},
      {"policy/v1", "poddisruptionbudgets", true,
       [](const std::string& ns, const std::string& name) {
         return json{{"apiVersion", "policy/v1"},
                     {"kind", "PodDisruptionBudget"},
                     {"metadata", Meta(ns, name)},
                     {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", name}}}}}}}};
       }},
      {"v1", "namespaces", false,
       [](const std::string&, const std::string& name) {
         return json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Meta("", name)}};
       }},
  };
}

const std::vector<std::string> kNamespaces = {"ns-0", "ns-1", "ns-2"};

class InformerIntegrationTest : public ::testing::Test {
 protected:
  // Fault injection as the workload test wants it.
  static apiserver::ServerOptions FaultyServer() {
    apiserver::ServerOptions server;
    server.watch_history = 500;
    // Bookmarks well inside a watch's 0.9 s life, so every run sees some
    // whatever the machine's speed; relists come from the compactions and
    // the forced 410s below.
    server.bookmark_interval = milliseconds(200);
    server.fault_drop_watches_every = milliseconds(900);
    server.fault_compact_every = milliseconds(600);
    server.fault_error_rate = 0.05;
    server.fault_429_rate = 0.01;
    return server;
  }

  void StartServer(const apiserver::ServerOptions& server) {
    integration::LoopbackApiServerOptions options;
    options.server = server;
    auto api = integration::LoopbackApiServer::Start(options);
    ASSERT_TRUE(api.ok()) << api.status().ToString();
    api_ = std::move(api).value();
    informer_client_ = &api_->client();  // no client-side rate limit, as every client here
    // Writers: fast retries (the server's Retry-After of 1 s would dominate).
    client::RestClientOptions fast;
    fast.retry.max_retries = 5;
    fast.retry.initial_backoff = milliseconds(5);
    fast.retry.max_backoff = milliseconds(50);
    fast.retry.max_retry_after = milliseconds(20);
    auto writer = api_->NewClient(fast);
    ASSERT_TRUE(writer.ok());
    writer_ = std::move(writer).value();
  }

  std::string Collection(const Kind& kind, const std::string& ns) const {
    return client::CollectionPath(kind.api_version, kind.resource, kind.namespaced, ns);
  }

  // POST until the server has it (injected 500s are not retried by the
  // client for a POST); AlreadyExists counts as done.
  std::string CreateSurely(const Kind& kind, const std::string& ns, const std::string& name) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto created = writer_->Post(Collection(kind, ns), kind.make(ns, name));
      if (created.ok()) return (*created)["metadata"]["resourceVersion"].get<std::string>();
      if (created.status().code() == util::StatusCode::kAlreadyExists) return "";
    }
    ADD_FAILURE() << "could not create " << kind.resource << " " << name;
    return "";
  }

  // The server's objects (key -> resourceVersion), through the same
  // selectors the informers use.
  std::map<std::string, std::string> ServerState(const Kind& kind) {
    client::QueryParams query;
    if (kind.resource == "pods") query.emplace_back("fieldSelector", informer::kSchedulerPodFieldSelector);
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto list = writer_->Get(Collection(kind, ""), query);
      if (!list.ok()) continue;
      std::map<std::string, std::string> out;
      for (const json& item : (*list)["items"]) {
        const json& m = item["metadata"];
        std::string key = m.contains("namespace") ? m["namespace"].get<std::string>() + "/" : "";
        out[key + m["name"].get<std::string>()] = m["resourceVersion"].get<std::string>();
      }
      return out;
    }
    ADD_FAILURE() << "could not list " << kind.resource;
    return {};
  }

  // Expires every informer's resourceVersion and ends its watch, so each
  // re-watches, gets 410 and relists. Writers are paused meanwhile, until
  // the pods' and nodes' informers have relisted: otherwise, when the
  // writers outpace a busy informer, several forced 410s land while it is
  // still relisting from the previous one and count as one. An informer
  // whose relist was already under way when the versions expired may list
  // at the new version and re-watch legally; expiring again catches it.
  void ForceRelists(const informer::CountingReflectorMetrics& metrics) {
    std::unique_lock<std::shared_mutex> pause(writes_);
    const int64_t pod_relists = metrics.Get("pods").relists;
    const int64_t node_relists = metrics.Get("nodes").relists;
    auto relisted = [&] {
      return metrics.Get("pods").relists != pod_relists && metrics.Get("nodes").relists != node_relists;
    };
    // Bounded: a relist takes milliseconds.
    for (int expiry = 0; expiry < 5 && !relisted(); ++expiry) {
      api_->handler().ExpireWatches();
      const auto next_try = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (!relisted() && std::chrono::steady_clock::now() < next_try) std::this_thread::sleep_for(milliseconds(2));
    }
    ASSERT_TRUE(relisted()) << "the informers did not relist after a forced 410";
  }

  template <class T>
  static std::map<std::string, std::string> StoreState(informer::SharedInformer<T>& informer) {
    std::map<std::string, std::string> out;
    for (const auto& obj : informer.GetStore().List()) out[api::KeyOf(obj->metadata)] = obj->metadata.resource_version;
    return out;
  }

  std::unique_ptr<integration::LoopbackApiServer> api_;
  client::RestClient* informer_client_ = nullptr;  // api_'s
  std::unique_ptr<client::RestClient> writer_;
  // Writers hold it shared per request; ForceRelists exclusively.
  std::shared_mutex writes_;
};

struct OpCounts {
  std::atomic<int64_t> attempted{0};
  std::atomic<int64_t> succeeded{0};
};

TEST_F(InformerIntegrationTest, StoresMatchTheServerAfterARandomWorkloadUnderFaults) {
  ASSERT_NO_FATAL_FAILURE(StartServer(FaultyServer()));
  const std::vector<Kind> kinds = Kinds();
  for (const std::string& ns : kNamespaces) CreateSurely(kinds.back(), "", ns);
  // Objects that exist before the informers start: the first list is
  // paginated (page size 25) and sees them.
  for (int i = 0; i < 60; ++i) CreateSurely(kinds[0], kNamespaces[i % 3], "pod-" + std::to_string(i));
  for (int i = 0; i < 30; ++i) CreateSurely(kinds[1], "", "node-" + std::to_string(i));

  // Declared before the factory: its delivery threads call into them.
  ConsistencyChecker<api::Pod> pods;
  ConsistencyChecker<api::Pod> assigned_pods;  // through a filter, as the scheduler's cache handler
  ConsistencyChecker<api::Node> nodes;
  ConsistencyChecker<api::PersistentVolume> pvs;
  ConsistencyChecker<api::PersistentVolumeClaim> pvcs;
  ConsistencyChecker<api::StorageClass> storage_classes;
  ConsistencyChecker<api::CSINode> csi_nodes;
  ConsistencyChecker<api::CSIDriver> csi_drivers;
  ConsistencyChecker<api::PodDisruptionBudget> pdbs;
  ConsistencyChecker<api::Namespace> namespaces;
  informer::CountingReflectorMetrics metrics;
  informer::InformerFactoryOptions options;
  options.reflector.page_size = 25;
  options.reflector.seed = 2024;
  options.reflector.backoff.initial = milliseconds(50);
  options.reflector.backoff.max = milliseconds(500);
  informer::InformerFactory factory(informer::RestListerWatcherFactory(*informer_client_), util::RealClock::Get(),
                                    options, &metrics);
  factory.Pods().AddEventHandler(pods.Handler());
  factory.Pods().AddEventHandler(assigned_pods.Handler([](const api::Pod& p) { return !p.spec.node_name.empty(); }));
  factory.Nodes().AddEventHandler(nodes.Handler());
  factory.PersistentVolumes().AddEventHandler(pvs.Handler());
  factory.PersistentVolumeClaims().AddEventHandler(pvcs.Handler());
  factory.StorageClasses().AddEventHandler(storage_classes.Handler());
  factory.CSINodes().AddEventHandler(csi_nodes.Handler());
  factory.CSIDrivers().AddEventHandler(csi_drivers.Handler());
  factory.PodDisruptionBudgets().AddEventHandler(pdbs.Handler());
  factory.Namespaces().AddEventHandler(namespaces.Handler());
  factory.Start();
  std::map<std::string, bool> synced = factory.WaitForCacheSync(seconds(30));
  for (const auto& [resource, ok] : synced) EXPECT_TRUE(ok) << resource;
  EXPECT_EQ(synced.size(), 9u);
  EXPECT_GE(factory.Pods().GetStore().Size(), 60u);

  // The workload.
  constexpr int kWriters = 4;
  constexpr int kOpsPerWriter = 800;
  std::map<std::string, OpCounts> counts;
  for (const char* op : {"create", "update", "delete", "bind", "finish"}) counts[op];
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937 rng(1000 + w);
      auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
      for (int i = 0; i < kOpsPerWriter; ++i) {
        // Besides the server's periodic faults, a forced 410 for everyone
        // now and then, while the other writers keep going.
        if (w == 0 && i % 100 == 50) ForceRelists(metrics);
        // Pods get half of the traffic, nodes a sixth, the rest the others;
        // namespaces only come and go under their own names.
        int r = pick(12);
        const Kind& kind = r < 6 ? kinds[0] : r < 8 ? kinds[1] : kinds[2 + pick(static_cast<int>(kinds.size()) - 2)];
        std::string ns = kind.namespaced ? kNamespaces[pick(3)] : "";
        std::string name = (kind.resource == "namespaces" ? "extra-" : "obj-") + std::to_string(pick(40));
        std::string path = Collection(kind, ns) + "/" + name;
        int op = pick(10);
        std::string op_name;
        util::Status status;
        std::shared_lock<std::shared_mutex> writing(writes_);
        if (op < 4) {
          op_name = "create";
          status = writer_->Post(Collection(kind, ns), kind.make(ns, name)).status();
        } else if (op < 7) {
          op_name = "update";
          json patch = {{"metadata", {{"labels", {{"gen", std::to_string(rng())}}}}}};
          status = writer_->Patch(path, client::PatchType::kJsonMerge, patch).status();
        } else if (op < 8 && kind.resource == "pods") {
          op_name = "bind";
          json target = {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "node-" + std::to_string(pick(30))}};
          json binding = {{"apiVersion", "v1"},
                          {"kind", "Binding"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"target", target}};
          status = writer_->Post(path + "/binding", binding).status();
        } else if (op < 8 && kind.resource == "nodes") {
          op_name = "update";
          json patch = {{"spec", {{"unschedulable", pick(2) == 0}}}};
          status = writer_->Patch(path, client::PatchType::kJsonMerge, patch).status();
        } else if (op < 9 && kind.resource == "pods" && pick(3) == 0) {
          // The pod finishes: it leaves the informer's field selector.
          op_name = "finish";
          json patch = {{"status", {{"phase", pick(2) == 0 ? "Succeeded" : "Failed"}}}};
          status = writer_->Patch(path + "/status", client::PatchType::kJsonMerge, patch).status();
        } else {
          op_name = "delete";
          status = writer_->Delete(path).status();
        }
        counts[op_name].attempted++;
        if (status.ok()) counts[op_name].succeeded++;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const auto& [op, c] : counts) {
    EXPECT_GT(c.succeeded.load(), 0) << op;
    std::printf("workload: %s %lld attempted, %lld succeeded\n", op.c_str(), static_cast<long long>(c.attempted.load()),
                static_cast<long long>(c.succeeded.load()));
  }

  // A sentinel per resource, written last: once an informer has it, its
  // Store reflects every earlier write (watch events are ordered).
  auto sentinel = [&](size_t kind_index, auto& checker) {
    const Kind& kind = kinds[kind_index];
    std::string ns = kind.namespaced ? "ns-0" : "";
    CreateSurely(kind, ns, "zz-sentinel");
    std::string key = (ns.empty() ? "" : ns + "/") + "zz-sentinel";
    EXPECT_TRUE(checker.WaitForKey(key, seconds(60))) << kind.resource;
  };
  sentinel(0, pods);
  sentinel(1, nodes);
  sentinel(2, pvs);
  sentinel(3, pvcs);
  sentinel(4, storage_classes);
  sentinel(5, csi_nodes);
  sentinel(6, csi_drivers);
  sentinel(7, pdbs);
  sentinel(8, namespaces);

  // Stores equal the server; handlers' views equal the stores.
  auto compare = [&](size_t kind_index, auto& informer, auto& checker) {
    const Kind& kind = kinds[kind_index];
    std::map<std::string, std::string> server = ServerState(kind);
    std::map<std::string, std::string> store = StoreState(informer);
    EXPECT_EQ(store, server) << kind.resource;
    EXPECT_EQ(checker.Present(), store) << kind.resource;
    std::vector<std::string> violations = checker.Violations();
    EXPECT_TRUE(violations.empty()) << kind.resource << ": " << violations.front();
    informer::CountingReflectorMetrics::Totals t = metrics.Get(kind.resource);
    std::printf("%-22s objects=%zu handler_calls=%lld lists=%lld relists=%lld watches=%lld restarts=%lld "
                "list_errors=%lld decode_errors=%lld backoffs=%zu\n",
                kind.resource.c_str(), store.size(), static_cast<long long>(checker.calls()),
                static_cast<long long>(t.lists), static_cast<long long>(t.relists), static_cast<long long>(t.watches),
                static_cast<long long>(t.watch_restarts), static_cast<long long>(t.list_errors),
                static_cast<long long>(t.decode_errors), t.backoffs.size());
    EXPECT_EQ(t.decode_errors, 0) << kind.resource;
  };
  compare(0, factory.Pods(), pods);
  compare(1, factory.Nodes(), nodes);
  compare(2, factory.PersistentVolumes(), pvs);
  compare(3, factory.PersistentVolumeClaims(), pvcs);
  compare(4, factory.StorageClasses(), storage_classes);
  compare(5, factory.CSINodes(), csi_nodes);
  compare(6, factory.CSIDrivers(), csi_drivers);
  compare(7, factory.PodDisruptionBudgets(), pdbs);
  compare(8, factory.Namespaces(), namespaces);

  // The filtered handler saw exactly the assigned pods.
  std::map<std::string, std::string> assigned;
  for (const auto& pod : factory.Pods().GetStore().List()) {
    if (!pod->spec.node_name.empty()) assigned[api::KeyOf(pod->metadata)] = pod->metadata.resource_version;
  }
  EXPECT_FALSE(assigned.empty());
  EXPECT_EQ(assigned_pods.Present(), assigned);
  EXPECT_TRUE(assigned_pods.Violations().empty());

  // The faults were exercised.
  informer::CountingReflectorMetrics::Totals pod_totals = metrics.Get("pods");
  EXPECT_GE(pod_totals.relists, 4);
  EXPECT_GE(metrics.Get("nodes").relists, 4);
  EXPECT_GT(pod_totals.watch_restarts, 0);
  EXPECT_GT(pod_totals.events["BOOKMARK"], 0);

  auto start = std::chrono::steady_clock::now();
  factory.Shutdown();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, seconds(5));
  std::printf("shutdown took %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<milliseconds>(took).count()));
}

TEST_F(InformerIntegrationTest, RestListerWatcherPagesSelectsAndWatches) {
  ASSERT_NO_FATAL_FAILURE(StartServer(apiserver::ServerOptions{}));  // no faults
  const std::vector<Kind> kinds = Kinds();
  CreateSurely(kinds.back(), "", "ns-0");
  for (int i = 0; i < 7; ++i) CreateSurely(kinds[0], "ns-0", "p-" + std::to_string(i));
  // A finished pod is outside the scheduler's selector.
  ASSERT_TRUE(writer_
                  ->Patch("/api/v1/namespaces/ns-0/pods/p-6/status", client::PatchType::kJsonMerge,
                          {{"status", {{"phase", "Succeeded"}}}})
                  .ok());
  auto lw = informer::NewSchedulerListerWatcher(*informer_client_, informer::ResourceType::Of<api::Pod>());
  std::set<std::string> names;
  informer::ListOptions options;
  options.limit = 3;
  size_t listed = 0;
  auto collect = [&](std::string_view item) {
    ++listed;
    names.insert(json::parse(item)["metadata"]["name"].get<std::string>());
  };
  auto first = lw->List(options, collect, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(listed, 3u);
  ASSERT_FALSE(first->continue_token.empty());
  options.continue_token = first->continue_token;
  auto second = lw->List(options, collect, {});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->continue_token, "");
  EXPECT_EQ(second->resource_version, first->resource_version);
  EXPECT_EQ(names, (std::set<std::string>{"p-0", "p-1", "p-2", "p-3", "p-4", "p-5"}));

  // A continue token the server never issued is refused.
  options.continue_token = "bm90LWEtdG9rZW4";
  EXPECT_NE(lw->List(options, collect, {}).status().code(), util::StatusCode::kOk);

  // A watch from the list's version streams the next change; stopping it
  // from the callback ends the call.
  std::stop_source stop;
  std::vector<std::string> seen;
  util::Status status;
  std::thread watcher([&] {
    informer::WatchOptions watch;
    watch.resource_version = first->resource_version;
    watch.timeout_seconds = 60;
    status = lw->Watch(
        watch,
        [&](util::StatusOr<informer::RawWatchEvent> event) {
          if (!event.ok() || event->type == "BOOKMARK") return;
          // The REST lister-watcher hands objects over as text.
          EXPECT_FALSE(event->object_text.empty());
          nlohmann::json object = nlohmann::json::parse(event->object_text);
          seen.push_back(event->type + " " + object["metadata"]["name"].get<std::string>());
          stop.request_stop();
        },
        stop.get_token());
  });
  CreateSurely(kinds[0], "ns-0", "p-new");
  watcher.join();
  EXPECT_EQ(status.code(), util::StatusCode::kCancelled);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "ADDED p-new");

  // Too old a version: kGone.
  api_->handler().store("pods")->Compact();
  informer::WatchOptions old;
  old.resource_version = first->resource_version;
  EXPECT_EQ(lw->Watch(old, [](util::StatusOr<informer::RawWatchEvent>) {}, {}).code(), util::StatusCode::kGone);
}

}  // namespace
}  // namespace ksched
