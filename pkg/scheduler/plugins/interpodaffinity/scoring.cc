// PreScore, Score and NormalizeScore.

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/interpodaffinity/hit_counter.h"
#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity.h"
#include "pkg/scheduler/plugins/interpodaffinity/signature.h"
#include "pkg/scheduler/plugins/interpodaffinity/state.h"

namespace ksched::scheduler::plugins::interpodaffinity {

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreScoreStateKeySlot(kPreScoreStateKey);

using framework::AffinityTerm;
using framework::Code;
using framework::Status;
using framework::WeightedAffinityTerm;

void AppendIfMatches(std::vector<Hit>& hits, const AffinityTerm& term, int64_t delta, const api::Pod& pod,
                     const api::StringMap& ns_labels, const api::StringMap& node_labels) {
  if (!term.Matches(pod, ns_labels)) return;
  if (const std::string* value = NodeLabel(node_labels, term.topology_key)) {
    hits.push_back(Hit{&term.topology_key, value, 0, delta});
  }
}

// What the pods of one node add to the scores of their topology domains
// (kube's processExistingPod, for every pod of the node).
struct NodeScoring {
  const api::Pod& pod;
  const api::StringMap& ns_labels;
  const std::vector<WeightedAffinityTerm>& affinity;
  const std::vector<WeightedAffinityTerm>& anti_affinity;
  int64_t hard_weight;
  // Every pod, or (when the incoming pod has no preferences) only pods with
  // affinity, which alone can hold terms about it.
  bool all_pods;

  void operator()(const framework::NodeInfo& ni, std::vector<Hit>& out) const {
    const api::Node* node = ni.node();
    if (node == nullptr || node->metadata.labels.empty()) return;
    const api::StringMap& node_labels = node->metadata.labels;
    for (const framework::PodInfoPtr& existing : all_pods ? ni.pods() : ni.pods_with_affinity()) {
      const api::Pod& existing_pod = existing->pod();
      // The incoming pod's preferences about the existing pod.
      for (const WeightedAffinityTerm& t : affinity) {
        AppendIfMatches(out, t.term, t.weight, existing_pod, NoNamespaceLabels(), node_labels);
      }
      for (const WeightedAffinityTerm& t : anti_affinity) {
        AppendIfMatches(out, t.term, -int64_t{t.weight}, existing_pod, NoNamespaceLabels(), node_labels);
      }
      // The existing pod's rules about the incoming pod.
      if (hard_weight > 0) {
        for (const AffinityTerm& t : existing->required_affinity_terms()) {
          AppendIfMatches(out, t, hard_weight, pod, ns_labels, node_labels);
        }
      }
      for (const WeightedAffinityTerm& t : existing->preferred_affinity_terms()) {
        AppendIfMatches(out, t.term, t.weight, pod, ns_labels, node_labels);
      }
      for (const WeightedAffinityTerm& t : existing->preferred_anti_affinity_terms()) {
        AppendIfMatches(out, t.term, -int64_t{t.weight}, pod, ns_labels, node_labels);
      }
    }
  }
};

Status MissingPreScoreState() {
  return Status::Error(std::string("failed to read \"") + std::string(kPreScoreStateKey) +
                       "\" from cycleState: not found");
}

}  // namespace

Status InterPodAffinity::PreScore(framework::CycleState& cycle_state, const api::Pod& pod,
                                  const framework::NodeInfoList& /*nodes*/) {
  const auto& a = pod.spec.affinity;
  const bool has_preferred_affinity =
      a && a->pod_affinity && !a->pod_affinity->preferred_during_scheduling_ignored_during_execution.empty();
  const bool has_preferred_anti_affinity =
      a && a->pod_anti_affinity && !a->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution.empty();
  const bool has_constraints = has_preferred_affinity || has_preferred_anti_affinity;
  // Optionally ignore existing pods' preferences when the incoming pod has
  // none of its own.
  if (ignore_preferred_terms_of_existing_pods_ && !has_constraints) return Status(Code::kSkip);
  // Without preferences of its own, only existing pods with affinity can
  // score; none in the snapshot: nothing can match, so no need to visit
  // every node to find that out.
  if (!has_constraints && handle_.SnapshotSharedLister().NodeInfos().HavePodsWithAffinityList().empty()) {
    return Status(Code::kSkip);
  }

  std::vector<WeightedAffinityTerm> affinity;
  std::vector<WeightedAffinityTerm> anti_affinity;
  if (has_preferred_affinity) {
    auto parsed = framework::ParseWeightedAffinityTerms(
        pod, a->pod_affinity->preferred_during_scheduling_ignored_during_execution);
    if (!parsed.ok()) return Status::Error("failed to parse pod: " + parsed.status().message());
    affinity = std::move(parsed).value();
  }
  if (has_preferred_anti_affinity) {
    auto parsed = framework::ParseWeightedAffinityTerms(
        pod, a->pod_anti_affinity->preferred_during_scheduling_ignored_during_execution);
    if (!parsed.ok()) return Status::Error("failed to parse pod: " + parsed.status().message());
    anti_affinity = std::move(parsed).value();
  }
  for (WeightedAffinityTerm& t : affinity) MergeTermNamespaces(t.term);
  for (WeightedAffinityTerm& t : anti_affinity) MergeTermNamespaces(t.term);
  const api::StringMap ns_labels = NamespaceLabels(pod.metadata.namespace_);
  const NodeScoring scoring{pod, ns_labels, affinity, anti_affinity, hard_pod_affinity_weight_, has_constraints};

  auto state = std::make_shared<PreScoreState>();
  int64_t hits = 0;
  {
    // Every node, so positions stay stable across cycles; without
    // preferences of its own only pods with affinity are visited, as kube
    // visits only nodes that have some.
    std::lock_guard<std::mutex> l(mu_);
    HitCounter& counter = counters_.Get(ScoringSignature(pod, ns_labels, affinity, anti_affinity,
                                                         hard_pod_affinity_weight_, has_constraints),
                                        1);
    counter.Sync(handle_.SnapshotSharedLister().NodeInfos().List(), handle_.Parallelizer(),
                 [&](const framework::NodeInfo& ni, std::vector<Hit>& out) { scoring(ni, out); });
    hits = counter.total_hits();
    state->topology_score = counter.Table(0);
  }
  // Nothing matched anywhere: every node would score the same.
  if (hits == 0) return Status(Code::kSkip);
  cycle_state.Write(kPreScoreStateKeySlot, std::move(state));
  return Status();
}

std::pair<int64_t, Status> InterPodAffinity::Score(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                                   const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {0, Status::Error("node not found")};
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return {0, MissingPreScoreState()};
  return {s->topology_score.SumForNode(node->metadata.labels), Status()};
}

Status InterPodAffinity::NormalizeScore(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                        framework::NodeScoreList& scores) {
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return MissingPreScoreState();
  // Matches that cancelled out leave every raw score 0, already normalized.
  if (s->topology_score.empty()) return Status();
  int64_t min_count = std::numeric_limits<int64_t>::max();
  int64_t max_count = std::numeric_limits<int64_t>::min();
  for (const framework::NodeScore& ns : scores) {
    max_count = std::max(max_count, ns.score);
    min_count = std::min(min_count, ns.score);
  }
  const int64_t diff = max_count - min_count;
  for (framework::NodeScore& ns : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) * (static_cast<double>(ns.score - min_count) / diff);
    }
    ns.score = static_cast<int64_t>(f);
  }
  return Status();
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
