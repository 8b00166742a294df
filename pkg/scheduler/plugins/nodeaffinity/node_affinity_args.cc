#include "pkg/scheduler/plugins/nodeaffinity/node_affinity_args.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "pkg/config/args_fields.h"
#include "pkg/util/name_validation.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::nodeaffinity {
namespace {

using config::ChildPath;
using config::ErrorList;
using config::IndexPath;
using config::Invalid;
using config::NotSupported;
using config::Quote;
using config::QuoteList;

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, NodeAffinityArgs* a) {
  config::ReadField(m, "addedAffinity",
                    [&](const config::Value& x) { a->added_affinity = config::DecodeNodeAffinity(r, x); });
}

void Encode(const NodeAffinityArgs& a, nlohmann::ordered_json* out) {
  if (a.added_affinity) (*out)["addedAffinity"] = config::NodeAffinityJson(*a.added_affinity);
}

bool ParsesAsInt64(const std::string& s) {
  if (s.empty()) return false;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  errno = 0;
  std::strtoll(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

// labels.NewRequirement, as nodeaffinity.NewNodeSelector calls it.
void ValidateNodeSelectorRequirement(const std::string& p, const api::NodeSelectorRequirement& r, ErrorList* errs) {
  static const std::vector<std::string> kOperators = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  const std::string& op = r.operator_;
  bool known = false;
  for (const std::string& k : kOperators) known = known || k == op;
  if (!known) {
    errs->push_back(NotSupported(ChildPath(p, "operator"), Quote(op), kOperators));
    return;
  }
  for (const std::string& m : util::IsQualifiedName(r.key)) {
    errs->push_back(Invalid(ChildPath(p, "key"), Quote(r.key), m));
  }
  std::string values_path = ChildPath(p, "values");
  if (op == "In" || op == "NotIn") {
    if (r.values.empty()) {
      errs->push_back(
          Invalid(values_path, QuoteList(r.values), "for 'in', 'notin' operators, values set can't be empty"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!r.values.empty()) {
      errs->push_back(
          Invalid(values_path, QuoteList(r.values), "values set must be empty for exists and does not exist"));
    }
  } else {
    if (r.values.size() != 1) {
      errs->push_back(
          Invalid(values_path, QuoteList(r.values), "for 'Gt', 'Lt' operators, exactly one value is required"));
    }
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (!ParsesAsInt64(r.values[i])) {
        errs->push_back(Invalid(IndexPath(values_path, i), Quote(r.values[i]),
                                "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    }
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    for (const std::string& m : util::IsValidLabelValue(r.values[i])) {
      errs->push_back(Invalid(IndexPath(values_path, i), Quote(r.values[i]), m));
    }
  }
}

void ValidateFieldSelectorRequirement(const std::string& p, const api::NodeSelectorRequirement& r, ErrorList* errs) {
  if (r.operator_ == "In" || r.operator_ == "NotIn") {
    if (r.values.size() != 1) {
      errs->push_back(Invalid(ChildPath(p, "values"), QuoteList(r.values), "must have one element"));
    }
    return;
  }
  errs->push_back(NotSupported(ChildPath(p, "operator"), Quote(r.operator_), {"In", "NotIn"}));
}

void ValidateNodeSelectorTerm(const std::string& path, const api::NodeSelectorTerm& t, ErrorList* errs) {
  for (size_t i = 0; i < t.match_expressions.size(); ++i) {
    ValidateNodeSelectorRequirement(IndexPath(ChildPath(path, "matchExpressions"), i), t.match_expressions[i], errs);
  }
  for (size_t i = 0; i < t.match_fields.size(); ++i) {
    ValidateFieldSelectorRequirement(IndexPath(ChildPath(path, "matchFields"), i), t.match_fields[i], errs);
  }
}

bool IsEmptyTerm(const api::NodeSelectorTerm& t) { return t.match_expressions.empty() && t.match_fields.empty(); }

}  // namespace

config::ErrorList ValidateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& a) {
  ErrorList errs;
  if (!a.added_affinity) return errs;
  std::string affinity_path = ChildPath(path, "addedAffinity");
  if (const auto& required = a.added_affinity->required_during_scheduling_ignored_during_execution) {
    std::string terms_path =
        ChildPath(ChildPath(affinity_path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    for (size_t i = 0; i < required->node_selector_terms.size(); ++i) {
      // An empty term selects nothing and is not parsed.
      if (IsEmptyTerm(required->node_selector_terms[i])) continue;
      ValidateNodeSelectorTerm(IndexPath(terms_path, i), required->node_selector_terms[i], &errs);
    }
  }
  const auto& preferred = a.added_affinity->preferred_during_scheduling_ignored_during_execution;
  std::string preferred_path = ChildPath(affinity_path, "preferredDuringSchedulingIgnoredDuringExecution");
  for (size_t i = 0; i < preferred.size(); ++i) {
    // Terms of weight 0 are ignored by the plugin, so are not parsed either.
    if (preferred[i].weight == 0 || IsEmptyTerm(preferred[i].preference)) continue;
    ValidateNodeSelectorTerm(ChildPath(IndexPath(preferred_path, i), "preference"), preferred[i].preference, &errs);
  }
  return errs;
}

const config::ArgsCodec& NodeAffinityArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<NodeAffinityArgs>(
      {"NodeAffinityArgs", &Decode, nullptr, &ValidateNodeAffinityArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::nodeaffinity
