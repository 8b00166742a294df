// The scheduling and binding cycles (kube-scheduler's schedule_one.go).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <span>
#include <utility>

#include <spdlog/spdlog.h>

#include "pkg/api/pod_helpers.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/apiwriter/pod_status_patch.h"
#include "pkg/scheduler/apiwriter/scheduler_events.h"
#include "pkg/scheduler/node_selection.h"
#include "pkg/scheduler/scheduler.h"

namespace ksched::scheduler {

namespace rt = framework::runtime;
using framework::Code;
using framework::Status;

namespace {

// kube samples plugin execution durations in 10% of the cycles.
constexpr int kPluginMetricsSamplePercent = 10;

framework::NominatingInfo ClearNominatedNode() { return {framework::NominatingMode::kOverride, ""}; }

// klog.KObj(pod): the "pod" value of kube-scheduler's structured log lines.
log::ObjectRef PodRef(const api::Pod& pod) { return log::ObjectRef{pod.metadata.namespace_, pod.metadata.name}; }

// "[A B]", Go's %v of a string slice.
std::string GoList(const framework::PluginSet& set) {
  std::string out = "[";
  bool first = true;
  for (const std::string& n : set) {
    if (!first) out += " ";
    out += n;
    first = false;
  }
  return out + "]";
}

// A FitError for a rejection on the one node the pod was assumed on
// (Reserve, Permit, WaitOnPermit).
FitError SingleNodeFitError(const std::string& node, const Status& status) {
  FitError fe;
  fe.num_all_nodes = 1;
  fe.diagnosis.node_to_status.Set(node, status);
  fe.diagnosis.AddPluginStatus(status);
  return fe;
}

// A binding cycle's entry in PodsInPreBind: while listed, the pod's PreBind
// plugins wait under the entry's cancellation and preemption may cancel
// them. Leave() ends the listing once (a later binding cycle may list the
// pod again); the destructor leaves if nothing did before.
class PreBindListing {
 public:
  PreBindListing(framework::PodsInPreBind& pods, framework::CycleState& state, std::string_view uid)
      : pods_(pods), state_(state), uid_(uid) {}
  PreBindListing(const PreBindListing&) = delete;
  PreBindListing& operator=(const PreBindListing&) = delete;
  ~PreBindListing() { Leave(); }

  void Enter() {
    entry_ = pods_.Add(uid_);
    state_.SetPreBindCancellation(&entry_->cancellation());
  }
  void Leave() {
    if (entry_ == nullptr) return;
    state_.SetPreBindCancellation(nullptr);
    pods_.Remove(uid_);
    entry_.reset();
  }
  // nullptr when not listed.
  framework::PodInPreBind* entry() const { return entry_.get(); }

 private:
  framework::PodsInPreBind& pods_;
  framework::CycleState& state_;
  const std::string uid_;
  std::shared_ptr<framework::PodInPreBind> entry_;
};

}  // namespace

// ---------------------------------------------------------------- ScheduleOne

void Scheduler::ScheduleOne() {
  framework::QueuedPodInfoPtr pinfo = queue_->Pop();
  if (pinfo == nullptr) return;
  const api::Pod& pod = pinfo->pod();
  if (stopping_.load()) {
    // Shutting down: the pod is not attempted; it is still in the API
    // server and the next leader schedules it.
    queue_->Done(pod.metadata.uid);
    return;
  }
  KLOG_V(4, "About to try and schedule pod {}", api::PodKey(pod));
  rt::Framework* fwk = FrameworkForPod(pod);
  if (fwk == nullptr) {
    // The handlers only queue pods of our profiles, so this is a bug.
    spdlog::error("profile not found for scheduler name \"{}\" of pod {}", pod.spec.scheduler_name, api::PodKey(pod));
    queue_->Done(pod.metadata.uid);
    return;
  }
  if (SkipPodSchedule(*fwk, pod)) {
    queue_->Done(pod.metadata.uid);
    return;
  }
  KLOG_INFOS(3, "Attempting to schedule pod", {"pod", PodRef(pod)});

  const util::TimePoint start = clock_.Now();
  auto state = std::make_shared<framework::CycleState>();
  state->SetRecordPluginMetrics(std::uniform_int_distribution<int>(0, 99)(rng_) < kPluginMetricsSamplePercent);
  auto pods_to_activate = std::make_shared<framework::PodsToActivate>();
  state->Write(framework::PodsToActivateKey(), pods_to_activate);

  ScheduleResult result;
  Failure failure;
  framework::QueuedPodInfoPtr failure_info;
  framework::QueuedPodInfoPtr assumed =
      SchedulingCycle(*state, *fwk, pinfo, *pods_to_activate, &result, &failure, &failure_info);
  if (options_.observer != nullptr) ObserveOutcome(*fwk, pod, assumed != nullptr, result, failure);
  if (assumed == nullptr) {
    FailureHandler(*fwk, failure_info, failure, start);
    return;
  }
  // Up to a backlog of bindings wait for a thread: they should not hold
  // what only Filter and Score read (InterPodAffinity's counts, say).
  state->ReleaseSchedulingCycleOnly();
  // A pod parked at Permit waits for others (a gang): it must not hold
  // back the scheduling of those (Loop's backlog limit).
  const bool in_backlog = fwk->GetWaitingPod(pod.metadata.uid) == nullptr;
  bool submitted = binding_pool_->Submit([this, state, fwk, result, assumed, start, pods_to_activate] {
    bool settled = false;
    std::string what;
    try {
      BindingCycle(state, *fwk, result, assumed, start, pods_to_activate, settled);
      return;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "a non-exception was thrown";
    }
    // A bug in a plugin or client: the cycle failed. Left alone, the pod
    // would stay assumed on its node for ever.
    spdlog::error("Binding cycle of pod {} on node {} threw: {}", api::PodKey(assumed->pod()), result.suggested_host,
                  what);
    if (settled) return;  // already bound, or its failure already handled
    try {
      HandleBindingCycleError(*state, *fwk, assumed, start, result,
                              Failure{Status::Error("binding cycle failed: " + what), std::nullopt, {}});
    } catch (const std::exception& e) {
      spdlog::error("Handling the failed binding cycle of pod {} threw too: {}", api::PodKey(assumed->pod()), e.what());
    }
  }, in_backlog);
  if (!submitted) {
    // Shutting down: undo the assumption so nothing holds the node.
    HandleBindingCycleError(*state, *fwk, assumed, start, result,
                            Failure{Status::Error("scheduler is shutting down"), std::nullopt, ClearNominatedNode()});
  }
}

void Scheduler::ObserveOutcome(rt::Framework& fwk, const api::Pod& pod, bool scheduled, const ScheduleResult& result,
                               const Failure& failure) {
  framework::CycleObserver::Outcome o;
  o.cycle = queue_->SchedulingCycle();
  o.profile = fwk.ProfileName();
  o.scheduled = scheduled;
  std::string message;
  if (scheduled) {
    o.node = result.suggested_host;
    o.evaluated_nodes = result.evaluated_nodes;
    o.feasible_nodes = result.feasible_nodes;
    o.num_all_nodes = static_cast<int>(snapshot_.NumNodes());
  } else {
    message = failure.status.Message();
    o.message = message;
    o.unschedulable = failure.status.IsRejected();
    if (failure.fit_error) o.num_all_nodes = failure.fit_error->num_all_nodes;
    if (failure.nominating_info && failure.nominating_info->mode == framework::NominatingMode::kOverride) {
      o.nominated_node = failure.nominating_info->nominated_node_name;
    }
  }
  options_.observer->ObserveOutcome(pod, o);
}

bool Scheduler::SkipPodSchedule(rt::Framework& fwk, const api::Pod& pod) {
  if (pod.metadata.deletion_timestamp.has_value()) {
    RecordEvent(apiwriter::FailedSchedulingEvent(pod, fwk.ProfileName(),
                                                 "skip schedule deleting pod: " + pod.metadata.namespace_ + "/" + pod.metadata.name));
    KLOG_V(3, "Skip schedule deleting pod {}", api::PodKey(pod));
    return true;
  }
  // An update received while the pod was being scheduled may have queued it
  // again after it was assumed.
  return cache_.IsAssumedPod(pod);
}

// ---------------------------------------------------------------- scheduling cycle

framework::QueuedPodInfoPtr Scheduler::SchedulingCycle(framework::CycleState& state, rt::Framework& fwk,
                                                       const framework::QueuedPodInfoPtr& pinfo,
                                                       framework::PodsToActivate& pods_to_activate,
                                                       ScheduleResult* result, Failure* failure,
                                                       framework::QueuedPodInfoPtr* failure_info) {
  const api::Pod& pod = pinfo->pod();
  *failure_info = pinfo;
  const util::TimePoint start = clock_.Now();
  if (!SchedulePod(fwk, state, pod, result, failure)) {
    if (options_.metrics != nullptr) options_.metrics->SchedulingAlgorithmDuration().Observe(SecondsSince(start));
    if (!failure->fit_error) return nullptr;  // ErrNoNodesAvailable or an error: nominating info already set
    if (!fwk.HasPostFilterPlugins()) {
      KLOG_V(3, "No PostFilter plugins are registered, so no preemption will be performed");
      failure->status = Status(Code::kUnschedulable, failure->fit_error->Message());
      failure->nominating_info = ClearNominatedNode();
      return nullptr;
    }
    // PostFilter (preemption) may make room for a later cycle.
    auto [pf_result, pf_status] = fwk.RunPostFilterPlugins(state, pod, failure->fit_error->diagnosis.node_to_status);
    failure->fit_error->diagnosis.post_filter_msg = pf_status.Message();
    if (pf_status.code() == Code::kError) {
      spdlog::error("Status after running PostFilter plugins for pod {}: {}", api::PodKey(pod), pf_status.Message());
    } else {
      KLOG_V(5, "Status after running PostFilter plugins for pod {}: {}", api::PodKey(pod), pf_status.Message());
    }
    failure->status = Status(Code::kUnschedulable, failure->fit_error->Message());
    failure->nominating_info = pf_result.nominating_info;
    return nullptr;
  }
  if (options_.metrics != nullptr) options_.metrics->SchedulingAlgorithmDuration().Observe(SecondsSince(start));

  // Assume: the next cycles see the pod on its node while it is bound.
  auto assumed_pod = std::make_shared<api::Pod>(pod);
  assumed_pod->spec.node_name = result->suggested_host;
  auto assumed = std::make_shared<framework::QueuedPodInfo>(*pinfo);
  assumed->pod_info.UpdateAssumed(assumed_pod);
  *failure_info = assumed;
  std::shared_ptr<const api::Pod> assumed_const = assumed_pod;
  util::Status as = cache_.AssumePod(std::make_shared<const framework::PodInfo>(assumed->pod_info));
  if (!as.ok()) {
    spdlog::error("Scheduler cache AssumePod failed for pod {}: {}", api::PodKey(pod), as.message());
    *failure = Failure{Status::FromError(as), std::nullopt, ClearNominatedNode()};
    return nullptr;
  }
  queue_->DeleteNominatedPodIfExists(*assumed_const);

  const std::string& host = result->suggested_host;
  Status reserve = fwk.RunReservePluginsReserve(state, *assumed_const, host);
  if (!reserve.IsSuccess()) {
    fwk.RunReservePluginsUnreserve(state, *assumed_const, host);
    util::Status fs = cache_.ForgetPod(*assumed_const);
    if (!fs.ok()) spdlog::error("Scheduler cache ForgetPod failed for pod {}: {}", api::PodKey(pod), fs.message());
    if (reserve.IsRejected()) {
      FitError fe = SingleNodeFitError(host, reserve);
      *failure = Failure{Status(reserve.code(), fe.Message()), std::move(fe), ClearNominatedNode()};
    } else {
      *failure = Failure{reserve, std::nullopt, ClearNominatedNode()};
    }
    return nullptr;
  }

  Status permit = fwk.RunPermitPlugins(state, assumed_const, host);
  if (!permit.IsWait() && !permit.IsSuccess()) {
    fwk.RunReservePluginsUnreserve(state, *assumed_const, host);
    util::Status fs = cache_.ForgetPod(*assumed_const);
    if (!fs.ok()) spdlog::error("Scheduler cache ForgetPod failed for pod {}: {}", api::PodKey(pod), fs.message());
    if (permit.IsRejected()) {
      FitError fe = SingleNodeFitError(host, permit);
      *failure = Failure{Status(permit.code(), fe.Message()), std::move(fe), ClearNominatedNode()};
    } else {
      *failure = Failure{permit, std::nullopt, ClearNominatedNode()};
    }
    return nullptr;
  }

  std::vector<std::shared_ptr<const api::Pod>> to_activate = pods_to_activate.TakeAll();
  if (!to_activate.empty()) queue_->Activate(to_activate);
  return assumed;
}

bool Scheduler::SchedulePod(rt::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                            ScheduleResult* result, Failure* failure) {
  util::Status us = cache_.UpdateSnapshot(snapshot_);
  if (!us.ok()) {
    // The snapshot was rebuilt; report the inconsistency and retry later.
    *failure = Failure{Status::FromError(us), std::nullopt, ClearNominatedNode()};
    return false;
  }
  if (snapshot_.NumNodes() == 0) {
    *failure = Failure{Status(Code::kUnschedulableAndUnresolvable, kNoNodesAvailableMsg), std::nullopt,
                       ClearNominatedNode()};
    return false;
  }

  BatchCycle batch;
  if (auto it = batching_.find(&fwk); it != batching_.end()) batch.batching = it->second.get();
  framework::NodeInfoList& feasible = feasible_;
  feasible.clear();
  Diagnosis diagnosis;
  Status error;
  if (!FindNodesThatFitPod(fwk, state, pod, batch, &feasible, &diagnosis, &error)) {
    *failure = Failure{std::move(error), std::nullopt, ClearNominatedNode()};
    return false;
  }
  if (options_.observer != nullptr) options_.observer->ObserveFilter(pod, feasible, diagnosis.node_to_status);
  if (feasible.empty()) {
    FitError fe;
    fe.num_all_nodes = static_cast<int>(snapshot_.NumNodes());
    fe.diagnosis = std::move(diagnosis);
    // The status is filled by the caller once PostFilter has run.
    *failure = Failure{Status(Code::kUnschedulable), std::move(fe), std::nullopt};
    return false;
  }
  const int evaluated = static_cast<int>(feasible.size() + diagnosis.node_to_status.Len());
  if (feasible.size() == 1) {
    *result = ScheduleResult{feasible[0]->node_name(), evaluated, 1};
    if (batch.batching != nullptr) {
      batch.batching->batch.StoreScheduleResults(batch.signature, batch.hint, result->suggested_host, 0, std::nullopt,
                                                 {}, queue_->SchedulingCycle());
    }
    return true;
  }
  if (!PrioritizeNodes(fwk, state, pod, feasible, batch.signature.has_value(), &node_scores_, &error)) {
    *failure = Failure{std::move(error), std::nullopt, ClearNominatedNode()};
    return false;
  }
  *result = ScheduleResult{SelectHostAndStore(batch, feasible, node_scores_), evaluated,
                           static_cast<int>(feasible.size())};
  return true;
}

std::string Scheduler::SelectHostAndStore(const BatchCycle& batch, const framework::NodeInfoList& feasible,
                                          const framework::runtime::NodeScores& scores) {
  const std::vector<int64_t>& totals = scores.totals;
  if (batch.batching == nullptr) {
    size_t best = options_.tie_break == HostTieBreak::kLowestName ? SelectHostLowestName(totals, feasible)
                  : options_.features.score_heap_host_selection ? SelectHostByScoreHeap(totals)
                                                                : SelectHost(totals, rng_);
    return feasible[best]->node_name();
  }
  const int64_t cycle = queue_->SchedulingCycle();
  if (!batch.signature) {
    // Nothing to keep: the heap's top is the host.
    std::string host = feasible[SelectHostByScoreHeap(totals)]->node_name();
    batch.batching->batch.StoreScheduleResults(batch.signature, batch.hint, host, feasible.size() - 1, std::nullopt,
                                               {}, cycle);
    return host;
  }
  std::vector<SortedScoredNodes::Entry> entries(feasible.size());
  for (size_t i = 0; i < feasible.size(); ++i) {
    SortedScoredNodes::Entry& e = entries[i];
    e.name = feasible[i]->node_name();
    e.total = totals[i];
    e.raw.reserve(scores.raw.size());
    for (const std::vector<int64_t>& plugin : scores.raw) e.raw.push_back(plugin[i]);
  }
  SortedScoredNodes ranking(std::move(entries));
  std::string host = ranking.Pop().name;
  std::vector<std::string> plugins(scores.plugins.begin(), scores.plugins.end());
  batch.batching->batch.StoreScheduleResults(batch.signature, batch.hint, host, ranking.Len(), std::move(ranking),
                                             std::move(plugins), cycle);
  return host;
}

bool Scheduler::FindNodesThatFitPod(rt::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                    BatchCycle& batch, framework::NodeInfoList* feasible, Diagnosis* diagnosis,
                                    Status* error) {
  const framework::NodeInfoList& all_nodes = snapshot_.List();
  rt::PreFilterOutcome pre = fwk.RunPreFilterPlugins(state, pod);
  diagnosis->unschedulable_plugins = pre.plugins_with_nodes;
  if (!pre.status.IsSuccess()) {
    if (!pre.status.IsRejected()) {
      *error = Status::Error(pre.status.Message());
      return false;
    }
    // Every node gets the same status, so preemption sees it everywhere.
    diagnosis->node_to_status.SetAbsentNodesStatus(pre.status);
    diagnosis->pre_filter_msg = pre.status.Message();
    KLOG_V(5, "Status after running PreFilter plugins for pod {}: {}", api::PodKey(pod), diagnosis->pre_filter_msg);
    diagnosis->AddPluginStatus(pre.status);
    return true;
  }

  if (batch.batching != nullptr) {
    batch.signature = fwk.SignPod(batch.batching->signer, pod);
    batch.hint = batch.batching->batch.GetNodeHint(state, pod, batch.signature, queue_->SchedulingCycle());
  }

  // A node nominated by an earlier preemption is likely the only one that
  // fits, and batching's hint is the next best for a pod like the last:
  // try it alone first (the nominated node when there are both).
  const std::string& candidate = pod.status.nominated_node_name.empty() ? batch.hint : pod.status.nominated_node_name;
  if (!candidate.empty()) {
    util::StatusOr<const framework::NodeInfo*> ni = snapshot_.Get(candidate);
    if (ni.ok()) {
      framework::NodeInfoList one = {*ni};
      Status err;
      if (!FindNodesThatPassFilters(fwk, state, pod, diagnosis, one, feasible, &err)) {
        spdlog::error("Evaluation failed on nominated node {} for pod {}: {}", candidate, api::PodKey(pod),
                      err.Message());
      } else if (!feasible->empty()) {
        return true;
      }
      feasible->clear();
    } else {
      spdlog::error("Evaluation failed on nominated node for pod {}: {}", api::PodKey(pod), ni.status().message());
    }
  }

  framework::NodeInfoList subset;
  const framework::NodeInfoList* nodes = &all_nodes;
  if (!pre.result.AllNodes()) {
    subset.reserve(pre.result.node_names->size());
    for (const std::string& name : *pre.result.node_names) {
      // A PreFilterResult may name nodes that do not exist.
      util::StatusOr<const framework::NodeInfo*> ni = snapshot_.Get(name);
      if (ni.ok()) subset.push_back(*ni);
    }
    nodes = &subset;
    diagnosis->node_to_status.SetAbsentNodesStatus(
        Status(Code::kUnschedulableAndUnresolvable,
               "node(s) didn't satisfy plugin(s) " + GoList(diagnosis->unschedulable_plugins)));
  }
  bool ok = FindNodesThatPassFilters(fwk, state, pod, diagnosis, *nodes, feasible, error);
  // Advance the round-robin start even on error, so every node gets its turn.
  if (!all_nodes.empty()) {
    const size_t processed = feasible->size() + diagnosis->node_to_status.Len();
    next_start_node_index_ = (next_start_node_index_ + processed) % all_nodes.size();
  }
  return ok;
}

bool Scheduler::FindNodesThatPassFilters(rt::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                         Diagnosis* diagnosis, const framework::NodeInfoList& nodes,
                                         framework::NodeInfoList* feasible, Status* error) {
  const int32_t n = static_cast<int32_t>(nodes.size());
  if (n == 0) return true;
  int32_t to_find = NumFeasibleNodesToFind(fwk.PercentageOfNodesToScore(), percentage_of_nodes_to_score_, n);
  // Without scoring any feasible node is as good as another.
  if (!fwk.HasScorePlugins()) to_find = 1;
  const size_t start_index = next_start_node_index_;

  if (!fwk.HasFilterPlugins()) {
    feasible->reserve(to_find);
    for (int32_t i = 0; i < to_find; ++i) feasible->push_back(nodes[(start_index + i) % n]);
    return true;
  }

  // The feasible nodes go to their slots in `feasible` as runs claim them.
  feasible->assign(to_find, nullptr);
  const framework::NodeInfo** found = feasible->data();
  std::atomic<int32_t> found_len{0};
  // Rejections are collected sparsely: on large clusters most evaluated
  // nodes fit, and a per-node slot would cost an allocation per node.
  std::mutex mu;
  std::vector<std::pair<const framework::NodeInfo*, Status>> rejected_nodes;
  std::optional<Status> first_error;
  util::CancelFlag cancel;

  // Nodes are filtered in runs, each plugin over a run at once
  // (Framework::RunFilterPluginsOnNodes), then taken in order as kube's
  // per-node check takes them; a run is short, because its nodes past the
  // point where enough feasible nodes were found are filtered for nothing.
  constexpr int32_t kRun = 16;
  const bool labels = fwk.FilterReadsNodeLabels(state);
  const framework::NodeMemoRef resource_memo = state.FilterResourceMemo();
  auto check_run = [&](int r) {
    const int32_t first = r * kRun;
    const int32_t len = std::min(kRun, n - first);
    std::array<const framework::NodeInfo*, kRun> run;
    size_t index = (start_index + static_cast<size_t>(first)) % static_cast<size_t>(n);
    for (int32_t i = 0; i < len; ++i) {
      run[i] = nodes[index];
      if (++index == static_cast<size_t>(n)) index = 0;
      run[i]->PrefetchSelf();
    }
    for (int32_t i = 0; i < len; ++i) run[i]->PrefetchReferenced(labels, resource_memo);
    // The next run's first lines load while this run's plugins run: a
    // thread takes its runs in order.
    for (int32_t i = 0, next = first + kRun; i < kRun && next < n; ++i, ++next) {
      nodes[(start_index + static_cast<size_t>(next)) % static_cast<size_t>(n)]->PrefetchSelf();
    }
    uint64_t alive = (uint64_t{1} << len) - 1;
    std::array<Status, kRun> statuses;
    fwk.RunFilterPluginsOnNodes(state, pod, std::span(run.data(), len), &alive, statuses.data());
    if (cancel.Cancelled()) return;
    const uint64_t rejected = ((uint64_t{1} << len) - 1) & ~alive;
    // An error ends the search at its node.
    int32_t stop = len;
    for (uint64_t left = rejected; left != 0; left &= left - 1) {
      const int32_t i = std::countr_zero(left);
      if (statuses[i].code() == Code::kError) {
        stop = i;
        break;
      }
    }
    const uint64_t feasible_here = alive & ((uint64_t{1} << stop) - 1);
    // One claim for the run's feasible nodes; it takes as many as there is
    // room for, and a feasible node past them ends the search there, as
    // kube's per-node check stops at the first node beyond enough.
    const int32_t passed = std::popcount(feasible_here);
    const int32_t first_slot = found_len.fetch_add(passed);
    const int32_t room = std::max(0, to_find - first_slot);
    int32_t taken = 0;
    for (uint64_t left = feasible_here; left != 0; left &= left - 1) {
      const int32_t i = std::countr_zero(left);
      if (taken == room) {
        stop = i;
        cancel.Cancel();
        break;
      }
      found[first_slot + taken++] = run[i];
    }
    const bool error_here = stop < len && statuses[stop].code() == Code::kError;
    const uint64_t rejected_here = rejected & ((uint64_t{1} << stop) - 1);
    if (!error_here && rejected_here == 0) return;
    std::lock_guard<std::mutex> l(mu);
    if (error_here) {
      if (!first_error) first_error = std::move(statuses[stop]);
      cancel.Cancel();
    }
    for (uint64_t left = rejected_here; left != 0; left &= left - 1) {
      const int32_t i = std::countr_zero(left);
      rejected_nodes.emplace_back(run[i], std::move(statuses[i]));
    }
  };

  const util::TimePoint begin = clock_.Now();
  fwk.Parallelizer().ParallelFor((n + kRun - 1) / kRun, check_run, &cancel, 1);
  feasible->resize(std::min(found_len.load(), to_find));
  diagnosis->node_to_status.Reserve(diagnosis->node_to_status.Len() + rejected_nodes.size());
  for (auto& [ni, status] : rejected_nodes) {
    diagnosis->AddPluginStatus(status);
    diagnosis->node_to_status.Set(ni->node_name(), std::move(status));
  }
  // The framework reports Filter per node only as plugin evaluations; the
  // extension point's duration covers all nodes of the cycle, as in kube.
  if (framework_metrics_ != nullptr) {
    framework_metrics_->ObserveExtensionPointDuration(framework::extension_point::kFilter,
                                                      first_error ? Code::kError : Code::kSuccess,
                                                      fwk.ProfileName(), SecondsSince(begin));
  }
  if (first_error) {
    *error = std::move(*first_error);
    return false;
  }
  return true;
}

bool Scheduler::PrioritizeNodes(rt::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                const framework::NodeInfoList& nodes, bool keep_raw,
                                rt::NodeScores* out, Status* error) {
  if (!fwk.HasScorePlugins()) {
    out->plugins.clear();
    out->raw.clear();
    out->totals.assign(nodes.size(), 1);
    return true;
  }
  Status pre = fwk.RunPreScorePlugins(state, pod, nodes);
  if (!pre.IsSuccess()) {
    *error = Status::Error(pre.Message());
    return false;
  }
  Status st = fwk.RunScorePlugins(state, pod, nodes, out, keep_raw);
  if (!st.IsSuccess()) {
    *error = Status::Error(st.Message());
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- binding cycle

void Scheduler::BindingCycle(std::shared_ptr<framework::CycleState> state, rt::Framework& fwk,
                             ScheduleResult result, framework::QueuedPodInfoPtr assumed, util::TimePoint start,
                             std::shared_ptr<framework::PodsToActivate> pods_to_activate, bool& settled) {
  std::optional<metrics::ScopedGaugeIncrement> goroutine;
  if (options_.metrics != nullptr) goroutine.emplace(options_.metrics->Goroutines(metrics::kBindingOperation));
  const api::Pod& pod = assumed->pod();
  const std::string& host = result.suggested_host;
  // Entered below. Like kube's deferred remove, leaving comes before a
  // failure is handled: a preemptor trying again in between sees the pod
  // still assumed, no longer in PreBind, and evicts it through the API.
  PreBindListing pre_bind_listing(*pods_in_pre_bind_, *state, pod.metadata.uid);
  auto fail = [&](Failure failure) {
    settled = true;
    pre_bind_listing.Leave();
    HandleBindingCycleError(*state, fwk, assumed, start, result, std::move(failure));
  };

  // Success, Skip or Error (a plugin's other answers are errors there);
  // without NominatedNodeNameForExpectation every PreBind runs, as if each
  // had work.
  Status pre_flight;
  if (options_.features.nominated_node_name_for_expectation) {
    pre_flight = fwk.RunPreBindPreFlights(*state, pod, host);
    if (pre_flight.code() == Code::kError) {
      fail(Failure{pre_flight, std::nullopt, {}});
      return;
    }
    // Only when binding will take a while (a PreBind with work, a wait at
    // Permit): otherwise the binding itself soon says where the pod is.
    // The writer compares with what it last wrote for the pod, not with
    // this copy, which may predate an earlier attempt's clearing of the
    // field (kube compares with its copy and can skip the write then).
    if ((pre_flight.IsSuccess() || fwk.WillWaitOnPermit(pod)) && options_.api_writer != nullptr) {
      apiwriter::PodStatusUpdate update;
      update.nominated_node_name = host;
      options_.api_writer->UpdatePodStatus(pod, update);
    }
  }

  Status permit = fwk.WaitOnPermit(pod);
  if (!permit.IsSuccess()) {
    if (permit.IsRejected()) {
      FitError fe;
      fe.num_all_nodes = 1;
      fe.diagnosis.node_to_status.Set(host, permit);
      if (!permit.plugin().empty()) fe.diagnosis.unschedulable_plugins.Insert(permit.plugin());
      Status st(permit.code(), fe.Message());
      fail(Failure{std::move(st), std::move(fe), {}});
    } else {
      fail(Failure{permit, std::nullopt, {}});
    }
    return;
  }
  // Failures from here on are not the pod's fault (PreBind, Bind): it goes
  // to backoff, not to the unschedulable pods. Ending the flight now frees
  // the events recorded for it.
  queue_->Done(pod.metadata.uid);

  // From 1.36 preemption may take a pod in PreBind: it cancels the waits
  // and the pod must then not bind.
  if (options_.features.preemption_cancels_pre_bind && pre_flight.IsSuccess()) pre_bind_listing.Enter();

  Status pre_bind = fwk.RunPreBindPlugins(*state, pod, host);
  if (!pre_bind.IsSuccess()) {
    fail(Failure{pre_bind, std::nullopt, {}});
    return;
  }
  if (framework::PodInPreBind* entry = pre_bind_listing.entry(); entry != nullptr && !entry->MarkPrebound()) {
    fail(Failure{Status::Error(entry->cancellation().Cause()), std::nullopt, {}});
    return;
  }

  // A PodScheduled=False patch of an earlier attempt still in flight would
  // land after the binding and hide it (issue 34's hostile objects showed
  // it: a pod tried before its node was seen). Wait for it; drop what is
  // not sent.
  if (options_.api_writer != nullptr) options_.api_writer->SettlePod(pod.metadata.namespace_, pod.metadata.name);
  Status bind = fwk.RunBindPlugins(*state, pod, host);
  util::Status fin = cache_.FinishBinding(pod);
  if (!fin.ok()) spdlog::error("Scheduler cache FinishBinding failed for pod {}: {}", api::PodKey(pod), fin.message());
  if (bind.IsSuccess()) settled = true;  // bound: nothing to undo from here on
  if (!bind.IsSuccess()) {
    KLOG_V(1, "Failed to bind pod {}", api::PodKey(pod));
    fail(Failure{bind, std::nullopt, {}});
    return;
  }
  RecordEvent(apiwriter::ScheduledEvent(pod, fwk.ProfileName(), host));
  KLOG_INFOS(2, "Successfully bound pod to node", {"pod", PodRef(pod)}, {"node", host},
             {"evaluatedNodes", result.evaluated_nodes}, {"feasibleNodes", result.feasible_nodes});
  ObserveAttempt(metrics::Result::kScheduled, fwk.ProfileName(), start);
  if (options_.metrics != nullptr && assumed->initial_attempt_timestamp) {
    options_.metrics->ObservePodScheduled(assumed->attempts, SecondsSince(*assumed->initial_attempt_timestamp));
  } else if (options_.metrics != nullptr) {
    options_.metrics->PodSchedulingAttempts().Observe(assumed->attempts);
  }
  if (assumed->was_flushed_from_unschedulable) {
    KLOG_INFOS(4, "Pod scheduled after flush from unschedulablePods", {"pod", PodRef(pod)},
               {"unschedulablePlugins", fmt::format("{}", fmt::join(assumed->unschedulable_plugins, ","))},
               {"pendingPlugins", fmt::format("{}", fmt::join(assumed->pending_plugins, ","))});
    if (options_.metrics != nullptr) {
      if (prometheus::Counter* c = options_.metrics->PodScheduledAfterFlush()) c->Increment();
    }
  }
  ForgetPendingPod(pod);

  fwk.RunPostBindPlugins(*state, pod, host);
  std::vector<std::shared_ptr<const api::Pod>> to_activate = pods_to_activate->TakeAll();
  if (!to_activate.empty()) queue_->Activate(to_activate);
}

void Scheduler::HandleBindingCycleError(framework::CycleState& state, rt::Framework& fwk,
                                        const framework::QueuedPodInfoPtr& assumed, util::TimePoint start,
                                        const ScheduleResult& result, Failure failure) {
  // The assumed pod, held here: FailureHandler replaces assumed's pod with the
  // informer's copy and hands `assumed` to the queue, whose threads may then
  // change it.
  const std::shared_ptr<const api::Pod> assumed_pod = assumed->pod_ptr();
  const api::Pod& pod = *assumed_pod;
  if (options_.observer != nullptr) options_.observer->ObserveBindingFailure(pod, failure.status.Message());
  fwk.RunReservePluginsUnreserve(state, pod, result.suggested_host);
  util::Status fs = cache_.ForgetPod(pod);
  bool rejected = failure.status.IsRejected();
  if (!fs.ok()) {
    spdlog::error("Scheduler cache ForgetPod failed for pod {}: {}", api::PodKey(pod), fs.message());
  } else if (!rejected) {
    // The assumed pod held resources; their release is like a pod deletion.
    queue_->MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, assumed_pod, {});
  }
  failure.nominating_info = ClearNominatedNode();
  FailureHandler(fwk, assumed, failure, start);
  if (fs.ok() && rejected) {
    // After the failure handler, and excluding the pod itself: recorded as
    // an in-flight event it would send the rejected pod straight back to
    // backoff when its rejector did not register for this event.
    const std::string uid = pod.metadata.uid;
    queue_->MoveAllToActiveOrBackoffQueue(framework::kEventAssignedPodDelete, assumed_pod, {},
                                          [uid](const api::Pod& p) { return p.metadata.uid != uid; });
  }
}

// ---------------------------------------------------------------- failure handler

void Scheduler::FailureHandler(rt::Framework& fwk, const framework::QueuedPodInfoPtr& pinfo,
                               const Failure& failure, util::TimePoint start) {
  const std::shared_ptr<const api::Pod> pod = pinfo->pod_ptr();
  const bool rejected = failure.status.IsRejected();
  const char* reason = rejected ? apiwriter::kReasonUnschedulable : apiwriter::kReasonSchedulerError;
  ObserveAttempt(rejected ? metrics::Result::kUnschedulable : metrics::Result::kError, fwk.ProfileName(), start);

  const std::string message = failure.status.Message();
  // The last attempt's rejectors (kept from Pop since 1.36) give way to
  // this one's.
  pinfo->unschedulable_plugins.Clear();
  pinfo->pending_plugins.Clear();
  pinfo->gating_plugin.clear();
  pinfo->gating_plugin_events = nullptr;
  if (failure.fit_error) {
    // The rejectors decide which cluster events may requeue the pod.
    pinfo->unschedulable_plugins = failure.fit_error->diagnosis.unschedulable_plugins;
    pinfo->pending_plugins = failure.fit_error->diagnosis.pending_plugins;
    KLOG_INFOS(2, "Unable to schedule pod; no fit; waiting", {"pod", PodRef(*pod)}, {"err", message});
  } else if (message == kNoNodesAvailableMsg) {
    KLOG_INFOS(2, "Unable to schedule pod; no nodes are registered to the cluster; waiting", {"pod", PodRef(*pod)});
  } else {
    KLOG_ERRORS(message, "Error scheduling pod; retrying", {"pod", PodRef(*pod)});
  }

  bool called_done = false;
  // What to nominate, copied before the queue owns pinfo again.
  framework::PodInfo nominated = pinfo->pod_info;
  std::shared_ptr<const api::Pod> cached = listers_->Pods().Get(pod->metadata.namespace_, pod->metadata.name);
  if (cached == nullptr) {
    KLOG_V(2, "Pod {} doesn't exist in informer cache", api::PodKey(*pod));
  } else if (!cached->spec.node_name.empty()) {
    KLOG_V(2, "Pod {} has been assigned to node {}. Abort adding it back to queue.", api::PodKey(*pod),
           cached->spec.node_name);
  } else if (options_.features.skip_requeue_of_recreated_pod && cached->metadata.uid != pod->metadata.uid) {
    // kube 1.36: the failure belongs to a pod that is gone; its namesake is
    // queued on its own, so neither a requeue nor a status write is due.
    KLOG_INFOS(2, "Pod was recreated while handling scheduling failure. Skip requeueing and status updates.",
               {"pod", PodRef(*pod)}, {"oldUID", pod->metadata.uid}, {"newUID", cached->metadata.uid});
    queue_->Done(pod->metadata.uid);
    return;
  } else {
    {
      std::lock_guard<std::mutex> l(failures_mu_);
      last_failures_[pod->metadata.uid] = message;
    }
    pinfo->pod_info.Update(cached);
    nominated = pinfo->pod_info;
    util::Status as = queue_->AddUnschedulableIfNotPresent(pinfo, queue_->SchedulingCycle());
    if (!as.ok()) spdlog::error("Error requeueing pod {}: {}", api::PodKey(*pod), as.message());
    called_done = true;
  }
  const framework::NominatingInfo* ni = failure.nominating_info ? &*failure.nominating_info : nullptr;
  queue_->AddNominatedPod(nominated, ni);
  if (!called_done) queue_->Done(pod->metadata.uid);

  RecordEvent(apiwriter::FailedSchedulingEvent(*pod, fwk.ProfileName(), message));
  if (options_.api_writer != nullptr) {
    apiwriter::PodStatusUpdate update;
    apiwriter::PodScheduledCondition cond;
    cond.reason = reason;
    cond.message = message;
    if (pod->metadata.generation > 0) cond.observed_generation = pod->metadata.generation;
    update.condition = std::move(cond);
    if (ni != nullptr && ni->mode == framework::NominatingMode::kOverride &&
        pod->status.nominated_node_name != ni->nominated_node_name) {
      update.nominated_node_name = ni->nominated_node_name;
    }
    options_.api_writer->UpdatePodStatus(*pod, update);
  }
}

}  // namespace ksched::scheduler
