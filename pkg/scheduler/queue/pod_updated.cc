#include "pkg/scheduler/queue/pod_updated.h"

#include "pkg/api/codec.h"

namespace ksched::scheduler::queue {
namespace {

nlohmann::json Stripped(const api::Pod& pod) {
  api::Pod p = pod;
  p.metadata.resource_version.clear();
  p.metadata.generation = 0;
  p.metadata.finalizers.clear();
  // Status changes (conditions, nominatedNodeName, ...) never make a pod
  // schedulable; resourceClaimStatuses would, but the model does not keep it.
  p.status = api::PodStatus();
  return api::ToJson(p);
}

}  // namespace

bool IsPodUpdated(const api::Pod& old_pod, const api::Pod& new_pod) { return Stripped(old_pod) != Stripped(new_pod); }

}  // namespace ksched::scheduler::queue
