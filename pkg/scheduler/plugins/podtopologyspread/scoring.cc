// PreScore, Score and NormalizeScore.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/state.h"

namespace ksched::scheduler::plugins::podtopologyspread {

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreScoreStateKeySlot(kPreScoreStateKey);

using framework::Code;
using framework::Status;

Status MissingState() {
  return Status::Error("error reading \"" + std::string(kPreScoreStateKey) + "\" from cycleState: not found");
}

std::string_view EmptyValue() { return std::string_view(); }

}  // namespace

Status PodTopologySpread::PreScore(framework::CycleState& cycle_state, const api::Pod& pod,
                                   const framework::NodeInfoList& filtered_nodes) {
  const framework::NodeInfoList& all_nodes = handle_.SnapshotSharedLister().NodeInfos().List();
  if (all_nodes.empty()) return Status(Code::kSkip);
  util::StatusOr<std::vector<Constraint>> constraints = Constraints(pod, kScheduleAnyway);
  if (!constraints.ok()) {
    return Status::Error("calculating preScoreState: obtaining pod's soft topology spread constraints: " +
                         constraints.status().message());
  }
  if (constraints->empty()) return Status(Code::kSkip);

  // Only the pod's own constraints and List defaults require every topology
  // key: with the System defaults, nodes without a zone label still spread
  // by hostname.
  const bool require_all = !pod.spec.topology_spread_constraints.empty() || !system_defaulted_;
  const size_t n = constraints->size();
  auto state = std::make_shared<PreScoreState>();
  state->namespace_ = pod.metadata.namespace_;
  state->value_counts.resize(n);
  std::vector<bool> counted(n);
  for (size_t c = 0; c < n; ++c) counted[c] = (*constraints)[c].topology_key != kLabelHostname;

  // The domains of the scored nodes; counts come from all nodes below.
  for (const framework::NodeInfo* ni : filtered_nodes) {
    const api::Node* node = ni->node();
    if (node == nullptr) continue;
    const api::StringMap& labels = node->metadata.labels;
    if (require_all && !NodeHasAllTopologyKeys(labels, *constraints)) {
      state->ignored_nodes.insert(node->metadata.name);
      continue;
    }
    for (size_t c = 0; c < n; ++c) {
      if (!counted[c]) continue;
      auto it = labels.find((*constraints)[c].topology_key);
      state->value_counts[c].try_emplace(it == labels.end() ? EmptyValue() : std::string_view(it->second), 0);
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const size_t domains =
        counted[c] ? state->value_counts[c].size() : filtered_nodes.size() - state->ignored_nodes.size();
    state->normalizing_weights.push_back(std::log(static_cast<double>(domains + 2)));
  }

  {
    std::lock_guard<std::mutex> l(mu_);
    SpreadCounter& counter = SyncedCounter(pod, *constraints, counted, require_all,
                                           require_all ? "score/all-keys" : "score/any-keys", all_nodes);
    for (size_t c = 0; c < n; ++c) {
      if (!counted[c]) continue;
      std::shared_ptr<const ValueIndex> index = counter.index(c);
      for (auto& [value, count] : state->value_counts[c]) {
        const int32_t id = index->Find(value);
        if (id >= 0 && counter.domain_nodes(c)[id] > 0) count = counter.domain_pods(c)[id];
      }
    }
  }
  state->constraints = std::move(constraints).value();
  cycle_state.Write(kPreScoreStateKeySlot, std::move(state));
  return Status();
}

std::pair<int64_t, Status> PodTopologySpread::Score(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                                    const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {0, Status::Error("node not found")};
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return {0, MissingState()};
  if (s->ignored_nodes.count(node->metadata.name) > 0) return {0, Status()};
  const api::StringMap& labels = node->metadata.labels;
  double score = 0;
  for (size_t c = 0; c < s->constraints.size(); ++c) {
    const Constraint& constraint = s->constraints[c];
    auto value = labels.find(constraint.topology_key);
    if (value == labels.end()) continue;
    int64_t count = 0;
    if (constraint.topology_key == kLabelHostname) {
      count = CountMatchingPods(node_info.pods(), constraint, s->namespace_);
    } else {
      auto it = s->value_counts[c].find(value->second);
      if (it != s->value_counts[c].end()) count = it->second;
    }
    // maxSkew - 1 waters down differences between domains: the larger the
    // tolerated skew, the less a few pods matter.
    score += static_cast<double>(count) * s->normalizing_weights[c] + static_cast<double>(constraint.max_skew - 1);
  }
  return {static_cast<int64_t>(std::round(score)), Status()};
}

Status PodTopologySpread::NormalizeScore(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                         framework::NodeScoreList& scores) {
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return MissingState();
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  std::vector<uint8_t> ignored(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    if (s->ignored_nodes.count(scores[i].name) > 0) {
      ignored[i] = 1;
      continue;
    }
    min_score = std::min(min_score, scores[i].score);
    max_score = std::max(max_score, scores[i].score);
  }
  for (size_t i = 0; i < scores.size(); ++i) {
    if (ignored[i]) {
      scores[i].score = 0;
    } else if (max_score == 0) {
      scores[i].score = framework::kMaxNodeScore;
    } else {
      // Fewer matching pods, higher score.
      scores[i].score = framework::kMaxNodeScore * (max_score + min_score - scores[i].score) / max_score;
    }
  }
  return Status();
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
