// Choosing the node to preempt on among the candidates (kube's
// pickOneNodeForPreemption). Each rule keeps the candidates with the best
// score and the next rule breaks the remaining ties:
//   1. fewest PodDisruptionBudget violations;
//   2. lowest priority of the most important victim;
//   3. smallest sum of victim priorities (each shifted by 2^31 so that
//      negative priorities do not favour more victims);
//   4. fewest victims;
//   5. latest start time among the highest-priority victims;
//   6. the first candidate left (kube: map order; here: candidate order).
//
// Complexity: O(candidates x victims).
// Thread-safety: pure function.
#pragma once

#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/preemption/candidate.h"

namespace ksched::scheduler::framework::preemption {

// Index of the chosen candidate; -1 when `candidates` is empty. Candidates
// without victims are never chosen over ones with victims by rule 2 (kube
// never produces them).
int PickOneNodeForPreemption(const std::vector<Candidate>& candidates, api::Time now);

}  // namespace ksched::scheduler::framework::preemption
