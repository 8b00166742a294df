// ApiHandler: the Kubernetes REST semantics of kube-apiserver-lite,
// independent of the HTTP library. The HTTP layer (server.h) turns each
// request into an ApiRequest and writes back the ApiResponse; a watch
// response carries a PendingWatch that the HTTP layer starts with a sink
// streaming into the connection.
//
// Served: discovery (/api, /api/v1, /apis, /apis/G, /apis/G/V), /version,
// /healthz /livez /readyz; for every resource of the ResourceTable: get,
// list (labelSelector, fieldSelector, limit/continue over a consistent
// snapshot, resourceVersion / resourceVersionMatch), watch (?watch=true or
// /watch/ paths; resourceVersion, allowWatchBookmarks, sendInitialEvents,
// timeoutSeconds), create, update (optimistic concurrency), patch (merge,
// strategic merge, JSON patch), delete (preconditions, finalizers,
// immediate pod deletion), deletecollection; the status subresources, pod
// binding (pods/NAME/binding and the bindings collection: 409 Conflict when
// the pod already has a node), namespace existence on create (404) and
// namespace deletion (removes the namespace's objects), the built-in
// PriorityClasses and priority admission, events.k8s.io/v1 as a view of
// core events, and custom resources: creating a CustomResourceDefinition
// serves its resources, deleting it stops serving them and deletes their
// objects (crd.h).
//
// Errors are metav1.Status bodies with the real server's reasons and codes;
// a malformed request is a 400, never a crash.
//
// Thread-safety: Handle and the PendingWatch methods are thread-safe (state
// lives in the ObjectStores, each with its own mutex; the resource table and
// the set of stores, which CRDs extend, have their own locks). The handler owns a
// TimerQueue thread (bookmarks, watch timeouts, fault injection) that
// Shutdown() or the destructor stops. The simulated kubelet and PV
// controller are clients of its stores (cluster_simulation.h).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pkg/apiserverlite/api_error.h"
#include "pkg/apiserverlite/list_snapshots.h"
#include "pkg/apiserverlite/object_store.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/apiserverlite/timer_queue.h"
#include "pkg/apiserverlite/watch.h"
#include "pkg/util/clock.h"

namespace ksched::apiserver {

struct ServerOptions {
  // Events kept per resource for watches from a resourceVersion.
  size_t watch_history = 10000;
  // How often watchers that allow bookmarks get one.
  util::Duration bookmark_interval = std::chrono::seconds(5);
  // Watches without timeoutSeconds end after a random time in [1x, 2x).
  util::Duration min_request_timeout = std::chrono::seconds(1800);
  // Paginated-list snapshots kept for continue tokens.
  size_t list_snapshots = 256;

  // DELETE of a bound pod marks it terminating for its kubelet to finish
  // (with ClusterSimulation's kubelet); otherwise, with no kubelets, it is
  // deleted at once.
  bool graceful_pod_deletion = false;

  // Fault injection (tests): fractions of non-watch API requests answered 500
  // or 429 (with Retry-After: 1); periods (zero: off) after which every watch
  // stream is closed / the event history is dropped.
  double fault_error_rate = 0;
  double fault_429_rate = 0;
  util::Duration fault_drop_watches_every = util::Duration::zero();
  util::Duration fault_compact_every = util::Duration::zero();

  std::string git_version = "v1.34.0-ksched-lite";
};

struct ApiRequest {
  std::string method;                        // "GET", "POST", ...
  std::string path;                          // percent-decoded
  std::map<std::string, std::string> query;  // decoded; the last value wins
  std::string content_type;
  std::string accept;
  std::string body;
};

class PendingWatch;

struct ApiResponse {
  int code = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for watch requests: the body is the stream the watch writes.
  std::shared_ptr<PendingWatch> watch;
};

// A watch request accepted by the handler, not yet attached to a stream.
class PendingWatch {
 public:
  PendingWatch(ObjectStore& store, WatchOptions options, TimerQueue& timers,
               util::Duration timeout);

  // Registers the watcher: initial or replayed events are written into
  // `sink` at once, then live events. When the resourceVersion is too old the
  // sink gets one ERROR event (a 410 Expired Status) and is closed.
  // The stream closes by itself after the timeout.
  void Start(std::shared_ptr<WatchSink> sink);
  // Unregisters the watcher (the connection ended); idempotent.
  void Stop();

 private:
  ObjectStore& store_;
  const WatchOptions options_;
  TimerQueue& timers_;
  const util::Duration timeout_;
  std::mutex mu_;
  uint64_t watcher_id_ = 0;
  uint64_t timer_id_ = 0;
  bool stopped_ = false;
};

class ApiHandler {
 public:
  ApiHandler(ServerOptions options, util::Clock& clock);
  ~ApiHandler();

  ApiHandler(const ApiHandler&) = delete;
  ApiHandler& operator=(const ApiHandler&) = delete;

  ApiResponse Handle(const ApiRequest& request);

  // "host:port" advertised in /api (serverAddressByClientCIDRs).
  void set_server_address(std::string address);
  // Stops the timers and closes every watch stream.
  void Shutdown();
  // Ends every open watch stream (clients re-watch); the handler keeps
  // serving.
  void CloseWatchStreams();
  // Expires every client's resourceVersion, as an etcd compaction past all of
  // them would: allocates a version no object carries, compacts every
  // store's history to it and ends every stream, so each re-watch gets 410
  // Gone and relists. Runs on the timer thread, so no bookmark (which
  // carries the newest version and would make the re-watch legal) falls in
  // between. Blocks until done; call before Shutdown. For tests.
  void ExpireWatches();

  // The store behind a resource ("pods", "coordination.k8s.io/leases",
  // "scheduling.x-k8s.io/podgroups" once its CRD exists), or null. Stores
  // live as long as the handler. For tests and benchmarks.
  ObjectStore* store(const std::string& storage_key) const;
  uint64_t current_resource_version() const { return rv_clock_.Current(); }

 private:
  struct Route {
    const ResourceInfo* info = nullptr;  // the resource as served
    std::string ns;
    std::string name;
    std::string subresource;
    bool watch_path = false;         // /watch/ prefix
    bool bindings_collection = false;  // POST namespaces/NS/bindings
  };

  // `path` is request.path without trailing slashes.
  ApiResponse HandleApi(const ApiRequest& request, const std::string& path);
  ApiResult<Route> ParseRoute(const std::string& group, const std::string& version,
                              const std::vector<std::string>& rest) const;
  ApiResponse Dispatch(const ApiRequest& request, const Route& route);

  ApiResponse Get(const ApiRequest& request, const Route& route);
  ApiResponse List(const ApiRequest& request, const Route& route);
  ApiResponse Watch(const ApiRequest& request, const Route& route);
  ApiResponse Create(const ApiRequest& request, const Route& route);
  ApiResponse Update(const ApiRequest& request, const Route& route);
  ApiResponse Patch(const ApiRequest& request, const Route& route);
  ApiResponse Delete(const ApiRequest& request, const Route& route);
  ApiResponse DeleteCollection(const ApiRequest& request, const Route& route);
  ApiResponse Bind(const ApiRequest& request, const Route& route);

  // With graceful_pod_deletion: marks a bound pod terminating instead of
  // deleting it; nullopt when the pod is to be deleted at once.
  std::optional<ApiResult<ObjectStore::DeleteResult>> DeletePodGracefully(ObjectStore& store, const std::string& key,
                                                                          const nlohmann::json& options,
                                                                          const ObjectStore::DeleteCheck& check);
  ApiResult<ObjectStore::DeleteResult> DeleteOne(const Route& route, const std::string& key,
                                                 const nlohmann::json& options);
  void DeleteNamespaceContents(const std::string& ns);
  std::optional<ApiError> AdmitPodPriority(nlohmann::json& pod) const;
  std::optional<ApiError> CheckNamespaceExists(const std::string& ns) const;

  // The resource whose store holds `info`'s objects (itself unless a view).
  const ResourceInfo& StorageInfo(const ResourceInfo& info) const;
  ObjectStore& StoreFor(const ResourceInfo& info) const;
  // Stored form -> served form and back (identity except views).
  nlohmann::json ToServed(const ResourceInfo& info, const nlohmann::json& stored) const;
  nlohmann::json ToStored(const ResourceInfo& info, const nlohmann::json& served) const;
  std::string Serialize(const ResourceInfo& info, const ObjectPtr& obj) const;
  ApiResponse ObjectResponse(int code, const ResourceInfo& info, const ObjectPtr& obj) const;

  bool InjectFault(double rate);

  // Every store, for the timers that visit them all.
  std::vector<ObjectStore*> AllStores() const;
  // The store with that key, created when missing (a CRD's first version).
  ObjectStore& EnsureStore(const ResourceInfo& info);
  // Follows the CRD store: serves, re-serves or stops serving a CRD's
  // resources. Runs under the CRD store's mutex; takes the table's and the
  // stores' locks and, on deletion, the custom resource's store mutex.
  void OnCrdEvent(const EventPtr& event);

  const ServerOptions options_;
  util::Clock& clock_;
  ResourceTable table_;  // the built-ins, then the CRDs' resources
  ResourceVersionClock rv_clock_;
  mutable std::mutex stores_mu_;  // guards stores_ (the map; stores are never removed)
  std::map<std::string, std::unique_ptr<ObjectStore>> stores_;  // by storage key
  ListSnapshots snapshots_;
  TimerQueue timers_;

  mutable std::mutex mu_;  // guards server_address_ and rng_
  std::string server_address_ = "127.0.0.1:8080";
  std::mt19937_64 rng_;
};

}  // namespace ksched::apiserver
