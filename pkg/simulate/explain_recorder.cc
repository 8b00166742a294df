#include "pkg/simulate/explain_recorder.h"

#include <unordered_set>
#include <utility>

#include "pkg/scheduler/framework/node_info.h"
#include "pkg/scheduler/framework/status.h"

namespace ksched::simulate {

namespace fw = scheduler::framework;

void ExplainRecorder::ObserveFilter(const api::Pod& pod, const fw::NodeInfoList& feasible,
                                    const fw::NodeToStatus& rejected) {
  PodExplain e;
  std::unordered_set<std::string_view> fit;
  for (const fw::NodeInfo* ni : feasible) fit.insert(ni->node_name());
  for (const std::string& name : node_names_) {
    FilterVerdict v;
    if (fit.count(name) != 0) {
      v.kind = FilterVerdict::Kind::kFeasible;
    } else {
      const fw::Status& s = rejected.Get(name);
      // A node without a status of its own, under the absent-nodes
      // default (no reason: not PreFilter's verdict nor a PreFilterResult
      // leaving it out), while another node was feasible, was not
      // evaluated: a feasible nominated node is tried alone.
      const bool unevaluated = rejected.ExplicitStatuses().count(name) == 0 && s.reasons().empty() &&
                               s.plugin().empty() && !feasible.empty();
      if (s.IsSuccess() || unevaluated) {
        v.kind = FilterVerdict::Kind::kNotEvaluated;
      } else {
        v.kind = FilterVerdict::Kind::kRejected;
        v.plugin = s.plugin();
        v.code = fw::CodeName(s.code());
        v.reasons = s.reasons();
      }
    }
    e.filter.emplace(name, std::move(v));
  }
  std::lock_guard<std::mutex> l(mu_);
  by_uid_[pod.metadata.uid] = std::move(e);
}

void ExplainRecorder::ObserveScores(const api::Pod& pod, const ScoreView& view) {
  std::map<std::string, NodeScoreBreakdown> scores;
  for (size_t i = 0; i < view.nodes.size(); ++i) {
    NodeScoreBreakdown b;
    b.total = view.totals[i];
    for (size_t j = 0; j < view.plugins.size(); ++j) {
      PluginScore ps;
      ps.raw = view.Raw(j, i);
      ps.normalized = view.Normalized(j, i);
      ps.weight = view.weights[j];
      ps.weighted = ps.normalized * ps.weight;
      b.plugins.emplace_back(std::string(view.plugins[j]), ps);
    }
    scores.emplace(view.nodes[i]->node_name(), std::move(b));
  }
  std::lock_guard<std::mutex> l(mu_);
  by_uid_[pod.metadata.uid].scores = std::move(scores);
}

void ExplainRecorder::ObservePermitWait(const std::string& uid, const std::string& node,
                                        std::vector<std::string> plugins) {
  PermitWait w;
  w.node = node;
  w.plugins = std::move(plugins);
  std::lock_guard<std::mutex> l(mu_);
  by_uid_[uid].permit = std::move(w);
}

void ExplainRecorder::ObservePermitOutcome(const std::string& uid, const std::string& outcome,
                                           const std::string& message) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end() || !it->second.permit || it->second.permit->outcome != "waiting") return;
  it->second.permit->outcome = outcome;
  it->second.permit->message = message;
}

std::optional<PodExplain> ExplainRecorder::Take(const std::string& uid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return std::nullopt;
  PodExplain out = std::move(it->second);
  by_uid_.erase(it);
  return out;
}

}  // namespace ksched::simulate
