// PreFilter, its AddPod/RemovePod extensions and Filter.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"
#include "pkg/scheduler/plugins/podtopologyspread/state.h"

namespace ksched::scheduler::plugins::podtopologyspread {

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

using framework::Code;
using framework::Status;

Status MissingPreFilterState() {
  return Status::Error("reading \"" + std::string(kPreFilterStateKey) + "\" from cycleState: not found");
}

// A node without one of the constraints' topology keys (shared, see
// framework::Rejection).
Status LabelMissing() {
  static const Status kLabelMissing =
      framework::Rejection(Code::kUnschedulableAndUnresolvable, kErrReasonNodeLabelNotMatch, kName);
  return kLabelMissing;
}

// Applies one pod added to (delta +1) or removed from (-1) `node_info`
// (kube's updateWithPod).
void UpdateWithPod(PreFilterState& s, const api::Pod& changed, const api::Pod& incoming,
                   const framework::NodeInfo& node_info, int64_t delta) {
  const api::Node* node = node_info.node();
  if (node == nullptr || changed.metadata.namespace_ != incoming.metadata.namespace_) return;
  const api::StringMap& labels = node->metadata.labels;
  const std::vector<Constraint>& constraints = *s.constraints;
  if (!NodeHasAllTopologyKeys(labels, constraints)) return;
  const NodeInclusion inclusion(incoming);
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    if (!c.Selects(changed) || !inclusion.Includes(c, *node)) continue;
    s.mutable_domains(i).Add(labels.find(c.topology_key)->second, delta);
  }
}

}  // namespace

std::pair<framework::PreFilterResult, Status> PodTopologySpread::PreFilter(framework::CycleState& cycle_state,
                                                                           const api::Pod& pod,
                                                                           const framework::NodeInfoList& nodes) {
  util::StatusOr<std::vector<Constraint>> constraints = Constraints(pod, kDoNotSchedule);
  if (!constraints.ok()) {
    return {framework::PreFilterResult{},
            Status::Error("get constraints from pod: obtaining pod's hard topology spread constraints: " +
                          constraints.status().message())};
  }
  if (constraints->empty()) return {framework::PreFilterResult{}, Status(Code::kSkip)};

  auto state = std::make_shared<PreFilterState>();
  {
    std::lock_guard<std::mutex> l(mu_);
    SpreadCounter& counter = SyncedCounter(pod, *constraints, std::vector<bool>(constraints->size(), true),
                                           /*require_all_topology_keys=*/true, "filter", nodes);
    for (size_t c = 0; c < constraints->size(); ++c) state->AddDomains(DomainMatches(counter, c));
    state->slots = counter.slots();
  }
  auto self_match = std::make_shared<std::vector<uint8_t>>();
  for (const Constraint& c : *constraints) self_match->push_back(c.Selects(pod) ? 1 : 0);
  state->self_match = std::move(self_match);
  state->constraints = std::make_shared<const std::vector<Constraint>>(std::move(constraints).value());
  cycle_state.Write(kPreFilterStateKeySlot, std::move(state));
  return {framework::PreFilterResult{}, Status()};
}

Status PodTopologySpread::AddPod(framework::CycleState& cycle_state, const api::Pod& pod_to_schedule,
                                 const framework::PodInfoPtr& pod_info_to_add, const framework::NodeInfo& node_info) {
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  UpdateWithPod(*s, pod_info_to_add->pod(), pod_to_schedule, node_info, 1);
  return Status();
}

Status PodTopologySpread::RemovePod(framework::CycleState& cycle_state, const api::Pod& pod_to_schedule,
                                    const framework::PodInfoPtr& pod_info_to_remove,
                                    const framework::NodeInfo& node_info) {
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  UpdateWithPod(*s, pod_info_to_remove->pod(), pod_to_schedule, node_info, -1);
  return Status();
}

Status PodTopologySpread::Filter(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                 const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  const std::vector<Constraint>& constraints = *s->constraints;
  // A node PreFilter counted (the snapshot's own NodeInfo) has its value ids
  // ready; others (clones with nominated pods) are read from their labels.
  const int32_t slot = s->slots != nullptr ? s->slots->FindOnThisThread(&node_info) : -1;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    const DomainMatches& domains = s->domains(i);
    int64_t matches = 0;
    if (slot >= 0) {
      const int32_t id = s->slots->value(slot, i);
      if (id == NodeSlots::kNoValue) return LabelMissing();
      matches = domains.CountById(id);
    } else {
      const api::StringMap& labels = node->metadata.labels;
      auto value = labels.find(c.topology_key);
      if (value == labels.end()) return LabelMissing();
      matches = domains.Count(value->second);
    }
    // Fewer eligible domains than minDomains: the global minimum counts as 0.
    const int64_t min_match = domains.num_domains() < c.min_domains ? 0 : domains.min_match();
    const int64_t skew = matches + (*s->self_match)[i] - min_match;
    if (skew > c.max_skew) {
      static const Status kSkewTooLarge =
          framework::Rejection(Code::kUnschedulable, kErrReasonConstraintsNotMatch, kName);
      return kSkewTooLarge;
    }
  }
  return Status();
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
