#include "pkg/scheduler/plugins/nodeaffinity/node_affinity.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <variant>

#include "pkg/config/errors.h"
#include "pkg/config/args_as.h"
#include "pkg/scheduler/plugins/helper/normalize_score.h"

namespace ksched::scheduler::plugins::nodeaffinity {

using framework::ActionType;
using framework::QueueingHint;

namespace {

// Interned once: the per-node reads index a slot.
const framework::StateKey kPreFilterStateKeySlot(kPreFilterStateKey);
const framework::StateKey kPreScoreStateKeySlot(kPreScoreStateKey);

constexpr std::string_view kObjectNameField = "metadata.name";

// The pod's nodeSelector and required node affinity, compiled. Immutable
// once written: clones share it.
class PreFilterState final : public framework::StateData, public std::enable_shared_from_this<PreFilterState> {
 public:
  PreFilterState(const api::Pod& pod, uint64_t memo_key)
      : required(pod), memo{framework::NodeMemo::kNodeAffinity, memo_key} {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreFilterState>(shared_from_this());
  }
  const api::RequiredNodeAffinity required;
  // Where Filter keeps its verdicts for pods selecting nodes as this one
  // does (key 0: nowhere).
  const framework::NodeMemoRef memo;
};

// Filter's verdicts as the memo keeps them (0: not known).
enum Verdict : uint8_t { kUnknown = 0, kPasses = 1, kRejectedEnforced = 2, kRejectedPod = 3 };

// Everything of the pod that Filter reads (its nodeSelector and node
// affinity, as the batching signature spells them: equal for pods that
// select alike), as numbers: the length, then the bytes.
std::vector<int64_t> SelectionFingerprint(const api::Pod& pod) {
  std::string spelled = framework::NodeAffinitySignature(pod);
  framework::AppendSignatureString(spelled, framework::StringMapSignature(pod.spec.node_selector));
  std::vector<int64_t> words(1 + (spelled.size() + sizeof(int64_t) - 1) / sizeof(int64_t), 0);
  words[0] = static_cast<int64_t>(spelled.size());
  std::memcpy(words.data() + 1, spelled.data(), spelled.size());
  return words;
}

// The pod's preferred terms, compiled (unset: the pod has none).
class PreScoreState final : public framework::StateData, public std::enable_shared_from_this<PreScoreState> {
 public:
  explicit PreScoreState(std::optional<api::PreferredSchedulingTerms> preferred) : preferred(std::move(preferred)) {}
  std::shared_ptr<framework::StateData> Clone() const override {
    return std::const_pointer_cast<PreScoreState>(shared_from_this());
  }
  const std::optional<api::PreferredSchedulingTerms> preferred;
};

const api::NodeSelector* RequiredSelector(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity) return nullptr;
  const auto& required = affinity->node_affinity->required_during_scheduling_ignored_during_execution;
  return required ? &*required : nullptr;
}

util::StatusOr<std::optional<api::PreferredSchedulingTerms>> PodPreferredTerms(const api::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity || !affinity->node_affinity ||
      affinity->node_affinity->preferred_during_scheduling_ignored_during_execution.empty()) {
    return std::optional<api::PreferredSchedulingTerms>();
  }
  auto terms = api::PreferredSchedulingTerms::Create(
      affinity->node_affinity->preferred_during_scheduling_ignored_during_execution);
  if (!terms.ok()) return terms.status();
  return std::optional<api::PreferredSchedulingTerms>(std::move(terms).value());
}

using NameSet = std::set<std::string, std::less<>>;

// The node names a term pins with "metadata.name In (...)" requirements
// (intersected); unset when the term has none.
std::optional<NameSet> TermNodeNames(const api::NodeSelectorTerm& term) {
  std::optional<NameSet> names;
  for (const api::NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != kObjectNameField || r.operator_ != "In") continue;
    NameSet values(r.values.begin(), r.values.end());
    if (!names) {
      names = std::move(values);
      continue;
    }
    NameSet both;
    std::set_intersection(names->begin(), names->end(), values.begin(), values.end(), std::inserter(both, both.end()),
                          names->key_comp());
    names = std::move(both);
  }
  return names;
}

}  // namespace

NodeAffinity::NodeAffinity(std::optional<api::CompiledNodeSelector> added_node_selector,
                           std::optional<api::PreferredSchedulingTerms> added_preferred_terms,
                           bool enable_queueing_hints)
    : added_node_selector_(std::move(added_node_selector)),
      added_preferred_terms_(std::move(added_preferred_terms)),
      enable_queueing_hints_(enable_queueing_hints) {}

std::pair<framework::PreFilterResult, framework::Status> NodeAffinity::PreFilter(framework::CycleState& state,
                                                                                 const api::Pod& pod,
                                                                                 const framework::NodeInfoList&) {
  const api::NodeSelector* required = RequiredSelector(pod);
  if (required == nullptr && !added_node_selector_ && pod.spec.node_selector.empty()) {
    return {framework::PreFilterResult(), framework::Status(framework::Code::kSkip)};
  }
  const uint64_t memo_key = memo_keys_.KeyFor(SelectionFingerprint(pod));
  state.Write(kPreFilterStateKeySlot, std::make_shared<PreFilterState>(pod, memo_key));
  if (required == nullptr || required->node_selector_terms.empty()) return {framework::PreFilterResult(), {}};

  // Terms are ORed: the pod is confined to named nodes only if every term
  // names some.
  std::optional<NameSet> node_names;
  for (const api::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<NameSet> term_names = TermNodeNames(term);
    if (!term_names) return {framework::PreFilterResult(), {}};
    if (!node_names) node_names.emplace();
    node_names->insert(term_names->begin(), term_names->end());
  }
  if (node_names->empty()) {
    return {framework::PreFilterResult(),
            framework::Status(framework::Code::kUnschedulableAndUnresolvable, std::string(kErrReasonConflict))};
  }
  return {framework::PreFilterResult::Nodes(std::move(*node_names)), {}};
}

framework::Status NodeAffinity::Filter(framework::CycleState& state, const api::Pod& pod,
                                       const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return framework::Status::Error("node not found");
  PreFilterState* s = state.Lookup<PreFilterState>(kPreFilterStateKeySlot);
  uint8_t verdict = s != nullptr ? s->memo.Read(node_info.memo()) : uint8_t{kUnknown};
  if (verdict == kUnknown) {
    if (added_node_selector_ && !added_node_selector_->Match(*node)) {
      verdict = kRejectedEnforced;
    } else {
      // Without PreFilter (disabled in the profile) compile the selector here.
      const bool match = s != nullptr ? s->required.Match(*node) : api::RequiredNodeAffinity(pod).Match(*node);
      verdict = match ? kPasses : kRejectedPod;
    }
    if (s != nullptr) s->memo.Write(node_info.memo(), verdict);
  }
  switch (verdict) {
    case kPasses:
      return framework::Status();
    case kRejectedEnforced: {
      static const framework::Status kRejected =
          framework::Rejection(framework::Code::kUnschedulableAndUnresolvable, kErrReasonEnforced, kName);
      return kRejected;
    }
    default: {
      static const framework::Status kRejected =
          framework::Rejection(framework::Code::kUnschedulableAndUnresolvable, kErrReasonPod, kName);
      return kRejected;
    }
  }
}

framework::Status NodeAffinity::PreScore(framework::CycleState& state, const api::Pod& pod,
                                         const framework::NodeInfoList&) {
  auto preferred = PodPreferredTerms(pod);
  if (!preferred.ok()) return framework::Status::FromError(preferred.status());
  if (!preferred->has_value() && !added_preferred_terms_) return framework::Status(framework::Code::kSkip);
  state.Write(kPreScoreStateKeySlot, std::make_shared<PreScoreState>(std::move(preferred).value()));
  return framework::Status();
}

std::pair<int64_t, framework::Status> NodeAffinity::Score(framework::CycleState& state, const api::Pod& pod,
                                                          const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return {0, framework::Status::Error("node not found")};
  int64_t count = added_preferred_terms_ ? added_preferred_terms_->Score(*node) : 0;
  PreScoreState* s = state.Lookup<PreScoreState>(kPreScoreStateKeySlot);
  if (s != nullptr) {
    if (s->preferred) count += s->preferred->Score(*node);
    return {count, framework::Status()};
  }
  // Without PreScore (disabled in the profile) compile the terms here.
  auto preferred = PodPreferredTerms(pod);
  if (!preferred.ok()) return {0, framework::Status::FromError(preferred.status())};
  if (preferred->has_value()) count += (*preferred)->Score(*node);
  return {count, framework::Status()};
}

framework::Status NodeAffinity::NormalizeScore(framework::CycleState& /*state*/, const api::Pod& /*pod*/,
                                               framework::NodeScoreList& scores) {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
  return framework::Status();
}

util::StatusOr<std::vector<framework::ClusterEventWithHint>> NodeAffinity::EventsToRegister() const {
  // Without hints the queue's node pre-check can swallow a Node/Add, so taint
  // updates are registered too (kubernetes#109437).
  ActionType node_actions = ActionType::kAdd | ActionType::kUpdateNodeLabel;
  if (!enable_queueing_hints_) node_actions |= ActionType::kUpdateNodeTaint;
  std::vector<framework::ClusterEventWithHint> events;
  events.push_back(
      {framework::ClusterEvent(framework::resource::kNode, node_actions),
       [this](const api::Pod& pod, const framework::EventObject& old_obj, const framework::EventObject& new_obj) {
         return IsSchedulableAfterNodeChange(pod, old_obj, new_obj);
       }});
  return events;
}

util::StatusOr<QueueingHint> NodeAffinity::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                        const framework::EventObject& old_obj,
                                                                        const framework::EventObject& new_obj) const {
  const api::Node* original = old_obj.As<api::Node>();
  const api::Node* modified = new_obj.As<api::Node>();
  if (modified == nullptr || (!old_obj.empty() && original == nullptr)) {
    return util::InvalidArgument("NodeAffinity: unexpected objects in a node event: want Nodes");
  }
  if (added_node_selector_ && !added_node_selector_->Match(*modified)) return QueueingHint::kQueueSkip;
  const api::RequiredNodeAffinity required(pod);
  if (!required.Match(*modified)) return QueueingHint::kQueueSkip;
  if (original == nullptr) return QueueingHint::kQueue;
  // An update helps only if the node did not match before.
  return required.Match(*original) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

util::StatusOr<std::unique_ptr<NodeAffinity>> New(const config::PluginArgs& args,
                                                  const framework::FeatureGates& features) {
  util::StatusOr<NodeAffinityArgs> na_args = config::ArgsAs<NodeAffinityArgs>(args);
  if (!na_args.ok()) return na_args.status();

  std::optional<api::CompiledNodeSelector> added_selector;
  std::optional<api::PreferredSchedulingTerms> added_preferred;
  if (na_args->added_affinity) {
    if (const auto& required = na_args->added_affinity->required_during_scheduling_ignored_during_execution) {
      auto compiled = api::CompiledNodeSelector::Create(*required);
      if (!compiled.ok()) {
        return util::InvalidArgument("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: " +
                                     compiled.status().message());
      }
      added_selector = std::move(compiled).value();
    }
    const auto& preferred = na_args->added_affinity->preferred_during_scheduling_ignored_during_execution;
    if (!preferred.empty()) {
      auto compiled = api::PreferredSchedulingTerms::Create(preferred);
      if (!compiled.ok()) {
        return util::InvalidArgument("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: " +
                                     compiled.status().message());
      }
      added_preferred = std::move(compiled).value();
    }
  }
  return std::make_unique<NodeAffinity>(std::move(added_selector), std::move(added_preferred),
                                        features.scheduler_queueing_hints);
}

framework::Status NodeAffinity::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  out.push_back({framework::signer::kNodeAffinity, framework::NodeAffinitySignature(pod)});
  out.push_back({framework::signer::kNodeSelector, framework::StringMapSignature(pod.spec.node_selector)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::nodeaffinity
