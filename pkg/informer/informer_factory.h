// InformerFactory: one SharedInformer per watched resource type, created on
// first use, started together and stopped together (client-go's
// SharedInformerFactory).
//
//   InformerFactory factory(RestListerWatcherFactory(client), clock);
//   auto& pods = factory.Pods();               // or InformerFor<api::Pod>()
//   pods.AddEventHandler({.on_add = ..., .on_update = ..., .on_delete = ...});
//   factory.Start();
//   factory.WaitForCacheSync(std::chrono::seconds(30));
//   auto pod = pods.GetStore().Get("default/web-1");
//   ...
//   factory.Shutdown();                        // or let the destructor do it
//
// Namespaced types get kNamespaceIndex (indexers.h), which the listers'
// List(namespace) reads; no other index is kept.
//
// The factory owns its informers; references returned by InformerFor stay
// valid until the factory is destroyed. Start() starts every informer
// created so far and not yet started (call it again after creating more).
// Shutdown() stops them all and joins their threads; it is bounded by the
// ListerWatchers honouring their stop tokens (RestClient aborts the HTTP
// call). After Shutdown(), Start() does nothing.
//
// Thread-safety: every method is thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/informer/indexers.h"
#include "pkg/informer/list_watcher.h"
#include "pkg/informer/reflector_metrics.h"
#include "pkg/informer/resource_type.h"
#include "pkg/informer/shared_informer.h"
#include "pkg/util/clock.h"

namespace ksched::informer {

using ListerWatcherFactory = std::function<std::unique_ptr<ListerWatcher>(const ResourceType&)>;

struct InformerFactoryOptions {
  // Applied to every informer; `resource` is set per informer, and a
  // non-zero `seed` is offset per informer so their jitters differ.
  ReflectorOptions reflector;
  // resource -> the apiVersion to watch it at, where the server's minor
  // serves another version than api::TypeInfo's (same fields).
  std::map<std::string, std::string> api_versions;
};

class InformerFactory {
 public:
  // `clock` and `metrics` (NoopReflectorMetrics when null) must outlive the
  // factory.
  InformerFactory(ListerWatcherFactory lister_watchers, const util::Clock& clock,
                  InformerFactoryOptions options = {}, ReflectorMetrics* metrics = nullptr);
  ~InformerFactory();
  InformerFactory(const InformerFactory&) = delete;
  InformerFactory& operator=(const InformerFactory&) = delete;

  // The informer of T (one of KSCHED_INFORMER_FOR_EACH_TYPE), created on
  // first use.
  template <class T>
  SharedInformer<T>& InformerFor();

  SharedInformer<api::Pod>& Pods() { return InformerFor<api::Pod>(); }
  SharedInformer<api::Node>& Nodes() { return InformerFor<api::Node>(); }
  SharedInformer<api::PersistentVolume>& PersistentVolumes() { return InformerFor<api::PersistentVolume>(); }
  SharedInformer<api::PersistentVolumeClaim>& PersistentVolumeClaims() {
    return InformerFor<api::PersistentVolumeClaim>();
  }
  SharedInformer<api::StorageClass>& StorageClasses() { return InformerFor<api::StorageClass>(); }
  SharedInformer<api::CSINode>& CSINodes() { return InformerFor<api::CSINode>(); }
  SharedInformer<api::CSIDriver>& CSIDrivers() { return InformerFor<api::CSIDriver>(); }
  SharedInformer<api::CSIStorageCapacity>& CSIStorageCapacities() { return InformerFor<api::CSIStorageCapacity>(); }
  SharedInformer<api::VolumeAttachment>& VolumeAttachments() { return InformerFor<api::VolumeAttachment>(); }
  SharedInformer<api::PodDisruptionBudget>& PodDisruptionBudgets() {
    return InformerFor<api::PodDisruptionBudget>();
  }
  SharedInformer<api::Namespace>& Namespaces() { return InformerFor<api::Namespace>(); }
  // PodTopologySpread's default selector reads these four.
  SharedInformer<api::Service>& Services() { return InformerFor<api::Service>(); }
  SharedInformer<api::ReplicationController>& ReplicationControllers() {
    return InformerFor<api::ReplicationController>();
  }
  SharedInformer<api::ReplicaSet>& ReplicaSets() { return InformerFor<api::ReplicaSet>(); }
  SharedInformer<api::StatefulSet>& StatefulSets() { return InformerFor<api::StatefulSet>(); }
  // Dynamic Resource Allocation (resource.k8s.io/v1).
  SharedInformer<api::DeviceClass>& DeviceClasses() { return InformerFor<api::DeviceClass>(); }
  SharedInformer<api::ResourceClaim>& ResourceClaims() { return InformerFor<api::ResourceClaim>(); }
  SharedInformer<api::ResourceClaimTemplate>& ResourceClaimTemplates() {
    return InformerFor<api::ResourceClaimTemplate>();
  }
  SharedInformer<api::ResourceSlice>& ResourceSlices() { return InformerFor<api::ResourceSlice>(); }
  SharedInformer<api::DeviceTaintRule>& DeviceTaintRules() { return InformerFor<api::DeviceTaintRule>(); }

  void Start();
  // Waits (on the factory's clock) until every started informer has synced
  // or `timeout` passed; returns resource -> synced.
  std::map<std::string, bool> WaitForCacheSync(util::Duration timeout);
  void Shutdown();

  // Resources with an informer, sorted.
  std::vector<std::string> Resources() const;

 private:
  // Builds the options of the informer for `resource`.
  SharedInformerOptions OptionsFor(const std::string& resource);

  const ListerWatcherFactory lister_watchers_;
  const util::Clock& clock_;
  const InformerFactoryOptions options_;
  ReflectorMetrics* const metrics_;

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<InformerBase>> informers_;  // by resource
  std::set<std::string> started_;
  bool shut_down_ = false;
};

template <class T>
SharedInformer<T>& InformerFactory::InformerFor() {
  ResourceType type = ResourceType::Of<T>();
  if (auto v = options_.api_versions.find(type.resource); v != options_.api_versions.end()) {
    type.api_version = v->second;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = informers_.find(type.resource);
  if (it != informers_.end()) return static_cast<SharedInformer<T>&>(*it->second);
  auto informer =
      std::make_unique<SharedInformer<T>>(lister_watchers_(type), clock_, OptionsFor(type.resource), metrics_);
  if (type.namespaced) (void)informer->AddIndexer(kNamespaceIndex, NamespaceIndexFunc<T>);
  SharedInformer<T>& ref = *informer;
  informers_.emplace(type.resource, std::move(informer));
  return ref;
}

}  // namespace ksched::informer
