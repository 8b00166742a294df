#include "pkg/simulate/simulation.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pkg/api/pod_helpers.h"
#include "pkg/api/resource_helpers.h"
#include "pkg/scheduler/eventhandlers.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/queued_pod_info.h"
#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"
#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/scheduler/plugins/volumebinding/volume_binding.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/simulate/claim_release.h"
#include "pkg/simulate/effects.h"
#include "pkg/simulate/explain_recorder.h"
#include "pkg/simulate/jumping_clock.h"
#include "pkg/util/clock.h"

namespace ksched::simulate {

namespace {

namespace fw = scheduler::framework;
using PodPtr = std::shared_ptr<const api::Pod>;

// The queue's backoff flush period.
constexpr util::Duration kBackoffFlushPeriod = std::chrono::seconds(1);

using DynamicResourcesPtr = std::shared_ptr<scheduler::plugins::dynamicresources::DynamicResources>;

// The in-tree registry, with DefaultPreemption's candidate offset taken
// from `offset` (so deterministic modes stay deterministic) and
// VolumeBinding's PreBind polling on `binding_wait_clock`, and
// DynamicResources taking binding conditions as met. The last
// DynamicResources built goes to *dynamic_resources (every profile's reads
// the same listers and claim tracker, so any serves --explain's tally).
util::StatusOr<fw::Registry> BuildRegistry(const fw::FeatureGates& features,
                                          scheduler::plugins::defaultpreemption::OffsetSource offset,
                                          const util::Clock& binding_wait_clock,
                                          DynamicResourcesPtr* dynamic_resources) {
  util::StatusOr<fw::Registry> in_tree = scheduler::plugins::InTreeRegistry(features);
  if (!in_tree.ok()) return in_tree;
  fw::Registry out;
  for (const std::string& name : in_tree->Names()) {
    fw::PluginFactory factory = *in_tree->Find(name);
    if (name == scheduler::plugins::volumebinding::kName) {
      factory = [&binding_wait_clock](const config::PluginArgs& args,
                                      fw::Handle& h) -> util::StatusOr<std::shared_ptr<fw::Plugin>> {
        auto p = scheduler::plugins::volumebinding::New(args, h, binding_wait_clock);
        if (!p.ok()) return p.status();
        return std::shared_ptr<fw::Plugin>(std::move(p).value());
      };
    }
    if (name == scheduler::plugins::dynamicresources::kName) {
      // No driver reports binding conditions here, and the simulation's
      // clock does not move during a binding cycle: such devices count as
      // attached at once.
      factory = [dynamic_resources](const config::PluginArgs& args,
                                    fw::Handle& h) -> util::StatusOr<std::shared_ptr<fw::Plugin>> {
        auto p = scheduler::plugins::dynamicresources::New(args, h, /*assume_binding_conditions_met=*/true);
        if (!p.ok()) return p.status();
        *dynamic_resources = std::move(p).value();
        return std::shared_ptr<fw::Plugin>(*dynamic_resources);
      };
    }
    if (name == scheduler::plugins::defaultpreemption::kName && offset) {
      factory = [offset](const config::PluginArgs& args, fw::Handle& h) -> util::StatusOr<std::shared_ptr<fw::Plugin>> {
        auto p = scheduler::plugins::defaultpreemption::New(args, h, offset);
        if (!p.ok()) return p.status();
        return std::shared_ptr<fw::Plugin>(std::move(p).value());
      };
    }
    util::Status s = out.Register(fw::PluginRegistration{name, std::move(factory), in_tree->ArgsCodecOf(name)});
    if (!s.ok()) return s;
  }
  out.SetDefaultPlugins(in_tree->DefaultPlugins());
  return out;
}

// The cpu (milli) and memory requests of `pod` as NodeInfo counts them.
std::pair<int64_t, int64_t> CpuMemoryRequests(const api::Pod& pod) {
  const api::ResourceList req = api::PodRequests(pod, api::SchedulingPodRequestOptions());
  auto cpu = req.find(std::string(api::kResourceCPU));
  auto mem = req.find(std::string(api::kResourceMemory));
  return {cpu == req.end() ? 0 : cpu->second.MilliValue(), mem == req.end() ? 0 : mem->second.Value()};
}

// Every node's allocatable and the requests of the pods bound to it in
// `pods`; `after` chooses which pair of fields is filled.
void AccountUsage(const std::vector<PodPtr>& pods, bool after, std::map<std::string, NodeUsage>* usage) {
  for (const PodPtr& p : pods) {
    if (p->spec.node_name.empty()) continue;
    auto it = usage->find(p->spec.node_name);
    if (it == usage->end()) continue;
    auto [cpu, mem] = CpuMemoryRequests(*p);
    (after ? it->second.cpu_after_milli : it->second.cpu_before_milli) += cpu;
    (after ? it->second.memory_after : it->second.memory_before) += mem;
  }
}

// The pod's claims as allocated: its own (named, or generated from a
// template), then the one created for its extended resources.
std::vector<ClaimAllocation> ClaimAllocations(const fw::InMemorySharedListers& listers, const api::Pod& pod) {
  std::vector<std::pair<std::string, bool>> names;  // name, for extended resources
  for (const api::PodResourceClaim& c : pod.spec.resource_claims) {
    if (c.resource_claim_name) {
      names.emplace_back(*c.resource_claim_name, false);
      continue;
    }
    const api::PodResourceClaimStatus* st = api::GetClaimStatus(pod.status, c.name);
    if (st != nullptr && st->resource_claim_name) names.emplace_back(*st->resource_claim_name, false);
  }
  if (pod.status.extended_resource_claim_status) {
    names.emplace_back(pod.status.extended_resource_claim_status->resource_claim_name, true);
  }
  std::vector<ClaimAllocation> out;
  for (auto& [name, extended] : names) {
    ClaimAllocation a;
    a.name = name;
    a.for_extended_resources = extended;
    std::shared_ptr<const api::ResourceClaim> claim = listers.resource_claims.Get(pod.metadata.namespace_, name);
    if (claim != nullptr && claim->status.allocation) {
      for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
        a.devices.push_back({r.request, r.driver + "/" + r.pool + "/" + r.device, r.binding_conditions});
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

// For each node where DynamicResources could not allocate the pending
// `pod`'s claims, why its devices cannot serve each request of the claims
// still to allocate.
std::map<std::string, std::vector<RequestDevices>> DeviceTallies(
    scheduler::plugins::dynamicresources::DynamicResources& plugin, const PodExplain& explain, const api::Pod& pod,
    const std::map<std::string, std::shared_ptr<const api::Node>>& nodes) {
  namespace dr = scheduler::plugins::dynamicresources;
  std::map<std::string, std::vector<RequestDevices>> out;
  for (const auto& [name, verdict] : explain.filter) {
    const bool cannot_allocate =
        verdict.kind == FilterVerdict::Kind::kRejected && verdict.plugin == dr::kName &&
        std::find(verdict.reasons.begin(), verdict.reasons.end(), dr::kErrCannotAllocate) != verdict.reasons.end();
    if (!cannot_allocate) continue;
    auto node = nodes.find(name);
    if (node == nodes.end()) continue;
    util::StatusOr<std::vector<scheduler::dra::RequestDeviceTally>> tallies =
        plugin.TallyDevices(pod, fw::NodeInfo(node->second));
    if (!tallies.ok() || tallies->empty()) continue;
    std::vector<RequestDevices>& requests = out[name];
    for (scheduler::dra::RequestDeviceTally& t : *tallies) {
      requests.push_back({std::move(t.claim), std::move(t.request), t.reachable, t.usable, std::move(t.skipped)});
    }
  }
  return out;
}

// One simulation run; see simulation.h.
class Run {
 public:
  Run(const ClusterObjects& cluster, const SimulationOptions& options)
      : cluster_(cluster), options_(options), effects_(listers_) {}

  util::StatusOr<SimulationResult> Execute();

 private:
  PodOutcome& OutcomeFor(const std::string& ns, const std::string& name, const std::string& uid);
  std::string NextResourceVersion() { return "simulate-" + std::to_string(++resource_version_); }
  // Lets the binding cycles run until each has ended or waits at Permit,
  // notes the new waits, and applies what was recorded.
  void Settle();
  void Apply(Effects e);
  // Delivers ResourceClaim changes as the claim informer would.
  void DeliverClaimUpdates(const std::vector<Effects::ClaimUpdate>& updates);

  const ClusterObjects& cluster_;
  const SimulationOptions& options_;
  util::FakeClock clock_;
  // VolumeBinding polls on its own clock: see jumping_clock.h.
  JumpingClock binding_wait_clock_;
  fw::InMemorySharedListers listers_;
  RecordedEffects effects_;
  std::unique_ptr<ExplainRecorder> recorder_;
  DynamicResourcesPtr dynamic_resources_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::unique_ptr<scheduler::EventHandlers> handlers_;
  uint64_t resource_version_ = 0;
  std::vector<PodOutcome> outcomes_;
  std::unordered_map<std::string, size_t> outcome_index_;  // uid -> outcomes_
  // Pods waiting at Permit after the last Settle, by uid.
  std::unordered_set<std::string> waiting_;
  // When a pod was last bound or evicted (the retry horizon's start), and
  // the cycles run since.
  util::TimePoint last_change_;
  size_t idle_cycles_ = 0;
};

util::StatusOr<SimulationResult> Run::Execute() {
  if (options_.seed && *options_.seed == 0) return util::InvalidArgument("the seed must not be 0");
  const bool deterministic = options_.seed.has_value() || options_.tie_break == TieBreak::kLowestName;
  config::KubeSchedulerConfiguration cfg = options_.config;
  if (deterministic) cfg.parallelism = 1;
  if (options_.explain) {
    cfg.percentage_of_nodes_to_score = 100;
    for (config::KubeSchedulerProfile& p : cfg.profiles) p.percentage_of_nodes_to_score = 100;
  }

  scheduler::plugins::defaultpreemption::OffsetSource offset;
  if (options_.tie_break == TieBreak::kLowestName) {
    offset = [](int) { return 0; };
  } else if (options_.seed) {
    auto rng = std::make_shared<std::mt19937>(static_cast<std::mt19937::result_type>(*options_.seed));
    offset = [rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  }
  util::StatusOr<fw::Registry> registry =
      BuildRegistry(options_.features, offset, binding_wait_clock_, &dynamic_resources_);
  if (!registry.ok()) return registry.status();

  // Pods without a node: an upper bound of the pods this run schedules.
  size_t pending_count = 0;
  for (const auto& p : cluster_.pods) pending_count += p->spec.node_name.empty() ? 1 : 0;
  std::vector<std::string> node_names;
  for (const auto& n : cluster_.nodes) node_names.push_back(n->metadata.name);
  if (options_.explain) recorder_ = std::make_unique<ExplainRecorder>(node_names);

  scheduler::SchedulerOptions so;
  so.clock = &clock_;
  so.features = options_.features;
  so.binding_client = &effects_;
  so.api_writer = &effects_;
  so.listers = &listers_;
  // A binding cycle waiting at Permit holds its thread: one per pending
  // pod, plus one for a cycle released while every other thread waits.
  so.max_binding_threads = pending_count + 1;
  so.seed = options_.seed.value_or(0);
  so.tie_break = options_.tie_break == TieBreak::kLowestName ? scheduler::HostTieBreak::kLowestName
                                                               : scheduler::HostTieBreak::kRandom;
  so.observer = recorder_.get();
  util::StatusOr<std::unique_ptr<scheduler::Scheduler>> sched = scheduler::Scheduler::New(cfg, *registry, so);
  if (!sched.ok()) return sched.status();
  sched_ = std::move(sched).value();
  handlers_ = std::make_unique<scheduler::EventHandlers>(*sched_);

  // The informers' initial lists: everything but the pods first, so plugins
  // find what pods refer to.
  for (const auto& o : cluster_.namespaces) listers_.namespaces.Set(o);
  for (const auto& o : cluster_.persistent_volumes) listers_.persistent_volumes.Set(o);
  for (const auto& o : cluster_.persistent_volume_claims) listers_.persistent_volume_claims.Set(o);
  for (const auto& o : cluster_.storage_classes) listers_.storage_classes.Set(o);
  for (const auto& o : cluster_.csi_nodes) listers_.csi_nodes.Set(o);
  for (const auto& o : cluster_.csi_drivers) listers_.csi_drivers.Set(o);
  for (const auto& o : cluster_.csi_storage_capacities) listers_.csi_storage_capacities.Set(o);
  for (const auto& o : cluster_.volume_attachments) listers_.volume_attachments.Set(o);
  for (const auto& o : cluster_.pod_disruption_budgets) listers_.pod_disruption_budgets.Set(o);
  for (const auto& o : cluster_.services) listers_.services.Set(o);
  for (const auto& o : cluster_.replication_controllers) listers_.replication_controllers.Set(o);
  for (const auto& o : cluster_.replica_sets) listers_.replica_sets.Set(o);
  for (const auto& o : cluster_.stateful_sets) listers_.stateful_sets.Set(o);
  for (const auto& o : cluster_.device_classes) listers_.device_classes.Set(o);
  for (const auto& o : cluster_.resource_claims) listers_.resource_claims.Set(o);
  for (const auto& o : cluster_.resource_claim_templates) listers_.resource_claim_templates.Set(o);
  for (const auto& o : cluster_.resource_slices) listers_.resource_slices.Set(o);
  for (const auto& o : cluster_.device_taint_rules) listers_.device_taint_rules.Set(o);
  for (const auto& o : cluster_.pod_groups) listers_.pod_groups.Set(o);
  for (const auto& n : cluster_.nodes) handlers_->OnNodeAdd(n);
  std::vector<PodPtr> pending;
  for (const auto& p : cluster_.pods) {
    listers_.pods.Set(p);
    if (!p->spec.node_name.empty()) {
      handlers_->OnAssignedPodAdd(p);
    } else if (sched_->IsResponsibleFor(*p)) {
      pending.push_back(p);
    }
  }
  auto created = [](const api::Pod& p) { return p.metadata.creation_timestamp.value_or(api::Time{}); };
  std::stable_sort(pending.begin(), pending.end(), [&](const PodPtr& a, const PodPtr& b) {
    return std::forward_as_tuple(created(*a), a->metadata.namespace_, a->metadata.name) <
           std::forward_as_tuple(created(*b), b->metadata.namespace_, b->metadata.name);
  });
  for (const PodPtr& p : pending) {
    // QueueSort orders equal priorities by the time they entered the queue.
    clock_.Step(std::chrono::microseconds(1));
    handlers_->OnUnscheduledPodAdd(p);
  }

  // Every retry needs an event caused by an earlier cycle, and pods that
  // only requeue each other stop at the retry horizon, or after
  // max_idle_cycles when they do so without the clock moving (gang members
  // that fit activate their siblings past backoff); so this ends. The
  // total bound only guards against a bug turning it into a loop.
  const size_t max_cycles = 100 * pending.size() + 1000;
  const size_t max_idle_cycles = 10 * pending.size() + 100;
  size_t cycles = 0;
  bool settled = true;
  last_change_ = clock_.Now();
  idle_cycles_ = 0;
  scheduler::queue::PriorityQueue& queue = sched_->Queue();
  for (;;) {
    while (settled && queue.PodReadyToPop()) {
      if (++cycles > max_cycles) {
        return util::Internal("the simulation did not settle after " + std::to_string(max_cycles) + " cycles");
      }
      sched_->ScheduleOne();
      ++idle_cycles_;
      Settle();
      settled = idle_cycles_ <= max_idle_cycles;
    }
    // A wait at Permit always ends (at the latest at its timeout), so the
    // clock moves on while one is open, horizon or not.
    if (waiting_.empty()) {
      if (!settled) break;
      if (queue.PodsInBackoffQ().empty()) break;
      if (clock_.Now() - last_change_ >= kRetryHorizon) {
        settled = false;
        break;
      }
    }
    // One flush period at a time: Permit timeouts are whole seconds after
    // a cycle, and cycles start on whole seconds after the pods' arrival,
    // so each timeout falls on a step.
    clock_.Step(kBackoffFlushPeriod);
    queue.FlushBackoffQCompleted();
    Settle();
  }

  // Pods never attempted: held back by PreEnqueue plugins.
  for (const scheduler::PendingPodDebug& d : sched_->PendingPodsDebug()) {
    if (outcome_index_.count(d.pod->metadata.uid) != 0) continue;
    PodOutcome& o = OutcomeFor(d.pod->metadata.namespace_, d.pod->metadata.name, d.pod->metadata.uid);
    o.gated_by = d.gating_plugin;
  }

  SimulationResult result;
  result.profiles = sched_->ProfileNames();
  result.tie_break = options_.tie_break == TieBreak::kLowestName ? "lowest-name" : options_.seed ? "seeded" : "random";
  result.seed = options_.seed;
  result.explain = options_.explain;
  result.nodes = static_cast<int>(cluster_.nodes.size());
  result.settled = settled;
  if (recorder_ != nullptr) {
    std::map<std::string, std::shared_ptr<const api::Node>> nodes;
    for (const auto& n : cluster_.nodes) nodes[n->metadata.name] = n;
    for (PodOutcome& o : outcomes_) {
      o.explain = recorder_->Take(o.uid);
      PodPtr pod = listers_.pods.Get(o.namespace_, o.name);
      if (!o.explain || pod == nullptr) continue;
      if (!o.node.empty()) {
        o.explain->claims = ClaimAllocations(listers_, *pod);
      } else if (dynamic_resources_ != nullptr) {
        o.explain->devices = DeviceTallies(*dynamic_resources_, *o.explain, *pod, nodes);
      }
    }
  }
  result.pods = std::move(outcomes_);
  sched_->Stop();
  std::map<std::string, NodeUsage> usage;
  for (const auto& n : cluster_.nodes) {
    NodeUsage& u = usage[n->metadata.name];
    u.name = n->metadata.name;
    const api::ResourceList& alloc = n->status.allocatable.value_or_default();
    auto cpu = alloc.find(std::string(api::kResourceCPU));
    auto mem = alloc.find(std::string(api::kResourceMemory));
    u.cpu_allocatable_milli = cpu == alloc.end() ? 0 : cpu->second.MilliValue();
    u.memory_allocatable = mem == alloc.end() ? 0 : mem->second.Value();
  }
  AccountUsage(cluster_.pods, false, &usage);
  AccountUsage(listers_.pods.List(), true, &usage);
  for (auto& [name, u] : usage) result.node_usage.push_back(std::move(u));
  return result;
}

PodOutcome& Run::OutcomeFor(const std::string& ns, const std::string& name, const std::string& uid) {
  auto [it, inserted] = outcome_index_.emplace(uid, outcomes_.size());
  if (!inserted) return outcomes_[it->second];
  PodOutcome o;
  o.namespace_ = ns;
  o.name = name;
  o.uid = uid;
  if (PodPtr p = listers_.pods.Get(ns, name)) {
    o.scheduler_name = p->spec.scheduler_name;
    o.priority = fw::PodPriority(*p);
  }
  outcomes_.push_back(std::move(o));
  return outcomes_.back();
}

void Run::Settle() {
  // Applying may release waiting pods in turn (an evicted pod that waited
  // is rejected, and its gang with it): settle again until nothing is left
  // to apply.
  for (;;) {
    std::unordered_set<std::string> waiting;
    for (const std::shared_ptr<fw::WaitingPod>& wp : sched_->SettleBindingCycles()) {
      const api::Pod& pod = *wp->pod();
      waiting.insert(pod.metadata.uid);
      if (waiting_.count(pod.metadata.uid) != 0) continue;
      // The wait is the pod's first outcome when it is its first attempt.
      OutcomeFor(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid);
      if (recorder_ != nullptr) {
        recorder_->ObservePermitWait(pod.metadata.uid, pod.spec.node_name, wp->GetPendingPlugins());
      }
    }
    waiting_ = std::move(waiting);
    Effects e = effects_.Take();
    if (e.Empty()) return;
    if (!e.bindings.empty() || !e.evictions.empty()) {
      last_change_ = clock_.Now();
      idle_cycles_ = 0;
    }
    // Cycles released together (a gang allowed or rejected at once) record
    // in the order their threads ran; namespace/name order keeps runs
    // reproducible. A cycle's own writes keep their order.
    auto by_name = [](const auto& a, const auto& b) {
      return std::tie(a.namespace_, a.name) < std::tie(b.namespace_, b.name);
    };
    std::stable_sort(e.bindings.begin(), e.bindings.end(), by_name);
    std::stable_sort(e.status_updates.begin(), e.status_updates.end(), by_name);
    Apply(std::move(e));
  }
}

void Run::Apply(Effects e) {
  // Status patches first: the preemptor's nomination, failures' messages.
  for (const Effects::StatusUpdate& u : e.status_updates) {
    PodOutcome& o = OutcomeFor(u.namespace_, u.name, u.uid);
    if (u.update.condition) {
      o.fit_error = u.update.condition->message;
      ++o.attempts;
      if (recorder_ != nullptr) recorder_->ObservePermitOutcome(u.uid, "rejected", u.update.condition->message);
    }
    if (!u.update.nominated_node_name) continue;
    const std::string& nominated = *u.update.nominated_node_name;
    o.nominated_node = nominated;
    PodPtr cur = listers_.pods.Get(u.namespace_, u.name);
    if (cur == nullptr || cur->metadata.uid != u.uid || cur->status.nominated_node_name == nominated) continue;
    auto next = std::make_shared<api::Pod>(*cur);
    next->status.nominated_node_name = nominated;
    next->metadata.resource_version = NextResourceVersion();
    listers_.pods.Set(next);
    if (next->spec.node_name.empty()) {
      handlers_->OnUnscheduledPodUpdate(cur, next);
    } else {
      handlers_->OnAssignedPodUpdate(cur, next);
    }
  }
  // Evictions: the pod disappears, as its DELETE would make it.
  std::unordered_map<std::string, std::string> evicted_from;  // "ns/name" -> node
  for (const Effects::Eviction& v : e.evictions) {
    PodPtr cur = listers_.pods.Get(v.namespace_, v.name);
    if (cur == nullptr || cur->metadata.uid != v.uid) continue;
    listers_.pods.Delete(v.namespace_, v.name);
    evicted_from[v.namespace_ + "/" + v.name] = cur->spec.node_name;
    if (cur->spec.node_name.empty()) {
      handlers_->OnUnscheduledPodDelete(cur);
    } else {
      handlers_->OnAssignedPodDelete(cur);
    }
    // The resource-claim controller frees what the victim's claims held.
    DeliverClaimUpdates(ReleasePodClaims(listers_.resource_claims, *cur));
    auto placed = outcome_index_.find(v.uid);
    if (placed != outcome_index_.end()) outcomes_[placed->second].node.clear();
  }
  for (const Effects::Preempted& p : e.preempted) {
    PodOutcome& o = OutcomeFor(p.preemptor.namespace_, p.preemptor.name, p.preemptor.uid);
    const std::string key = p.victim.namespace_ + "/" + p.victim.name;
    auto node = evicted_from.find(key);
    o.victims.push_back({p.victim.namespace_, p.victim.name, node == evicted_from.end() ? "" : node->second});
    auto victim = outcome_index_.find(p.victim.uid);
    if (victim != outcome_index_.end()) {
      outcomes_[victim->second].preempted_by = p.preemptor.namespace_ + "/" + p.preemptor.name;
    }
  }
  // PreBind's claim writes (allocation, reservedFor) came before the
  // bindings they were made for.
  DeliverClaimUpdates(e.claim_updates);
  // Bindings: the pod becomes assigned (an informer update that moves it
  // from the unassigned handler to the assigned one).
  for (const Effects::Binding& b : e.bindings) {
    PodOutcome& o = OutcomeFor(b.namespace_, b.name, b.uid);
    o.node = b.node;
    o.fit_error.reset();
    ++o.attempts;
    if (recorder_ != nullptr) recorder_->ObservePermitOutcome(b.uid, "allowed", "");
    PodPtr cur = listers_.pods.Get(b.namespace_, b.name);
    if (cur == nullptr || cur->metadata.uid != b.uid) continue;
    auto next = std::make_shared<api::Pod>(*cur);
    next->spec.node_name = b.node;
    if (options_.features.clearing_nominated_node_name_after_binding) {
      next->status.nominated_node_name.clear();
      o.nominated_node.clear();
    }
    next->metadata.resource_version = NextResourceVersion();
    listers_.pods.Set(next);
    handlers_->OnUnscheduledPodDelete(cur);
    handlers_->OnAssignedPodAdd(next);
  }
}

void Run::DeliverClaimUpdates(const std::vector<Effects::ClaimUpdate>& updates) {
  for (const Effects::ClaimUpdate& u : updates) {
    using fw::ActionType;
    const ActionType action = u.new_claim == nullptr   ? ActionType::kDelete
                              : u.old_claim == nullptr ? ActionType::kAdd
                                                       : ActionType::kUpdate;
    handlers_->OnResourceEvent(fw::ClusterEvent(fw::resource::kResourceClaim, action), fw::EventObject(u.old_claim),
                               u.new_claim == nullptr ? fw::EventObject() : fw::EventObject(u.new_claim));
  }
}

}  // namespace

util::StatusOr<SimulationResult> Simulate(const ClusterObjects& cluster, const SimulationOptions& options) {
  Run run(cluster, options);
  return run.Execute();
}

}  // namespace ksched::simulate
