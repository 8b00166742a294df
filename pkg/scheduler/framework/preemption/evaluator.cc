#include "pkg/scheduler/framework/preemption/evaluator.h"

#include <atomic>
#include <mutex>
#include <optional>

#include "pkg/api/pod_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/fit_error_message.h"
#include "pkg/scheduler/framework/preemption/select_candidate.h"
#include "pkg/util/parallelizer.h"

namespace ksched::scheduler::framework::preemption {

namespace {

PostFilterResult Nominate(std::string node) {
  PostFilterResult r;
  r.nominating_info = NominatingInfo{NominatingMode::kOverride, std::move(node)};
  return r;
}

}  // namespace

std::pair<PostFilterResult, Status> Evaluator::Preempt(CycleState& state, const api::Pod& in_pod,
                                                       const NodeToStatus& statuses) {
  // 0) The freshest copy of the pod: its nomination may have changed.
  std::shared_ptr<const api::Pod> pod_ptr = handle_.Listers().Pods().Get(in_pod.metadata.namespace_,
                                                                         in_pod.metadata.name);
  if (pod_ptr == nullptr) {
    return {PostFilterResult{}, Status::Error("pod \"" + api::PodKey(in_pod) + "\" not found")};
  }
  const api::Pod& pod = *pod_ptr;

  PruneInFlight();

  // 1) Eligibility.
  const Status& nominated_status = statuses.Get(pod.status.nominated_node_name);
  if (auto [ok, msg] = iface_.PodEligibleToPreemptOthers(pod, nominated_status); !ok) {
    KLOG_V(5, "Pod {} is not eligible for preemption: {}", api::PodKey(pod), msg);
    return {PostFilterResult{}, Status(Code::kUnschedulable, msg)};
  }

  // 2) Candidates.
  const NodeInfoLister& node_infos = handle_.SnapshotSharedLister().NodeInfos();
  const NodeInfoList& all_nodes = node_infos.List();
  if (all_nodes.empty()) return {PostFilterResult{}, Status::Error("no nodes available")};
  NodeInfoList potential = statuses.NodesForStatusCode(node_infos, Code::kUnschedulable);
  DryRun dry;
  if (potential.empty()) {
    KLOG_V(3, "Preemption will not help schedule pod {} on any node", api::PodKey(pod));
    if (PreemptionWriter* w = handle_.Preemption(); w != nullptr && !pod.status.nominated_node_name.empty()) {
      w->ClearNominatedNodeName(pod);
    }
  } else {
    PDBList pdbs = handle_.Listers().PodDisruptionBudgets().List();
    auto [offset, num_candidates] = iface_.GetOffsetAndNumCandidates(static_cast<int>(potential.size()));
    dry = DryRunPreemption(state, pod, potential, pdbs, offset, num_candidates);
    if (!dry.errors.empty() && dry.candidates.empty()) {
      std::string msg = dry.errors[0];
      for (size_t i = 1; i < dry.errors.size(); ++i) msg += ", " + dry.errors[i];
      return {PostFilterResult{}, Status::Error(msg)};
    }
  }

  // 3) Nothing to preempt: say why, per node, and drop any nomination.
  if (dry.candidates.empty()) {
    dry.statuses.SetAbsentNodesStatus(
        Status(Code::kUnschedulableAndUnresolvable, "Preemption is not helpful for scheduling"));
    return {Nominate(""), Status(Code::kUnschedulable, FitErrorMessage(static_cast<int>(all_nodes.size()),
                                                                        dry.statuses, "", ""))};
  }

  // 4) The best candidate.
  const Candidate* best = SelectCandidate(dry.candidates);
  if (best == nullptr || best->name.empty()) {
    return {PostFilterResult{}, Status(Code::kUnschedulable, "no candidate node for preemption")};
  }

  // 5) Evict its victims and make room for the pod there.
  if (handle_.Features().scheduler_async_preemption) {
    PrepareCandidateAsync(*best, pod_ptr);
  } else {
    PrepareCandidate(*best, pod);
  }
  // kube 1.37 says where the pod is going in the FailedScheduling message.
  Status placed;
  if (handle_.Features().preemption_placement_message) {
    placed = Status(Code::kSuccess, "found a potential placement for pod on node " + best->name + ", preempting " +
                                        std::to_string(best->victims.size()) + " victims");
  }
  return {Nominate(best->name), std::move(placed)};
}

Evaluator::DryRun Evaluator::DryRunPreemption(CycleState& state, const api::Pod& pod,
                                              const NodeInfoList& potential_nodes, const PDBList& pdbs, int offset,
                                              int num_candidates) {
  const int n = static_cast<int>(potential_nodes.size());
  KLOG_V(5, "Dry run the preemption: {} potential nodes, {} PDBs, offset {}, {} candidates wanted", n, pdbs.size(),
         offset, num_candidates);
  struct Outcome {
    std::optional<Candidate> candidate;
    Status status;
    bool done = false;
  };
  std::vector<Outcome> outcomes(static_cast<size_t>(n));
  std::atomic<int> non_violating{0};
  std::atomic<int> violating{0};
  util::CancelFlag cancel;
  auto check_node = [&](int i) {
    const NodeInfo& source = *potential_nodes[static_cast<size_t>((offset + i) % n)];
    NodeInfo node = source.Clone();
    std::unique_ptr<CycleState> state_copy = state.Clone();
    Interface::Victims v = iface_.SelectVictimsOnNode(*state_copy, pod, node, pdbs);
    Outcome& out = outcomes[static_cast<size_t>(i)];
    out.done = true;
    if (v.status.IsSuccess() && !v.pods.empty()) {
      const bool clean = v.num_pdb_violations == 0;
      out.candidate = Candidate{source.node_name(), std::move(v.pods), v.num_pdb_violations};
      const int nv = clean ? non_violating.fetch_add(1) + 1 : non_violating.load();
      const int vv = clean ? violating.load() : violating.fetch_add(1) + 1;
      if (nv > 0 && nv + vv >= num_candidates) cancel.Cancel();
      return;
    }
    if (v.status.IsSuccess()) {
      v.status = Status::Error("expected at least one victim pod on node \"" + source.node_name() + "\"");
    }
    out.status = std::move(v.status);
  };
  handle_.Parallelizer().ParallelFor(n, check_node, &cancel);

  DryRun result;
  std::vector<Candidate> violating_list;
  const size_t cap = static_cast<size_t>(std::max(0, num_candidates));
  for (int i = 0; i < n; ++i) {
    Outcome& out = outcomes[static_cast<size_t>(i)];
    if (!out.done) continue;
    if (out.candidate) {
      std::vector<Candidate>& list = out.candidate->num_pdb_violations == 0 ? result.candidates : violating_list;
      if (list.size() < cap) list.push_back(std::move(*out.candidate));
      continue;
    }
    const std::string& name = potential_nodes[static_cast<size_t>((offset + i) % n)]->node_name();
    if (out.status.code() == Code::kError) result.errors.push_back(out.status.Message());
    result.statuses.Set(name, std::move(out.status));
  }
  for (Candidate& c : violating_list) result.candidates.push_back(std::move(c));
  return result;
}

const Candidate* Evaluator::SelectCandidate(const std::vector<Candidate>& candidates) const {
  const int i = PickOneNodeForPreemption(candidates, handle_.Clock().WallNow());
  return i < 0 ? nullptr : &candidates[static_cast<size_t>(i)];
}

bool Evaluator::StopVictimInMemory(const api::Pod& victim, const api::Pod& preemptor, const std::string& node) {
  // A victim held at Permit or in PreBind is not bound yet: stopping it
  // frees the node without an API call.
  PreemptionWriter* writer = handle_.Preemption();
  if (std::shared_ptr<WaitingPod> wp = handle_.GetWaitingPod(victim.metadata.uid)) {
    const bool to_backoff = handle_.Features().preempted_waiting_pod_backoff;
    if (to_backoff) {
      if (!wp->Preempt(plugin_name_, "preempted")) return false;
    } else {
      wp->Reject(plugin_name_, "preempted");
    }
    KLOG_V(2, "Preemptor pod {} stopped a waiting pod {} on node {}", api::PodKey(preemptor), api::PodKey(victim),
           node);
    if (writer != nullptr) writer->RecordPreempted(victim, preemptor, node, to_backoff);
    return true;
  }
  // Cancelled, its binding cycle fails and requeues it; once past PreBind
  // it must be evicted.
  std::shared_ptr<PodInPreBind> in_pre_bind = handle_.GetPodInPreBind(victim.metadata.uid);
  if (in_pre_bind == nullptr || !in_pre_bind->CancelPod("preempted by " + plugin_name_)) return false;
  KLOG_V(2, "Preemptor pod {} rejected a pod in preBind {} on node {}", api::PodKey(preemptor), api::PodKey(victim),
         node);
  if (writer != nullptr) writer->RecordPreempted(victim, preemptor, node, /*in_memory=*/true);
  return true;
}

void Evaluator::PrepareCandidate(const Candidate& c, const api::Pod& pod) {
  PreemptionWriter* writer = handle_.Preemption();
  for (const auto& victim : c.victims) {
    if (StopVictimInMemory(*victim, pod, c.name) || writer == nullptr) continue;
    writer->DeleteVictim(*victim, pod, {});
    KLOG_V(2, "Preemptor pod {} preempted victim pod {} on node {}", api::PodKey(pod), api::PodKey(*victim), c.name);
    writer->RecordPreempted(*victim, pod, c.name, false);
  }
  {
    InFlight f{c.name, {}};
    for (const auto& victim : c.victims) f.victim_uids.push_back(victim->metadata.uid);
    std::lock_guard<std::mutex> l(mu_);
    in_flight_[pod.metadata.uid] = std::move(f);
  }
  if (writer == nullptr) return;
  writer->ObservePreemptionVictims(static_cast<int>(c.victims.size()));
  // Lower-priority pods nominated to this node may no longer fit there:
  // clearing their nomination sends them looking elsewhere.
  const int32_t priority = PodPriority(pod);
  for (const PodInfoPtr& pi : handle_.NominatedPodsForNode(c.name)) {
    if (pi->priority() < priority && !pi->pod().status.nominated_node_name.empty()) {
      writer->ClearNominatedNodeName(pi->pod());
    }
  }
}

bool Evaluator::VictimsPresent(const InFlight& f) const {
  util::StatusOr<const NodeInfo*> ni = handle_.SnapshotSharedLister().NodeInfos().Get(f.node);
  if (!ni.ok()) return false;
  for (const PodInfoPtr& p : (*ni)->pods()) {
    for (const std::string& uid : f.victim_uids) {
      if (p->pod().metadata.uid == uid) return true;
    }
  }
  return false;
}

void Evaluator::PruneInFlight() {
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(in_flight_, [&](const auto& entry) { return !VictimsPresent(entry.second); });
}

bool Evaluator::PreemptionInProgress(const api::Pod& pod) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = in_flight_.find(pod.metadata.uid);
  return it != in_flight_.end() && VictimsPresent(it->second);
}

}  // namespace ksched::scheduler::framework::preemption
