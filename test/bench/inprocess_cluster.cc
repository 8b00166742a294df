// InProcessCluster (see cluster.h): the Scheduler fed through its event
// handlers, bindings and claim writes confirmed by an informer-like delivery
// thread.
#include <fmt/format.h>

#include <atomic>
#include <deque>
#include <thread>

#include "pkg/apiserverlite/defaulting.h"
#include "pkg/apiserverlite/resources.h"
#include "pkg/api/codec.h"
#include "pkg/api/resource_codec.h"
#include "pkg/config/defaults.h"
#include "pkg/scheduler/apiwriter/api_writer.h"
#include "pkg/scheduler/attempt_record.h"
#include "pkg/scheduler/eventhandlers.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/scheduler/scheduler.h"
#include "test/bench/cluster.h"
#include "test/bench/informer_like_claims.h"

namespace ksched::bench {
namespace {

using nlohmann::json;
using PodPtr = std::shared_ptr<const api::Pod>;

class TypedPodBatch final : public PodBatch {
 public:
  size_t size() const override { return pods.size(); }
  std::vector<PodPtr> pods;
};

// What the API server and the pod informer do with a binding, in memory:
// Bind() records the bound pod and returns; the delivery thread then
// publishes it as the informer would (lister first, then the handlers).
// Post() queues any other informer delivery (pod status patches, deletes,
// ResourceClaim writes) on the same thread, so the handlers see one ordered
// stream. The claim writes travel with the binding client, as the daemon's
// (framework::ResourceClaimClientSource).
class InformerLikeBinder final : public scheduler::framework::BindingClient,
                                 public scheduler::framework::ResourceClaimClientSource {
 public:
  using Deliver = std::function<void(const PodPtr& old_pod, const PodPtr& new_pod)>;

  InformerLikeBinder(const scheduler::framework::InMemorySharedListers& listers, std::atomic<int64_t>& rv,
                     Deliver deliver)
      : listers_(listers), rv_(rv), deliver_(std::move(deliver)), thread_([this] { Loop(); }) {}
  ~InformerLikeBinder() override { Stop(); }

  // Before the scheduler is built: DynamicResources takes its claim client
  // from the binding client then.
  void SetClaims(scheduler::framework::ResourceClaimClient* claims) { claims_ = claims; }
  scheduler::framework::ResourceClaimClient* ResourceClaims() override { return claims_; }

  util::Status Bind(const api::Pod& pod, std::string_view node_name) override {
    PodPtr old_pod = listers_.Pods().Get(pod.metadata.namespace_, pod.metadata.name);
    if (old_pod == nullptr) return util::NotFound("pods \"" + pod.metadata.name + "\" not found");
    if (!old_pod->spec.node_name.empty()) {
      return util::Status(util::StatusCode::kConflict, "pod " + pod.metadata.name + " is already assigned");
    }
    auto bound = std::make_shared<api::Pod>(*old_pod);
    bound->spec.node_name = std::string(node_name);
    bound->metadata.resource_version = std::to_string(++rv_);
    api::PodCondition cond;
    cond.type = "PodScheduled";
    cond.status = "True";
    bound->status.conditions.push_back(std::move(cond));
    Post([this, old_pod = std::move(old_pod), bound = std::move(bound)] { deliver_(old_pod, bound); });
    return util::Status();
  }

  void Post(std::function<void()> delivery) {
    {
      std::lock_guard<std::mutex> l(mu_);
      pending_.push_back(std::move(delivery));
    }
    cv_.notify_one();  // after unlocking: the woken thread needs the mutex
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopped_) return;
      stopped_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [&] { return stopped_ || !pending_.empty(); });
      if (pending_.empty()) return;
      std::function<void()> delivery = std::move(pending_.front());
      pending_.pop_front();
      l.unlock();
      delivery();
      l.lock();
    }
  }

  const scheduler::framework::InMemorySharedListers& listers_;
  std::atomic<int64_t>& rv_;
  Deliver deliver_;
  scheduler::framework::ResourceClaimClient* claims_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> pending_;
  bool stopped_ = false;
  std::thread thread_;
};

// The API writer's calls, in memory (ClusterOptions::api_writes): status
// patches (nominatedNodeName, conditions merged by type) and deletes change
// the lister's pod and are delivered to the handlers as the pod informer
// would (a bound pod's delete as kube-apiserver's graceful deletion: an
// update that marks it terminating, then the delete); Events are dropped.
class InformerLikeWriterClient final : public scheduler::apiwriter::ApiWriterClient {
 public:
  InformerLikeWriterClient(scheduler::framework::InMemorySharedListers& listers, std::atomic<int64_t>& rv,
                           InformerLikeBinder& delivery, scheduler::EventHandlers*& handlers)
      : listers_(listers), rv_(rv), delivery_(delivery), handlers_(handlers) {}

  util::Status PatchPodStatus(const std::string& ns, const std::string& name, const json& patch) override {
    if (listers_.Pods().Get(ns, name) == nullptr) return util::NotFound("pods \"" + name + "\" not found");
    delivery_.Post([this, ns, name, patch] {
      PodPtr old_pod = listers_.Pods().Get(ns, name);
      if (old_pod == nullptr || !patch.contains("status")) return;
      auto next = std::make_shared<api::Pod>(*old_pod);
      const json& st = patch["status"];
      if (st.contains("nominatedNodeName")) {
        next->status.nominated_node_name = st["nominatedNodeName"].is_string() ? st["nominatedNodeName"].get<std::string>() : "";
      }
      for (const json& c : st.value("conditions", json::array())) {
        api::PodCondition cond;
        cond.type = c.value("type", "");
        cond.status = c.value("status", "");
        cond.reason = c.value("reason", "");
        cond.message = c.value("message", "");
        bool replaced = false;
        for (api::PodCondition& existing : next->status.conditions.Mutable()) {
          if (existing.type == cond.type) {
            existing = cond;
            replaced = true;
          }
        }
        if (!replaced) next->status.conditions.push_back(std::move(cond));
      }
      next->metadata.resource_version = std::to_string(++rv_);
      listers_.pods.Set(next);
      if (next->spec.node_name.empty()) {
        handlers_->OnUnscheduledPodUpdate(old_pod, next);
      } else {
        handlers_->OnAssignedPodUpdate(old_pod, next);
      }
    });
    return util::Status();
  }

  util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override {
    PodPtr pod = listers_.Pods().Get(ns, name);
    if (pod == nullptr) return util::NotFound("pods \"" + name + "\" not found");
    if (pod->metadata.uid != uid) return util::Status(util::StatusCode::kConflict, "uid precondition failed");
    delivery_.Post([this, ns, name, uid] {
      PodPtr current = listers_.Pods().Get(ns, name);
      if (current == nullptr || current->metadata.uid != uid) return;
      if (current->spec.node_name.empty()) {
        listers_.pods.Delete(ns, name);
        handlers_->OnUnscheduledPodDelete(current);
        return;
      }
      if (current->metadata.deletion_timestamp) return;  // already terminating
      // A bound pod is deleted gracefully, as kube-apiserver does: first
      // marked terminating, then gone once its (here absent) kubelet is
      // done, one delivery later.
      auto terminating = std::make_shared<api::Pod>(*current);
      terminating->metadata.deletion_timestamp = std::chrono::system_clock::now();
      terminating->metadata.resource_version = std::to_string(++rv_);
      listers_.pods.Set(terminating);
      handlers_->OnAssignedPodUpdate(current, terminating);
      delivery_.Post([this, ns, name, uid] {
        PodPtr gone = listers_.Pods().Get(ns, name);
        if (gone == nullptr || gone->metadata.uid != uid) return;
        listers_.pods.Delete(ns, name);
        handlers_->OnAssignedPodDelete(gone);
      });
    });
    return util::Status();
  }

  util::Status CreateEvent(const api::Event&) override { return util::Status(); }
  util::Status PatchEvent(const std::string&, const std::string&, const json&) override { return util::Status(); }

 private:
  scheduler::framework::InMemorySharedListers& listers_;
  std::atomic<int64_t>& rv_;
  InformerLikeBinder& delivery_;
  scheduler::EventHandlers*& handlers_;
};

class InProcessCluster final : public Cluster {
 public:
  ~InProcessCluster() override { Stop(); }
  const char* Mode() const override { return "inprocess"; }

  util::Status Init(const ClusterOptions& options) {
    // As the daemon: the switches some code reads process-wide.
    options.features.ApplyProcessWideSwitches();
    util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry(options.features);
    if (!registry.ok()) return registry.status();
    registry_ = std::move(registry).value();
    binder_ = std::make_unique<InformerLikeBinder>(
        listers_, rv_, [this](const PodPtr& o, const PodPtr& n) { Confirm(o, n); });
    claims_ = std::make_unique<InformerLikeClaims>(
        rv_, [this](std::function<void()> d) { binder_->Post(std::move(d)); },
        [this](const std::shared_ptr<const api::ResourceClaim>& c) { DeliverClaim(c); });
    binder_->SetClaims(claims_.get());
    if (options.api_writes) {
      writer_client_ = std::make_unique<InformerLikeWriterClient>(listers_, rv_, *binder_, handlers_raw_);
      writer_ = std::make_unique<scheduler::apiwriter::ApiWriter>(*writer_client_, util::RealClock::Get());
    }
    scheduler::SchedulerOptions so;
    so.features = options.features;
    so.binding_client = binder_.get();
    so.api_writer = writer_.get();
    so.listers = &listers_;
    so.metrics = &metrics_;
    if (options.explain_record_size > 0) {
      record_ = std::make_unique<scheduler::AttemptRecord>(options.explain_record_size,
                                                           scheduler::AttemptRecord::kDefaultTopNodes,
                                                           util::RealClock::Get());
      so.observer = record_.get();
    }
    so.seed = options.seed;
    deterministic_uids_ = options.seed != 0;
    config::KubeSchedulerConfiguration cfg = config::DefaultConfiguration(registry_.Known());
    if (options.parallelism > 0) cfg.parallelism = options.parallelism;
    util::StatusOr<std::unique_ptr<scheduler::Scheduler>> s = scheduler::Scheduler::New(cfg, registry_, so);
    if (!s.ok()) return s.status();
    sched_ = std::move(s).value();
    handlers_ = std::make_unique<scheduler::EventHandlers>(*sched_);
    handlers_raw_ = handlers_.get();
    pods_info_ = apiserver::ResourceTable::Default().Find("", "v1", "pods");
    nodes_info_ = apiserver::ResourceTable::Default().Find("", "v1", "nodes");
    ns_info_ = apiserver::ResourceTable::Default().Find("", "v1", "namespaces");
    if (pods_info_ == nullptr || nodes_info_ == nullptr || ns_info_ == nullptr) {
      return util::Internal("resource table lacks pods, nodes or namespaces");
    }
    for (const char* resource : {"deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"}) {
      const apiserver::ResourceInfo* info = apiserver::ResourceTable::Default().Find("resource.k8s.io", "v1", resource);
      if (info == nullptr) return util::Internal(std::string("resource table lacks ") + resource);
      dra_info_[info->kind] = info;
    }
    sched_->Run();
    return util::Status();
  }

  util::Status CreateNamespace(const json& ns) override {
    util::StatusOr<std::shared_ptr<const api::Namespace>> obj = Decode<api::Namespace>(*ns_info_, ns, "");
    if (!obj.ok()) return obj.status();
    listers_.namespaces.Set(*obj);
    return util::Status();
  }

  util::Status CreateNodes(const std::vector<json>& nodes) override {
    for (const json& n : nodes) {
      util::StatusOr<std::shared_ptr<const api::Node>> obj = Decode<api::Node>(*nodes_info_, n, "");
      if (!obj.ok()) return obj.status();
      handlers_->OnNodeAdd(*obj);
    }
    return util::Status();
  }

  util::StatusOr<std::unique_ptr<PodBatch>> PreparePods(const std::vector<json>& pods) override {
    auto batch = std::make_unique<TypedPodBatch>();
    batch->pods.reserve(pods.size());
    for (const json& p : pods) {
      util::StatusOr<PodPtr> obj =
          Decode<api::Pod>(*pods_info_, p, p["metadata"].value("namespace", std::string("default")));
      if (!obj.ok()) return obj.status();
      batch->pods.push_back(std::move(obj).value());
    }
    return std::unique_ptr<PodBatch>(std::move(batch));
  }

  util::Status CreatePods(PodBatch& batch) override {
    for (const PodPtr& p : static_cast<TypedPodBatch&>(batch).pods) {
      listers_.pods.Set(p);
      if (!p->spec.node_name.empty()) {
        handlers_->OnAssignedPodAdd(p);
      } else if (sched_->IsResponsibleFor(*p)) {
        handlers_->OnUnscheduledPodAdd(p);
      }
    }
    return util::Status();
  }

  util::Status CreateObjects(const std::vector<json>& objects) override {
    for (const json& o : objects) {
      const std::string kind = o.value("kind", "");
      auto info = dra_info_.find(kind);
      if (info == dra_info_.end()) return util::InvalidArgument("kind " + kind + " is not created in process");
      const std::string ns = o.contains("metadata") ? o["metadata"].value("namespace", std::string()) : "";
      util::Status s;
      if (kind == "DeviceClass") {
        s = Add<api::DeviceClass>(*info->second, o, ns, listers_.device_classes,
                                  scheduler::framework::resource::kDeviceClass);
      } else if (kind == "ResourceSlice") {
        s = Add<api::ResourceSlice>(*info->second, o, ns, listers_.resource_slices,
                                    scheduler::framework::resource::kResourceSlice);
      } else if (kind == "ResourceClaimTemplate") {
        // No plugin registers events for templates.
        s = Add<api::ResourceClaimTemplate>(*info->second, o, ns, listers_.resource_claim_templates, "");
      } else {
        util::StatusOr<std::shared_ptr<const api::ResourceClaim>> claim = Decode<api::ResourceClaim>(*info->second, o, ns);
        s = claim.ok() ? claims_->Create(*claim) : claim.status();
      }
      if (!s.ok()) return s;
    }
    return util::Status();
  }

  util::Status UpdateStatus(const std::vector<json>& objects) override {
    for (const json& o : objects) {
      if (o.value("kind", "") != "ResourceClaim") {
        return util::InvalidArgument("status of kind " + o.value("kind", "") + " is not written in process");
      }
      util::StatusOr<api::ResourceClaim> claim = api::FromJson<api::ResourceClaim>(o);
      if (!claim.ok()) return claim.status();
      util::Status s = claims_->SetStatus(claim->metadata.namespace_, claim->metadata.name, claim->status);
      if (!s.ok()) return s;
    }
    return util::Status();
  }

  // The claims as the API server holds them (PreBind's writes are stored
  // before its Bind), the pods as the lister does (a binding is counted
  // once delivered there).
  util::StatusOr<ClaimCheck> CheckResourceClaims() override {
    return CheckClaimAllocations(listers_.pods.List(), claims_->List(), listers_.resource_slices.List());
  }

  util::StatusOr<int64_t> CountBoundPods(const std::string& namespace_) override {
    int64_t n = 0;
    for (const PodPtr& p : listers_.pods.List(namespace_)) {
      if (!p->spec.node_name.empty()) ++n;
    }
    return n;
  }

  void WaitForBindingCycles() override { sched_->WaitForBindingCycles(); }
  util::StatusOr<Families> ScrapeMetrics() override { return metrics_.Registry()->Collect(); }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    if (sched_) sched_->Stop();
    if (writer_) writer_->Stop();
    if (binder_) binder_->Stop();
  }

 private:
  template <class T>
  util::StatusOr<std::shared_ptr<const T>> Decode(const apiserver::ResourceInfo& info, const json& obj,
                                                  const std::string& ns) {
    apiserver::ApiResult<json> prepared =
        apiserver::PrepareForCreate(info, obj, info.namespaced ? ns : "", util::RealClock::Get().WallNow());
    if (!prepared.ok()) return util::InvalidArgument(prepared.error().message);
    json& j = prepared.value();
    const int64_t rv = ++rv_;
    j["metadata"]["resourceVersion"] = std::to_string(rv);
    // Same length as a random UUID, so only the randomness goes.
    if (deterministic_uids_) j["metadata"]["uid"] = fmt::format("00000000-0000-4000-8000-{:012d}", rv);
    util::StatusOr<T> typed = api::FromJson<T>(j);
    if (!typed.ok()) return typed.status();
    return std::make_shared<const T>(std::move(typed).value());
  }

  // Decodes `obj` as created, adds it to `lister` and tells the handlers
  // (`resource` empty: nobody listens).
  template <class T>
  util::Status Add(const apiserver::ResourceInfo& info, const json& obj, const std::string& ns,
                   scheduler::framework::InMemoryLister<T>& lister, std::string_view resource) {
    util::StatusOr<std::shared_ptr<const T>> typed = Decode<T>(info, obj, ns);
    if (!typed.ok()) return typed.status();
    lister.Set(*typed);
    if (!resource.empty()) Notify(resource, scheduler::framework::ActionType::kAdd, {}, *typed);
    return util::Status();
  }

  // An informer event of a resource that is not a pod or node: handled only
  // for the actions some profile registered, as EventHandlers::Register
  // wires the informers, and an update that keeps the resourceVersion
  // dropped as there.
  void Notify(std::string_view resource, scheduler::framework::ActionType action,
              const scheduler::framework::EventObject& old_obj, const scheduler::framework::EventObject& new_obj) {
    auto it = handlers_->UnionedResources().find(std::string(resource));
    if (it == handlers_->UnionedResources().end() || !scheduler::framework::Intersects(it->second, action)) return;
    handlers_->OnResourceEvent(scheduler::framework::ClusterEvent(resource, action), old_obj, new_obj);
  }

  // The claim informer's delivery of a stored version: lister, then
  // handlers.
  void DeliverClaim(const std::shared_ptr<const api::ResourceClaim>& claim) {
    std::shared_ptr<const api::ResourceClaim> old = listers_.resource_claims.Get(claim->metadata.namespace_,
                                                                                claim->metadata.name);
    listers_.resource_claims.Set(claim);
    using scheduler::framework::ActionType;
    if (old == nullptr) {
      Notify(scheduler::framework::resource::kResourceClaim, ActionType::kAdd, {}, claim);
    } else if (old->metadata.resource_version != claim->metadata.resource_version) {
      Notify(scheduler::framework::resource::kResourceClaim, ActionType::kUpdate, old, claim);
    }
  }

  // The pod informer's view of a binding: the lister is updated, then the
  // assigned-pod handler sees an add and the unassigned-pod handler a
  // delete (the filter transitions SharedInformer produces for an update).
  void Confirm(const PodPtr& old_pod, const PodPtr& new_pod) {
    listers_.pods.Set(new_pod);
    handlers_->OnAssignedPodAdd(new_pod);
    handlers_->OnUnscheduledPodDelete(old_pod);
    scheduled_.Add(new_pod->metadata.namespace_, new_pod->metadata.name);
  }

  scheduler::framework::Registry registry_;
  metrics::SchedulerMetrics metrics_;
  scheduler::framework::InMemorySharedListers listers_;
  std::atomic<int64_t> rv_{1000};
  std::unique_ptr<InformerLikeBinder> binder_;
  std::unique_ptr<InformerLikeClaims> claims_;
  std::unique_ptr<InformerLikeWriterClient> writer_client_;
  std::unique_ptr<scheduler::apiwriter::ApiWriter> writer_;
  // Declared before the scheduler, which observes through it.
  std::unique_ptr<scheduler::AttemptRecord> record_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::unique_ptr<scheduler::EventHandlers> handlers_;
  // Set once the handlers exist; the writer client delivers through it.
  scheduler::EventHandlers* handlers_raw_ = nullptr;
  const apiserver::ResourceInfo* pods_info_ = nullptr;
  const apiserver::ResourceInfo* nodes_info_ = nullptr;
  const apiserver::ResourceInfo* ns_info_ = nullptr;
  std::map<std::string, const apiserver::ResourceInfo*, std::less<>> dra_info_;  // by kind
  bool deterministic_uids_ = false;
  bool stopped_ = false;
};

}  // namespace

util::StatusOr<std::unique_ptr<Cluster>> NewInProcessCluster(const ClusterOptions& options) {
  auto c = std::make_unique<InProcessCluster>();
  util::Status s = c->Init(options);
  if (!s.ok()) return s;
  return std::unique_ptr<Cluster>(std::move(c));
}

}  // namespace ksched::bench
