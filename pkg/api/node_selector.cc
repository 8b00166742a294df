#include "pkg/api/node_selector.h"

#include <utility>

namespace ksched::api {
namespace {

constexpr const char* kNodeNameField = "metadata.name";

bool IsEmptyTerm(const NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

std::optional<SelectorOperator> NodeSelectorOperator(const std::string& op) {
  if (op == "In") return SelectorOperator::kIn;
  if (op == "NotIn") return SelectorOperator::kNotIn;
  if (op == "Exists") return SelectorOperator::kExists;
  if (op == "DoesNotExist") return SelectorOperator::kDoesNotExist;
  if (op == "Gt") return SelectorOperator::kGreaterThan;
  if (op == "Lt") return SelectorOperator::kLessThan;
  return std::nullopt;
}

}  // namespace

CompiledNodeSelector::Term CompiledNodeSelector::CompileTerm(const NodeSelectorTerm& term, const std::string& path,
                                                             std::vector<std::string>* errors) {
  Term out;
  const size_t errors_before = errors->size();
  if (!term.match_expressions.empty()) {
    Selector selector;
    for (size_t i = 0; i < term.match_expressions.size(); ++i) {
      const NodeSelectorRequirement& req = term.match_expressions[i];
      const std::string req_path = path + ".matchExpressions[" + std::to_string(i) + "]";
      const auto op = NodeSelectorOperator(req.operator_);
      if (!op) {
        errors->push_back(req_path + ".operator: Unsupported value: \"" + req.operator_ + "\"");
        continue;
      }
      auto r = LabelRequirement::Create(req.key, *op, req.values);
      if (!r.ok()) {
        errors->push_back(req_path + ": " + r.status().message());
        continue;
      }
      selector = selector.Add(std::move(r).value());
    }
    out.labels = std::move(selector);
  }
  if (!term.match_fields.empty()) {
    std::vector<FieldRequirement> fields;
    for (size_t i = 0; i < term.match_fields.size(); ++i) {
      const NodeSelectorRequirement& req = term.match_fields[i];
      const std::string req_path = path + ".matchFields[" + std::to_string(i) + "]";
      if (req.operator_ != "In" && req.operator_ != "NotIn") {
        errors->push_back(req_path + ".operator: Unsupported value: \"" + req.operator_ +
                          "\": supported values: \"In\", \"NotIn\"");
        continue;
      }
      if (req.values.size() != 1) {
        errors->push_back(req_path + ".values: Invalid value: must have one element");
        continue;
      }
      fields.push_back({req.key, req.operator_ == "In", req.values[0]});
    }
    out.fields = std::move(fields);
  }
  out.malformed = errors->size() != errors_before;
  return out;
}

bool CompiledNodeSelector::Term::Match(const Node& node) const {
  if (malformed) return false;
  if (labels && !labels->Matches(node.metadata.labels)) return false;
  // The node's field set holds metadata.name only when the name is set; an
  // empty field set skips the field requirements, as in kube.
  if (fields && !node.metadata.name.empty()) {
    for (const FieldRequirement& f : *fields) {
      const std::string_view actual = f.field == kNodeNameField ? std::string_view(node.metadata.name) : "";
      if ((actual == f.value) != f.equals) return false;
    }
  }
  return true;
}

CompiledNodeSelector::CompiledNodeSelector(const NodeSelector& selector) {
  for (size_t i = 0; i < selector.node_selector_terms.size(); ++i) {
    const NodeSelectorTerm& term = selector.node_selector_terms[i];
    if (IsEmptyTerm(term)) continue;  // selects no node
    terms_.push_back(CompileTerm(term, "nodeSelectorTerms[" + std::to_string(i) + "]", &errors_));
  }
}

util::StatusOr<CompiledNodeSelector> CompiledNodeSelector::Create(const NodeSelector& selector) {
  CompiledNodeSelector compiled(selector);
  if (compiled.errors_.empty()) return compiled;
  std::string msg;
  for (const std::string& e : compiled.errors_) msg += (msg.empty() ? "" : ", ") + e;
  return util::InvalidArgument(msg);
}

bool CompiledNodeSelector::Match(const Node& node) const {
  for (const Term& term : terms_) {
    if (term.Match(node)) return true;
  }
  return false;
}

RequiredNodeAffinity::RequiredNodeAffinity(const Pod& pod) {
  if (!pod.spec.node_selector.empty()) node_selector_ = Selector::FromSet(pod.spec.node_selector);
  const auto& affinity = pod.spec.affinity;
  if (affinity && affinity->node_affinity && affinity->node_affinity->required_during_scheduling_ignored_during_execution) {
    affinity_.emplace(*affinity->node_affinity->required_during_scheduling_ignored_during_execution);
  }
}

bool RequiredNodeAffinity::Match(const Node& node) const {
  if (node_selector_ && !node_selector_->Matches(node.metadata.labels)) return false;
  if (affinity_) return affinity_->Match(node);
  return true;
}

util::StatusOr<PreferredSchedulingTerms> PreferredSchedulingTerms::Create(
    const std::vector<PreferredSchedulingTerm>& terms) {
  PreferredSchedulingTerms out;
  std::vector<std::string> errors;
  for (size_t i = 0; i < terms.size(); ++i) {
    const PreferredSchedulingTerm& term = terms[i];
    if (term.weight == 0 || IsEmptyTerm(term.preference)) continue;
    CompiledNodeSelector::Term compiled =
        CompiledNodeSelector::CompileTerm(term.preference, "preferredSchedulingTerms[" + std::to_string(i) + "]", &errors);
    if (!compiled.malformed) out.terms_.emplace_back(std::move(compiled), term.weight);
  }
  if (!errors.empty()) {
    std::string msg;
    for (const std::string& e : errors) msg += (msg.empty() ? "" : ", ") + e;
    return util::InvalidArgument(msg);
  }
  return out;
}

int64_t PreferredSchedulingTerms::Score(const Node& node) const {
  int64_t score = 0;
  for (const auto& [term, weight] : terms_) {
    if (term.Match(node)) score += weight;
  }
  return score;
}

bool MatchNodeSelectorTerms(const Node& node, const NodeSelector& selector) {
  return CompiledNodeSelector(selector).Match(node);
}

bool PodMatchesNodeSelector(const Pod& pod, const Node& node) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    const auto it = node.metadata.labels.find(key);
    if (it == node.metadata.labels.end() || it->second != value) return false;
  }
  return true;
}

bool PodMatchesNodeSelectorAndAffinityTerms(const Pod& pod, const Node& node) {
  return RequiredNodeAffinity(pod).Match(node);
}

bool MatchTopologySelectorTerms(const std::vector<TopologySelectorTerm>& terms, const StringMap& labels) {
  if (terms.empty()) return true;
  for (const TopologySelectorTerm& term : terms) {
    if (term.match_label_expressions.empty()) continue;  // selects nothing
    bool matched = true;
    for (const TopologySelectorLabelRequirement& req : term.match_label_expressions) {
      auto r = LabelRequirement::Create(req.key, SelectorOperator::kIn, req.values);
      if (!r.ok() || !r->Matches(labels)) {
        matched = false;
        break;
      }
    }
    if (matched) return true;
  }
  return false;
}

}  // namespace ksched::api
