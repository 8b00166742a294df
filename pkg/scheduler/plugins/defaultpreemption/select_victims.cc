// The victims on one node (kube's DefaultPreemption.SelectVictimsOnNode).
#include <algorithm>

#include "pkg/log/log.h"
#include "pkg/scheduler/framework/preemption/pod_order.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"

namespace ksched::scheduler::plugins::defaultpreemption {

using framework::Code;
using framework::PodInfoPtr;
using framework::Status;

DefaultPreemption::Victims DefaultPreemption::SelectVictimsOnNode(framework::CycleState& state, const api::Pod& pod,
                                                                  framework::NodeInfo& node_info,
                                                                  const framework::preemption::PDBList& pdbs) {
  Victims out;
  auto remove_pod = [&](const PodInfoPtr& pi) -> Status {
    util::Status s = node_info.RemovePod(pi->pod());
    if (!s.ok()) return Status::Error(s.message());
    return handle_.RunPreFilterExtensionRemovePod(state, pod, pi, node_info);
  };
  auto add_pod = [&](const PodInfoPtr& pi) -> Status {
    node_info.AddPodInfo(pi);
    return handle_.RunPreFilterExtensionAddPod(state, pod, pi, node_info);
  };

  // First remove every pod the preemptor may evict, and see whether it
  // fits without them.
  const int32_t priority = framework::PodPriority(pod);
  std::vector<PodInfoPtr> potential;
  const std::vector<PodInfoPtr> pods = node_info.pods();  // RemovePod reorders the node's list
  for (const PodInfoPtr& pi : pods) {
    if (pi->priority() >= priority) continue;
    potential.push_back(pi);
    if (Status s = remove_pod(pi); !s.IsSuccess()) {
      out.status = Status::Error(s.Message());
      return out;
    }
  }
  if (potential.empty()) {
    out.status = Status(Code::kUnschedulableAndUnresolvable, "No preemption victims found for incoming pod");
    return out;
  }
  // Still no fit: this node is no candidate. (A pod failing because of
  // affinity to one of the victims is not helped either, as in kube.)
  if (Status s = handle_.RunFilterPluginsWithNominatedPods(state, pod, node_info); !s.IsSuccess()) {
    out.status = std::move(s);
    return out;
  }

  // Reprieve as many as possible: PDB-violating victims first, then the
  // others, each from the most important down.
  const api::Time now = handle_.Clock().WallNow();
  auto more_important = [now](const PodInfoPtr& a, const PodInfoPtr& b) {
    return framework::preemption::MoreImportantPod(a->pod(), b->pod(), now);
  };
  std::stable_sort(potential.begin(), potential.end(), more_important);
  framework::preemption::PDBSplit split = framework::preemption::FilterPodsWithPDBViolation(potential, pdbs);
  Status error;
  // Returns whether the pod still fits with `pi` back; if not, `pi` is a
  // victim.
  auto reprieve = [&](const PodInfoPtr& pi) -> bool {
    if (Status s = add_pod(pi); !s.IsSuccess()) {
      error = Status::Error(s.Message());
      return true;
    }
    if (handle_.RunFilterPluginsWithNominatedPods(state, pod, node_info).IsSuccess()) return true;
    if (Status s = remove_pod(pi); !s.IsSuccess()) {
      error = Status::Error(s.Message());
      return true;
    }
    out.pods.push_back(pi->pod_ptr());
    KLOG_V(5, "Pod {}/{} is a potential preemption victim on node {}", pi->pod().metadata.namespace_,
           pi->pod().metadata.name, node_info.node_name());
    return false;
  };
  for (const PodInfoPtr& pi : split.violating) {
    if (!reprieve(pi)) ++out.num_pdb_violations;
    if (!error.IsSuccess()) break;
  }
  for (const PodInfoPtr& pi : split.non_violating) {
    if (!error.IsSuccess()) break;
    reprieve(pi);
  }
  if (!error.IsSuccess()) {
    out.pods.clear();
    out.num_pdb_violations = 0;
    out.status = std::move(error);
    return out;
  }
  // Both groups contributed: restore the overall importance order.
  if (!split.violating.empty() && !split.non_violating.empty()) {
    std::stable_sort(out.pods.begin(), out.pods.end(),
                     [now](const auto& a, const auto& b) { return framework::preemption::MoreImportantPod(*a, *b, now); });
  }
  return out;
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
