// Simulate: offline what-if scheduling. For a cluster snapshot and a
// KubeSchedulerConfiguration it schedules every pending pod of the
// configuration's profiles with the daemon's own Scheduler — the same
// profiles, plugins, PriorityQueue, Cache and scheduling cycle — fed from
// memory instead of informers, and with RecordedEffects in place of the API
// server. After each cycle the recorded writes are applied to the
// in-memory cluster and fed to the daemon's EventHandlers, as the informers
// would deliver them: a binding makes the pod assigned (later pods see it),
// a victim eviction deletes the pod, a nominatedNodeName patch updates the
// pending pod. Pods in backoff are released by stepping a fake clock one
// flush period (1 s) at a time; the simulation ends when no pod is ready,
// none is backing off and none waits at Permit. Pods left unschedulable
// stay pending: the 5-minute leftover flush is not simulated (nothing
// would change).
//
// Permit waits (Coscheduling's gang members wait for each other): after
// each cycle the binding cycles run until each has ended or waits at
// Permit undecided (Scheduler::SettleBindingCycles); a later cycle may
// allow or reject the waiting pods. With nothing ready and pods still
// waiting, the clock steps on (1 s at a time, flushing the backoff queue
// as the daemon does) until their timeout rejects them. Pods that only
// requeue each other — a gang that cannot fit: a member that fits nowhere
// rejects the waiting ones, whose release requeues it, and so on — would
// retry for ever, as in the daemon: the run stops once no pod has been
// bound or evicted for kRetryHorizon of simulated time, or in 10 cycles
// per pending pod (members that fit activate their siblings past backoff,
// so a gang can also retry without the clock moving), and reports them
// pending with their last failure (SimulationResult::settled false).
//
// Queue order: QueueSort (priority, then the time the pod entered the
// queue); pods enter in creationTimestamp order (then namespace/name), one
// fake microsecond apart, so equal priorities go oldest first.
//
// Modes (SimulationOptions):
//   - tie break random (default): SelectHost picks uniformly among the
//     best nodes, as the daemon does; Filter and Score run in parallel.
//   - seed N: the tie-break draws and DefaultPreemption's candidate offset
//     come from N, and Filter/Score/preemption run on one thread, so the
//     evaluation order (and with it which nodes are found feasible first)
//     is the daemon's round-robin order: same input, seed and build give
//     the same output.
//   - tie break lowest-name: the lowest node name among the best totals;
//     one thread as above; DefaultPreemption's candidate offset is 0.
//   - explain: percentageOfNodesToScore is forced to 100 (globally and in
//     every profile) so Filter evaluates, and Score scores, every node; the
//     placements may then differ from a run without --explain on clusters
//     of 100 nodes or more, where the daemon stops at
//     numFeasibleNodesToFind.
//
// Thread-safety: Simulate is reentrant; it starts the Scheduler's binding
// threads (one per pod waiting at Permit at once, plus one) and joins them
// before returning. Binding cycles released together run concurrently;
// their writes are applied in namespace/name order, so seeded and
// lowest-name runs stay reproducible.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "pkg/config/types.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/simulate/cluster_loader.h"
#include "pkg/simulate/result.h"
#include "pkg/util/status.h"

namespace ksched::simulate {

enum class TieBreak { kRandom, kLowestName };

// How long pods may keep retrying with none bound or evicted before the
// run stops (the daemon's --pod-max-in-unschedulable-pods-duration: after
// it, the daemon would only retry what already failed).
inline constexpr std::chrono::minutes kRetryHorizon{5};

struct SimulationOptions {
  // Defaulted and validated.
  config::KubeSchedulerConfiguration config;
  scheduler::framework::FeatureGates features;
  bool explain = false;
  // Set: reproducible tie-breaks (see above). Must not be 0.
  std::optional<uint64_t> seed;
  TieBreak tie_break = TieBreak::kRandom;
};

util::StatusOr<SimulationResult> Simulate(const ClusterObjects& cluster, const SimulationOptions& options);

}  // namespace ksched::simulate
