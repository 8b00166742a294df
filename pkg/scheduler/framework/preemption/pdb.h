// Which preemption victims would violate a PodDisruptionBudget (kube's
// filterPodsWithPDBViolation).
//
// Walking the pods in order, each PDB of the pod's namespace whose selector
// matches the pod's labels has its status.disruptionsAllowed decremented
// (unless the pod is already in the PDB's status.disruptedPods, i.e. the
// API server has processed its eviction); a pod that takes some matching
// PDB below zero is "violating". A PDB with an unset or empty selector, or
// one that cannot be parsed, matches nothing; a pod without labels matches
// no PDB.
//
// Complexity: O(pods x PDBs) selector matches.
// Thread-safety: pure function.
#pragma once

#include <memory>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/node_info.h"

namespace ksched::scheduler::framework::preemption {

using PDBList = std::vector<std::shared_ptr<const api::PodDisruptionBudget>>;

struct PDBSplit {
  std::vector<PodInfoPtr> violating;
  std::vector<PodInfoPtr> non_violating;
};

// Both lists keep the order of `pods`.
PDBSplit FilterPodsWithPDBViolation(const std::vector<PodInfoPtr>& pods, const PDBList& pdbs);

}  // namespace ksched::scheduler::framework::preemption
