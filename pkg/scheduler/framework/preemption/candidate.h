// Candidate: a node where preemption would let the pod fit, with the pods
// that must go (kube's preemption.Candidate / extender Victims).
//
// Thread-safety: a value type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::scheduler::framework::preemption {

struct Candidate {
  std::string name;  // the node
  // Victims ordered by importance, most important first (MoreImportantPod).
  std::vector<std::shared_ptr<const api::Pod>> victims;
  // How many victims' eviction violates a PodDisruptionBudget.
  int num_pdb_violations = 0;
};

}  // namespace ksched::scheduler::framework::preemption
