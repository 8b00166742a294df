// Construction, the counter cache, events and queueing hints.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pkg/config/args_as.h"
#include "pkg/scheduler/plugins/helper/event_objects.h"
#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread.h"

namespace ksched::scheduler::plugins::podtopologyspread {

namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObject;
using framework::QueueingHint;

bool TolerationsEqual(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const api::Toleration& x, const api::Toleration& y) {
    return x.key == y.key && x.operator_ == y.operator_ && x.value == y.value && x.effect == y.effect &&
           x.toleration_seconds == y.toleration_seconds;
  });
}

bool TaintsEqual(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const api::Taint& x, const api::Taint& y) {
    return x.key == y.key && x.value == y.value && x.effect == y.effect && x.time_added == y.time_added;
  });
}

// Whether some constraint's topology value differs between the two label
// sets.
bool TopologyValuesChanged(const api::StringMap& before, const api::StringMap& after,
                           const std::vector<Constraint>& constraints) {
  for (const Constraint& c : constraints) {
    auto b = before.find(c.topology_key);
    auto a = after.find(c.topology_key);
    const bool has_b = b != before.end();
    const bool has_a = a != after.end();
    if (has_b != has_a || (has_b && b->second != a->second)) return true;
  }
  return false;
}

// Whether `other` takes part in the spreading of `pod`: it is the pod
// itself, or an assigned pod of its namespace.
bool Involved(const api::Pod& other, const api::Pod& pod) {
  return other.metadata.uid == pod.metadata.uid ||
         (!other.spec.node_name.empty() && other.metadata.namespace_ == pod.metadata.namespace_);
}

}  // namespace

PodTopologySpread::PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle)
    : default_constraints_(args.defaulting_type == kListDefaulting
                               ? args.default_constraints
                               : SystemDefaultTopologySpreadConstraints()),
      system_defaulted_(args.defaulting_type != kListDefaulting),
      enable_queueing_hints_(handle.Features().scheduler_queueing_hints),
      handle_(handle) {}

util::StatusOr<std::shared_ptr<PodTopologySpread>> New(const config::PluginArgs& args, framework::Handle& handle) {
  util::StatusOr<PodTopologySpreadArgs> typed = config::ArgsAs<PodTopologySpreadArgs>(args);
  if (!typed.ok()) return typed.status();
  return std::make_shared<PodTopologySpread>(*typed, handle);
}

util::StatusOr<std::vector<Constraint>> PodTopologySpread::Constraints(const api::Pod& pod,
                                                                       std::string_view action) const {
  return PodConstraints(pod, action, default_constraints_, handle_.Listers());
}

SpreadCounter& PodTopologySpread::SyncedCounter(const api::Pod& pod, const std::vector<Constraint>& constraints,
                                                std::vector<bool> counted, bool require_all_topology_keys,
                                                std::string_view tag, const framework::NodeInfoList& nodes) {
  std::string signature = CountingSignature(pod, constraints, tag);
  for (bool c : counted) signature.push_back(c ? '1' : '0');
  CachedCounter* entry = nullptr;
  for (CachedCounter& c : counters_) {
    if (c.signature == signature) {
      entry = &c;
      break;
    }
  }
  // A counter whose index is mostly stale (node churn) starts afresh too.
  const bool fresh = entry == nullptr || entry->counter->NeedsRebuild();
  if (entry == nullptr) {
    if (counters_.size() < kCounterCacheSize) {
      entry = &counters_.emplace_back();
    } else {
      entry = &*std::min_element(counters_.begin(), counters_.end(), [](const CachedCounter& a, const CachedCounter& b) {
        return a.last_use < b.last_use;
      });
    }
  }
  if (fresh) {
    SpreadCounter::Options options;
    options.constraints = constraints;
    options.counted = std::move(counted);
    options.require_all_topology_keys = require_all_topology_keys;
    options.namespace_ = pod.metadata.namespace_;
    entry->signature = std::move(signature);
    entry->counter = std::make_unique<SpreadCounter>(std::move(options), NodeInclusion(pod));
  }
  entry->last_use = ++uses_;
  entry->counter->Sync(nodes, handle_.Parallelizer());
  return *entry->counter;
}

util::StatusOr<std::vector<ClusterEventWithHint>> PodTopologySpread::EventsToRegister() const {
  ActionType pod_actions = ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete;
  // Only hints can tell that a new toleration of the pod itself matters
  // (NodeTaintsPolicy Honor); without them the pod's own update requeues it.
  if (enable_queueing_hints_) pod_actions |= ActionType::kUpdatePodToleration;
  std::vector<ClusterEventWithHint> events;
  events.push_back(ClusterEventWithHint{
      ClusterEvent(framework::resource::kPod, pod_actions),
      [this](const api::Pod& pod, const EventObject& o, const EventObject& n) {
        return IsSchedulableAfterPodChange(pod, o, n);
      }});
  events.push_back(ClusterEventWithHint{
      ClusterEvent(framework::resource::kNode, ActionType::kAdd | ActionType::kDelete | ActionType::kUpdateNodeLabel |
                                                   ActionType::kUpdateNodeTaint),
      [this](const api::Pod& pod, const EventObject& o, const EventObject& n) {
        return IsSchedulableAfterNodeChange(pod, o, n);
      }});
  return events;
}

util::StatusOr<QueueingHint> PodTopologySpread::IsSchedulableAfterPodChange(const api::Pod& pod,
                                                                            const EventObject& old_obj,
                                                                            const EventObject& new_obj) const {
  const api::Pod* original = nullptr;
  const api::Pod* modified = nullptr;
  util::Status s = helper::AsObjects(old_obj, new_obj, &original, &modified, "Pod");
  if (!s.ok()) return s;
  if ((modified != nullptr && !Involved(*modified, pod)) || (original != nullptr && !Involved(*original, pod))) {
    return QueueingHint::kQueueSkip;
  }
  util::StatusOr<std::vector<Constraint>> constraints = Constraints(pod, kDoNotSchedule);
  if (!constraints.ok()) return constraints.status();

  if (original != nullptr && modified != nullptr) {
    if (modified->metadata.uid == pod.metadata.uid &&
        !TolerationsEqual(modified->spec.tolerations, original->spec.tolerations)) {
      for (const Constraint& c : *constraints) {
        if (c.honor_node_taints) return QueueingHint::kQueue;
      }
    }
    if (modified->metadata.labels == original->metadata.labels) return QueueingHint::kQueueSkip;
    for (const Constraint& c : *constraints) {
      if (c.Selects(*original) != c.Selects(*modified)) return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  const api::Pod& changed = modified != nullptr ? *modified : *original;
  return AnySelects(*constraints, changed) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

util::StatusOr<QueueingHint> PodTopologySpread::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                             const EventObject& old_obj,
                                                                             const EventObject& new_obj) const {
  const api::Node* original = nullptr;
  const api::Node* modified = nullptr;
  util::Status s = helper::AsObjects(old_obj, new_obj, &original, &modified, "Node");
  if (!s.ok()) return s;
  util::StatusOr<std::vector<Constraint>> constraints = Constraints(pod, kDoNotSchedule);
  if (!constraints.ok()) return constraints.status();
  const bool original_matching =
      original != nullptr && NodeHasAllTopologyKeys(original->metadata.labels, *constraints);
  const bool modified_matching =
      modified != nullptr && NodeHasAllTopologyKeys(modified->metadata.labels, *constraints);
  if (original != nullptr && modified != nullptr) {
    if (original_matching != modified_matching) return QueueingHint::kQueue;
    if (modified_matching &&
        (TopologyValuesChanged(original->metadata.labels, modified->metadata.labels, *constraints) ||
         !TaintsEqual(original->spec.taints, modified->spec.taints))) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  // Added (modified only) or deleted (original only).
  return original_matching || modified_matching ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

framework::Status PodTopologySpread::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>&) const {
  if (!pod.spec.topology_spread_constraints.empty()) {
    return framework::Status(framework::Code::kUnschedulable, "pods with topology constraints are not signable");
  }
  if (!default_constraints_.empty()) {
    return framework::Status(framework::Code::kUnschedulable, "pods with default topology constraints are not signable");
  }
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
