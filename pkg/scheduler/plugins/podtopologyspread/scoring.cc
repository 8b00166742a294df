// PreScore, Score and NormalizeScore.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
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

Status MissingPreScoreState() {
  return Status::Error("error reading \"" + std::string(kPreScoreStateKey) + "\" from cycleState: not found");
}

// A value id that is none of NodeSlots' markers: the node is not in the
// NodeSlots and its value is not interned.
constexpr int32_t kUnindexed = -3;

// Node `ni`'s value id for constraint `c`: from its slot, or (a NodeInfo
// not in the counted list) from its labels, with the value in `*label`.
int32_t ValueId(const PreScoreState& s, const framework::NodeInfo& ni, int32_t slot, size_t c,
                std::string_view* label) {
  if (slot >= 0) return s.slots->value(slot, c);
  const api::StringMap& labels = ni.node()->metadata.labels;
  auto it = labels.find(s.constraints[c].topology_key);
  if (it == labels.end()) return NodeSlots::kNoValue;
  if (!s.per_domain[c]) return NodeSlots::kNotInterned;
  *label = it->second;
  const int32_t id = s.indexes[c]->Find(it->second);
  return id >= 0 ? id : kUnindexed;
}

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
  PreScoreState& s = *state;
  s.namespace_ = pod.metadata.namespace_;
  s.constraints = std::move(constraints).value();
  s.per_domain.resize(n);
  s.indexes.resize(n);
  s.value_counts.resize(n);
  std::vector<bool> counted(n);
  for (size_t c = 0; c < n; ++c) {
    counted[c] = s.constraints[c].topology_key != kLabelHostname;
    s.per_domain[c] = counted[c] ? 1 : 0;
  }

  // Domain counts over all nodes (kube counts only the domains of scored
  // nodes; the others are never read).
  {
    std::lock_guard<std::mutex> l(mu_);
    SpreadCounter& counter = SyncedCounter(pod, s.constraints, counted, require_all,
                                           require_all ? "score/all-keys" : "score/any-keys", all_nodes);
    s.slots = counter.slots();
    for (size_t c = 0; c < n; ++c) {
      if (!counted[c]) continue;
      s.indexes[c] = counter.index(c);
      const std::vector<int32_t>& nodes = counter.domain_nodes(c);
      const std::vector<int64_t>& pods = counter.domain_pods(c);
      s.value_counts[c].resize(nodes.size());
      for (size_t d = 0; d < nodes.size(); ++d) s.value_counts[c][d] = nodes[d] > 0 ? pods[d] : 0;
    }
  }

  // The domains of the scored nodes, which weigh each constraint. A missing
  // key counts as the value "" (only possible when not every key is
  // required).
  std::vector<std::vector<uint8_t>> seen(n);
  std::vector<std::unordered_set<std::string_view>> unindexed(n);  // values outside the index
  std::vector<int32_t> empty_id(n, kUnindexed);
  for (size_t c = 0; c < n; ++c) {
    if (!counted[c]) continue;
    seen[c].resize(s.value_counts[c].size());
    const int32_t id = s.indexes[c]->Find("");
    if (id >= 0) empty_id[c] = id;
  }
  std::vector<int32_t> ids(n);
  std::vector<std::string_view> labels(n);
  int32_t hint = -1;
  for (const framework::NodeInfo* ni : filtered_nodes) {
    const api::Node* node = ni->node();
    if (node == nullptr) continue;
    const int32_t slot = s.slots->FindAfter(ni, hint);
    if (slot >= 0) hint = slot;
    bool has_all_keys = true;
    for (size_t c = 0; c < n; ++c) {
      ids[c] = ValueId(s, *ni, slot, c, &labels[c]);
      has_all_keys = has_all_keys && ids[c] != NodeSlots::kNoValue;
    }
    if (require_all && !has_all_keys) {
      s.ignored_nodes.insert(node->metadata.name);
      if (slot >= 0) {
        if (s.ignored_slots.empty()) s.ignored_slots.resize(s.slots->num_slots());
        s.ignored_slots[slot] = 1;
      }
      continue;
    }
    for (size_t c = 0; c < n; ++c) {
      if (!counted[c]) continue;
      int32_t id = ids[c];
      if (id == NodeSlots::kNoValue) {
        id = empty_id[c];
        labels[c] = std::string_view();
      }
      if (id >= 0) {
        seen[c][id] = 1;
      } else {
        unindexed[c].insert(labels[c]);
      }
    }
  }
  s.scored_domains.resize(n);
  for (size_t c = 0; c < n; ++c) {
    size_t domains = filtered_nodes.size() - s.ignored_nodes.size();
    if (counted[c]) {
      domains = unindexed[c].size();
      for (uint8_t v : seen[c]) domains += v;
    }
    s.scored_domains[c] = domains;
    s.normalizing_weights.push_back(std::log(static_cast<double>(domains + 2)));
  }
  cycle_state.Write(kPreScoreStateKeySlot, std::move(state));
  return Status();
}

std::pair<int64_t, Status> PodTopologySpread::Score(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                                    const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {0, Status::Error("node not found")};
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return {0, MissingPreScoreState()};
  const int32_t slot = s->slots != nullptr ? s->slots->FindOnThisThread(&node_info) : -1;
  if (slot >= 0) {
    if (s->IgnoredSlot(slot)) return {0, Status()};
  } else if (!s->ignored_nodes.empty() && s->ignored_nodes.count(node->metadata.name) > 0) {
    return {0, Status()};
  }
  double score = 0;
  for (size_t c = 0; c < s->constraints.size(); ++c) {
    const Constraint& constraint = s->constraints[c];
    std::string_view label;
    const int32_t id = ValueId(*s, node_info, slot, c, &label);
    if (id == NodeSlots::kNoValue) continue;
    const int64_t count = s->per_domain[c] ? s->CountById(c, id)
                                           : CountMatchingPods(node_info.pods(), constraint, s->namespace_);
    // maxSkew - 1 waters down differences between domains: the larger the
    // tolerated skew, the less a few pods matter.
    score += static_cast<double>(count) * s->normalizing_weights[c] + static_cast<double>(constraint.max_skew - 1);
  }
  return {static_cast<int64_t>(std::round(score)), Status()};
}

Status PodTopologySpread::NormalizeScore(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                         framework::NodeScoreList& scores) {
  auto s = cycle_state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s == nullptr) return MissingPreScoreState();
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  std::vector<uint8_t> ignored(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!s->ignored_nodes.empty() && s->ignored_nodes.count(scores[i].name) > 0) {
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
