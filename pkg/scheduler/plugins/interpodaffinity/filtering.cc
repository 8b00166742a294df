// PreFilter, its AddPod/RemovePod extensions and Filter.

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
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);

using framework::AffinityTerm;
using framework::Code;
using framework::Status;

// Tables of the two counters: the existing pods' anti-affinity counter has
// one, the incoming pod's terms counter two.
constexpr int32_t kExistingTable = 0;
constexpr int32_t kAffinityTable = 0;
constexpr int32_t kAntiAffinityTable = 1;

// True iff `pod` matches every term; false when there are none. The incoming
// pod's terms have their namespace selectors resolved, so matching them needs
// no namespace labels.
bool MatchesAllTerms(const std::vector<AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const AffinityTerm& t : terms) {
    if (!t.Matches(pod, NoNamespaceLabels())) return false;
  }
  return true;
}

// Appends a hit for the term's domain on `labels`, if the node has the key.
void AppendHit(std::vector<Hit>& hits, const std::string& key, const api::StringMap& labels, int32_t table) {
  if (const std::string* value = NodeLabel(labels, key)) hits.push_back(Hit{&key, value, table});
}

// The node's existing pods whose required anti-affinity matches `pod`.
void CollectExistingAntiAffinity(const framework::NodeInfo& ni, const api::Pod& pod,
                                 const api::StringMap& ns_labels, std::vector<Hit>& hits) {
  const api::Node* node = ni.node();
  if (node == nullptr) return;
  for (const framework::PodInfoPtr& existing : ni.pods_with_required_anti_affinity()) {
    for (const AffinityTerm& t : existing->required_anti_affinity_terms()) {
      if (t.Matches(pod, ns_labels)) AppendHit(hits, t.topology_key, node->metadata.labels, kExistingTable);
    }
  }
}

// The node's existing pods matching the incoming pod's terms: all affinity
// terms at once (one hit per term), or each anti-affinity term.
void CollectIncoming(const framework::NodeInfo& ni, const IncomingRequiredTerms& terms, std::vector<Hit>& hits) {
  const api::Node* node = ni.node();
  if (node == nullptr) return;
  const api::StringMap& labels = node->metadata.labels;
  for (const framework::PodInfoPtr& existing : ni.pods()) {
    const api::Pod& p = existing->pod();
    if (MatchesAllTerms(terms.affinity, p)) {
      for (const AffinityTerm& t : terms.affinity) AppendHit(hits, t.topology_key, labels, kAffinityTable);
    }
    for (const AffinityTerm& t : terms.anti_affinity) {
      if (t.Matches(p, NoNamespaceLabels())) AppendHit(hits, t.topology_key, labels, kAntiAffinityTable);
    }
  }
}

Status MissingPreFilterState() {
  return Status::Error(std::string("error reading \"") + std::string(kPreFilterStateKey) +
                       "\" from cycleState: not found");
}

// Compiles the pod's required terms into `out`. Preferred terms are checked
// too: a malformed one makes the pod unschedulable as in kube, whose PodInfo
// fails as a whole (the error names the list, as kube's does).
util::Status ParseIncomingTerms(const api::Pod& pod, IncomingRequiredTerms* out) {
  if (!pod.spec.affinity) return util::Status::Ok();
  static const api::PodAffinity kNone;
  const api::PodAffinity& affinity = pod.spec.affinity->pod_affinity ? *pod.spec.affinity->pod_affinity : kNone;
  const api::PodAffinity& anti =
      pod.spec.affinity->pod_anti_affinity ? *pod.spec.affinity->pod_anti_affinity : kNone;
  auto wrap = [](const char* list, const util::Status& s) {
    return util::InvalidArgument(std::string(list) + ": " + s.message());
  };
  auto required = framework::ParseAffinityTerms(pod, affinity.required_during_scheduling_ignored_during_execution);
  if (!required.ok()) return wrap("requiredAffinityTerms", required.status());
  auto required_anti = framework::ParseAffinityTerms(pod, anti.required_during_scheduling_ignored_during_execution);
  if (!required_anti.ok()) return wrap("requiredAntiAffinityTerms", required_anti.status());
  auto preferred =
      framework::ParseWeightedAffinityTerms(pod, affinity.preferred_during_scheduling_ignored_during_execution);
  if (!preferred.ok()) return wrap("preferredAffinityTerms", preferred.status());
  auto preferred_anti =
      framework::ParseWeightedAffinityTerms(pod, anti.preferred_during_scheduling_ignored_during_execution);
  if (!preferred_anti.ok()) return wrap("preferredAntiAffinityTerms", preferred_anti.status());
  out->affinity = std::move(required).value();
  out->anti_affinity = std::move(required_anti).value();
  return util::Status::Ok();
}

// Applies one pod added to (multiplier +1) or removed from (-1) `node` to the
// state (kube's updateWithPod).
void UpdateWithPod(PreFilterState& s, const api::Pod& incoming, const framework::PodInfo& changed,
                   const api::Node& node, int64_t multiplier) {
  const api::StringMap& labels = node.metadata.labels;
  for (const AffinityTerm& t : changed.required_anti_affinity_terms()) {
    if (!t.Matches(incoming, *s.namespace_labels)) continue;
    if (const std::string* value = NodeLabel(labels, t.topology_key)) {
      s.mutable_existing_anti_affinity_counts().Add(t.topology_key, *value, multiplier);
      s.KeySlot(t.topology_key);  // Filter must now read this key too
    }
  }
  const api::Pod& p = changed.pod();
  if (MatchesAllTerms(s.terms->affinity, p)) {
    for (const AffinityTerm& t : s.terms->affinity) {
      if (const std::string* value = NodeLabel(labels, t.topology_key)) {
        s.mutable_affinity_counts().Add(t.topology_key, *value, multiplier);
      }
    }
  }
  for (const AffinityTerm& t : s.terms->anti_affinity) {
    if (!t.Matches(p, NoNamespaceLabels())) continue;
    if (const std::string* value = NodeLabel(labels, t.topology_key)) {
      s.mutable_anti_affinity_counts().Add(t.topology_key, *value, multiplier);
    }
  }
}

// `values[i]` is the node's value of s.keys[i] (nullptr: no such label).
bool SatisfiesPodAffinity(const PreFilterState& s, const std::string* const* values) {
  bool pods_exist = true;
  const IncomingRequiredTerms& terms = *s.terms;
  for (size_t j = 0; j < terms.affinity.size(); ++j) {
    const std::string* value = values[terms.affinity_key_slots[j]];
    // Every topology key must be a label of the node.
    if (value == nullptr) return false;
    if (s.affinity_counts().Get(terms.affinity[j].topology_key, *value) <= 0) pods_exist = false;
  }
  if (pods_exist) return true;
  // The first pod of a group whose members attract each other: when no pod
  // in the cluster matches the terms yet and the pod matches them itself,
  // any node with all the topology keys will do.
  return s.affinity_counts().empty() && s.matches_own_affinity;
}

bool SatisfiesPodAntiAffinity(const PreFilterState& s, const std::string* const* values) {
  if (s.anti_affinity_counts().empty()) return true;
  const IncomingRequiredTerms& terms = *s.terms;
  for (size_t j = 0; j < terms.anti_affinity.size(); ++j) {
    const std::string* value = values[terms.anti_affinity_key_slots[j]];
    if (value != nullptr && s.anti_affinity_counts().Get(terms.anti_affinity[j].topology_key, *value) > 0) {
      return false;
    }
  }
  return true;
}

// Whether some existing pod's anti-affinity covers the node: kube looks up
// every node label; only the table's keys can have counts.
bool SatisfiesExistingPodsAntiAffinity(const PreFilterState& s, const std::string* const* values) {
  const PairCounts& existing = s.existing_anti_affinity_counts();
  if (existing.empty()) return true;
  for (size_t i = 0; i < s.keys.size(); ++i) {
    if (values[i] != nullptr && existing.Get(s.keys[i], *values[i]) > 0) return false;
  }
  return true;
}

}  // namespace

std::pair<framework::PreFilterResult, Status> InterPodAffinity::PreFilter(framework::CycleState& cycle_state,
                                                                          const api::Pod& pod,
                                                                          const framework::NodeInfoList& nodes) {
  // Most pods have no pod (anti-)affinity, so nothing to parse, and most
  // snapshots hold no pod with required anti-affinity: then nothing can be
  // counted, and the outcome below is a Skip. Say so before reading the
  // namespace or building any state.
  const auto& affinity = pod.spec.affinity;
  if ((!affinity || (!affinity->pod_affinity && !affinity->pod_anti_affinity)) &&
      handle_.SnapshotSharedLister().NodeInfos().HavePodsWithRequiredAntiAffinityList().empty()) {
    return {framework::PreFilterResult{}, Status(Code::kSkip)};
  }
  auto terms = std::make_shared<IncomingRequiredTerms>();
  util::Status parsed = ParseIncomingTerms(pod, terms.get());
  if (!parsed.ok()) {
    return {framework::PreFilterResult{},
            Status(Code::kUnschedulableAndUnresolvable, "parsing pod: " + parsed.message())};
  }
  for (AffinityTerm& t : terms->affinity) MergeTermNamespaces(t);
  for (AffinityTerm& t : terms->anti_affinity) MergeTermNamespaces(t);

  auto state = std::make_shared<PreFilterState>();
  state->namespace_labels = std::make_shared<const api::StringMap>(NamespaceLabels(pod.metadata.namespace_));
  state->matches_own_affinity = MatchesAllTerms(terms->affinity, pod);
  const api::StringMap& ns_labels = *state->namespace_labels;
  const bool has_terms = !terms->affinity.empty() || !terms->anti_affinity.empty();
  {
    // Both scans cover every node (positions stay stable across cycles);
    // nodes without pods with required anti-affinity add nothing to the
    // first, as in kube's HavePodsWithRequiredAntiAffinityList scan.
    std::lock_guard<std::mutex> l(mu_);
    // Without any pod with required anti-affinity in the snapshot there is
    // nothing to count, and no need to visit every node to find that out.
    if (!handle_.SnapshotSharedLister().NodeInfos().HavePodsWithRequiredAntiAffinityList().empty()) {
      HitCounter& existing = counters_.Get(ExistingAntiAffinitySignature(pod, ns_labels), 1);
      existing.Sync(nodes, handle_.Parallelizer(), [&](const framework::NodeInfo& ni, std::vector<Hit>& out) {
        CollectExistingAntiAffinity(ni, pod, ns_labels, out);
      });
      state->set_existing_anti_affinity_counts(existing.Table(kExistingTable));
    }
    if (has_terms) {
      HitCounter& incoming = counters_.Get(IncomingTermsSignature(*terms), 2);
      incoming.Sync(nodes, handle_.Parallelizer(), [&](const framework::NodeInfo& ni, std::vector<Hit>& out) {
        CollectIncoming(ni, *terms, out);
      });
      state->set_affinity_counts(incoming.Table(kAffinityTable));
      state->set_anti_affinity_counts(incoming.Table(kAntiAffinityTable));
    }
  }

  if (state->existing_anti_affinity_counts().empty() && !has_terms) {
    return {framework::PreFilterResult{}, Status(Code::kSkip)};
  }
  for (const AffinityTerm& t : terms->affinity) terms->affinity_key_slots.push_back(state->KeySlot(t.topology_key));
  for (const AffinityTerm& t : terms->anti_affinity) {
    terms->anti_affinity_key_slots.push_back(state->KeySlot(t.topology_key));
  }
  const PairIndex& existing_index = state->existing_anti_affinity_counts().index();
  for (size_t k = 0; k < existing_index.num_keys(); ++k) state->KeySlot(existing_index.key_at(k));
  state->terms = std::move(terms);
  cycle_state.Write(kPreFilterStateKeySlot, std::move(state));
  return {framework::PreFilterResult{}, Status()};
}

Status InterPodAffinity::AddPod(framework::CycleState& cycle_state, const api::Pod& pod_to_schedule,
                                const framework::PodInfoPtr& pod_info_to_add, const framework::NodeInfo& node_info) {
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  if (node_info.node() != nullptr) UpdateWithPod(*s, pod_to_schedule, *pod_info_to_add, *node_info.node(), 1);
  return Status();
}

Status InterPodAffinity::RemovePod(framework::CycleState& cycle_state, const api::Pod& pod_to_schedule,
                                   const framework::PodInfoPtr& pod_info_to_remove,
                                   const framework::NodeInfo& node_info) {
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  if (node_info.node() != nullptr) UpdateWithPod(*s, pod_to_schedule, *pod_info_to_remove, *node_info.node(), -1);
  return Status();
}

Status InterPodAffinity::Filter(framework::CycleState& cycle_state, const api::Pod& /*pod*/,
                                const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  auto s = cycle_state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  if (s == nullptr) return MissingPreFilterState();
  // Each topology key is looked up once; a handful of keys fit on the
  // stack.
  const api::StringMap& labels = node->metadata.labels;
  constexpr size_t kInlineKeys = 8;
  const std::string* inline_values[kInlineKeys];
  std::vector<const std::string*> more_values;
  const std::string** values = inline_values;
  if (s->keys.size() > kInlineKeys) {
    more_values.resize(s->keys.size());
    values = more_values.data();
  }
  for (size_t i = 0; i < s->keys.size(); ++i) values[i] = NodeLabel(labels, s->keys[i]);

  if (!SatisfiesPodAffinity(*s, values)) {
    static const Status kRejected =
        framework::Rejection(Code::kUnschedulableAndUnresolvable, kErrReasonAffinityRulesNotMatch, kName);
    return kRejected;
  }
  if (!SatisfiesPodAntiAffinity(*s, values)) {
    static const Status kRejected =
        framework::Rejection(Code::kUnschedulable, kErrReasonAntiAffinityRulesNotMatch, kName);
    return kRejected;
  }
  if (!SatisfiesExistingPodsAntiAffinity(*s, values)) {
    static const Status kRejected =
        framework::Rejection(Code::kUnschedulable, kErrReasonExistingAntiAffinityRulesNotMatch, kName);
    return kRejected;
  }
  return Status();
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
