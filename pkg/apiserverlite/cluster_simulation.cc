#include "pkg/apiserverlite/cluster_simulation.h"

#include <cstdlib>

#include "pkg/apiserverlite/resources.h"

namespace ksched::apiserver {

namespace {

ObjectStore& StoreOf(const ApiHandler& handler, const char* storage_key) {
  ObjectStore* store = handler.store(storage_key);
  // Every store named here is part of the ResourceTable the handler serves.
  if (store == nullptr) std::abort();
  return *store;
}

const ResourceInfo& PersistentVolumes() {
  return *ResourceTable::Default().Find("", "v1", "persistentvolumes");
}

const ResourceInfo& ResourceClaims() {
  return *ResourceTable::Default().Find("resource.k8s.io", "v1", "resourceclaims");
}

}  // namespace

ClusterSimulation::ClusterSimulation(ApiHandler& handler, util::Clock& clock, util::Duration delay)
    : timers_(clock),
      kubelet_(StoreOf(handler, "pods"), StoreOf(handler, "nodes"), timers_, delay),
      pv_controller_(StoreOf(handler, "persistentvolumes"), StoreOf(handler, "persistentvolumeclaims"),
                     StoreOf(handler, "storage.k8s.io/storageclasses"), StoreOf(handler, "nodes"),
                     PersistentVolumes(), timers_, delay),
      resource_claim_controller_(StoreOf(handler, "pods"), StoreOf(handler, "resource.k8s.io/resourceclaims"),
                                 StoreOf(handler, "resource.k8s.io/resourceclaimtemplates"), ResourceClaims(),
                                 timers_, delay) {
  kubelet_.Attach();
  pv_controller_.Attach();
  resource_claim_controller_.Attach();
}

ClusterSimulation::~ClusterSimulation() {
  kubelet_.Detach();
  pv_controller_.Detach();
  resource_claim_controller_.Detach();
  timers_.Stop();
}

}  // namespace ksched::apiserver
