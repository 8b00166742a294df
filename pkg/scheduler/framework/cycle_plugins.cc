#include "pkg/scheduler/framework/cycle_plugins.h"

#include <algorithm>
#include <iterator>

namespace ksched::scheduler::framework {

PreFilterResult PreFilterResult::Merge(const PreFilterResult& other) const {
  if (AllNodes()) return other;
  if (other.AllNodes()) return *this;
  PreFilterResult out;
  out.node_names.emplace();
  std::set_intersection(node_names->begin(), node_names->end(), other.node_names->begin(),
                        other.node_names->end(), std::inserter(*out.node_names, out.node_names->end()));
  return out;
}

void FilterPlugin::FilterNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                               uint64_t* alive, Status* out) {
  FilterEachAlive(nodes, alive, out, [&](const NodeInfo& node) { return Filter(state, pod, node); });
}

Status ScorePlugin::ScoreNodes(CycleState& state, const api::Pod& pod, std::span<const NodeInfo* const> nodes,
                               NodeScore* out) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto [score, s] = Score(state, pod, *nodes[i]);
    if (!s.IsSuccess()) return s;
    out[i].score = score;
  }
  return Status();
}

Status PreBindPlugin::PreBindPreFlight(CycleState&, const api::Pod&, std::string_view) { return Status(); }

NodeToStatus::NodeToStatus() : absent_(Code::kUnschedulableAndUnresolvable) {}

const Status& NodeToStatus::Get(std::string_view node_name) const {
  auto it = statuses_.find(std::string(node_name));
  return it == statuses_.end() ? absent_ : it->second;
}

void NodeToStatus::Set(std::string node_name, Status status) { statuses_[std::move(node_name)] = std::move(status); }

NodeInfoList NodeToStatus::NodesForStatusCode(const NodeInfoLister& lister, Code code) const {
  NodeInfoList out;
  const bool absent_matches = absent_.code() == code;
  if (!absent_matches && statuses_.empty()) return out;
  for (const NodeInfo* ni : lister.List()) {
    auto it = statuses_.find(ni->node_name());
    if (it == statuses_.end() ? absent_matches : it->second.code() == code) out.push_back(ni);
  }
  return out;
}

}  // namespace ksched::scheduler::framework
