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

struct PodExplain {
  std::map<std::string, FilterVerdict> filter;        // every node, by name
  std::map<std::string, NodeScoreBreakdown> scores;   // scored nodes, by name
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
  std::string nominated_node;   // set by preemption; "" when none
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

struct SimulationResult {
  std::vector<std::string> profiles;
  std::string tie_break;  // "random", "seeded" or "lowest-name"
  std::optional<uint64_t> seed;
  bool explain = false;
  int nodes = 0;
  // Pending pods of our profiles in first-attempt order, then those never
  // attempted (gated).
  std::vector<PodOutcome> pods;
};

}  // namespace ksched::simulate
