// The outcome of a simulation: per pod, where it went or why it did not,
// and with --explain every node's Filter verdict and Score breakdown. Plain
// values; report.h renders them as JSON (the schema in docs/simulate.md)
// or as tables.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksched::simulate {

// One node's Filter verdict for a pod's last attempt.
struct FilterVerdict {
  enum class Kind { kFeasible, kRejected, kNotEvaluated };
  Kind kind = Kind::kNotEvaluated;
  // kRejected: the rejecting plugin ("" when PreFilter's verdict applied
  // to every node without one), the framework code and the reasons.
  std::string plugin;
  std::string code;
  std::vector<std::string> reasons;
};

struct PluginScore {
  int64_t raw = 0;
  int64_t normalized = 0;
  int64_t weight = 0;
  int64_t weighted = 0;
};

struct NodeScoreBreakdown {
  std::vector<std::pair<std::string, PluginScore>> plugins;  // profile order
  int64_t total = 0;
};

// A wait at Permit in the pod's last cycle: gang members (Coscheduling)
// wait there for each other.
struct PermitWait {
  std::string node;                  // the node the pod was assumed on
  std::vector<std::string> plugins;  // the Permit plugins it waited for
  // "allowed" (the pod went on to bind), "rejected" (by a plugin, a
  // deleted sibling or the timeout: `message` is the PodScheduled
  // condition's text), or "waiting" when no outcome followed (the pod was
  // evicted while it waited; a run never ends with a wait open).
  std::string outcome = "waiting";
  std::string message;
};

// A device a claim's request got.
struct AllocatedDevice {
  std::string request;
  std::string device;  // "driver/pool/device"
  // The device's bindingConditions: in a cluster the binding waits until
  // its driver reports them True; the simulation takes them as met.
  std::vector<std::string> binding_conditions;
};

// One ResourceClaim of a placed pod as its binding left it.
// `for_extended_resources` marks the claim DynamicResources created for
// the pod's extended resources (DRAExtendedResource).
struct ClaimAllocation {
  std::string name;
  bool for_extended_resources = false;
  std::vector<AllocatedDevice> devices;
};

// Why a node's devices cannot serve one request of a pending pod's claims:
// the devices of the pools that reach the node, by the first reason each
// cannot serve the request (looked at alone, as the run left the cluster).
struct RequestDevices {
  std::string claim;    // "namespace/name", or "(the pod's extended resources)"
  std::string request;  // "req", or "req/sub" for a firstAvailable subrequest
  int reachable = 0;
  int usable = 0;
  std::map<std::string, int> skipped;  // reason -> devices
};

struct PodExplain {
  std::map<std::string, FilterVerdict> filter;        // every node, by name
  std::map<std::string, NodeScoreBreakdown> scores;   // scored nodes, by name
  std::optional<PermitWait> permit;                   // set when Permit made it wait
  std::vector<ClaimAllocation> claims;                // a placed pod's, in the pod's order
  // A pending pod's: per node where DynamicResources could not allocate
  // its claims, each request of the claims to allocate there, in the
  // pod's order.
  std::map<std::string, std::vector<RequestDevices>> devices;
};

struct Victim {
  std::string namespace_;
  std::string name;
  std::string node;
};

struct PodOutcome {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string scheduler_name;
  int32_t priority = 0;
  std::string node;             // "" while pending
  // status.nominatedNodeName: set by preemption, or (from 1.35) before a
  // PreBind with work or a wait at Permit; cleared by the binding from 1.35.
  std::string nominated_node;
  std::vector<Victim> victims;  // evicted for this pod
  // The message of the last failed attempt (the PodScheduled condition's);
  // nullopt once placed or when never attempted.
  std::optional<std::string> fit_error;
  // Set when the pod, placed earlier in the simulation, was later evicted
  // by a preemptor ("namespace/name"); node is then "".
  std::string preempted_by;
  // A PreEnqueue plugin holds the pod back (scheduling gates): its name.
  std::string gated_by;
  int attempts = 0;
  std::optional<PodExplain> explain;
};

// How full a node is, before the simulation and after it: the requests of
// the pods bound to it (NodeInfo's accounting: PodRequests with the
// scheduler's options) against its allocatable.
struct NodeUsage {
  std::string name;
  int64_t cpu_allocatable_milli = 0;
  int64_t memory_allocatable = 0;  // bytes
  int64_t cpu_before_milli = 0;
  int64_t memory_before = 0;
  int64_t cpu_after_milli = 0;
  int64_t memory_after = 0;
};

struct SimulationResult {
  std::vector<std::string> profiles;
  std::string tie_break;  // "random", "seeded" or "lowest-name"
  std::optional<uint64_t> seed;
  bool explain = false;
  int nodes = 0;
  // false: the run stopped while pods were still retrying among themselves
  // (no pod bound or evicted for kRetryHorizon of simulated time, or in 10
  // cycles per pending pod; a gang that cannot fit retries for ever, its
  // members rejecting each other).
  bool settled = true;
  // Pending pods of our profiles in first-attempt order, then those never
  // attempted (gated).
  std::vector<PodOutcome> pods;
  // Every node, by name.
  std::vector<NodeUsage> node_usage;
};

}  // namespace ksched::simulate
