#include "pkg/config/validate_pluginargs.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "pkg/config/name_validation.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {
namespace {

constexpr int32_t kMaxCustomPriorityScore = 10;

std::string Int(int64_t v) { return std::to_string(v); }

void Append(ErrorList* out, ErrorList more) {
  for (FieldError& e : more) out->push_back(std::move(e));
}

// metav1validation.ValidateLabelName.
void ValidateLabelName(const std::string& path, const std::string& name, ErrorList* errs) {
  for (const std::string& m : IsQualifiedName(name)) errs->push_back(Invalid(path, Quote(name), m));
}

void ValidateFunctionShape(const std::string& path, const std::vector<UtilizationShapePoint>& shape, ErrorList* errs) {
  if (shape.empty()) {
    errs->push_back(Required(path, "at least one point must be specified"));
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "utilization"), Int(shape[i].utilization),
                              "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const UtilizationShapePoint& p = shape[i];
    if (p.utilization < 0 || p.utilization > 100) {
      errs->push_back(
          Invalid(ChildPath(IndexPath(path, i), "utilization"), Int(p.utilization), "not in valid range [0, 100]"));
    }
    if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "score"), Int(p.score),
                              "not in valid range [0, " + Int(kMaxCustomPriorityScore) + "]"));
    }
  }
}

void ValidateResourceWeights(const std::string& path, const std::vector<ResourceSpec>& resources, ErrorList* errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "weight"), Int(r.weight),
                              "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
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
  for (const std::string& m : IsQualifiedName(r.key)) errs->push_back(Invalid(ChildPath(p, "key"), Quote(r.key), m));
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
    for (const std::string& m : IsValidLabelValue(r.values[i])) {
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

ErrorList ValidateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& a) {
  ErrorList errs;
  int32_t pct = a.min_candidate_nodes_percentage.value_or(0);
  int32_t abs = a.min_candidate_nodes_absolute.value_or(0);
  std::string pct_path = ChildPath(path, "minCandidateNodesPercentage");
  std::string abs_path = ChildPath(path, "minCandidateNodesAbsolute");
  if (pct < 0 || pct > 100) errs.push_back(Invalid(pct_path, Int(pct), "not in valid range [0, 100]"));
  if (abs < 0) errs.push_back(Invalid(abs_path, Int(abs), "not in valid range [0, inf)"));
  if (pct == 0 && abs == 0) {
    errs.push_back(Invalid(pct_path, Int(pct), "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errs.push_back(Invalid(abs_path, Int(abs), "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errs;
}

ErrorList ValidateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& a) {
  ErrorList errs;
  int32_t w = a.hard_pod_affinity_weight.value_or(0);
  if (w < 0 || w > 100) {
    errs.push_back(Invalid(ChildPath(path, "hardPodAffinityWeight"), Int(w), "not in valid range [0, 100]"));
  }
  return errs;
}

ErrorList ValidateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& a) {
  ErrorList errs;
  for (size_t i = 0; i < a.ignored_resources.size(); ++i) {
    ValidateLabelName(IndexPath(ChildPath(path, "ignoredResources"), i), a.ignored_resources[i], &errs);
  }
  for (size_t i = 0; i < a.ignored_resource_groups.size(); ++i) {
    std::string p = IndexPath(ChildPath(path, "ignoredResourceGroups"), i);
    const std::string& group = a.ignored_resource_groups[i];
    if (group.find('/') != std::string::npos) {
      errs.push_back(Invalid(p, Quote(group), "resource group name can't contain '/'"));
    }
    ValidateLabelName(p, group, &errs);
  }
  std::string strategy_path = ChildPath(path, "scoringStrategy");
  if (!a.scoring_strategy) {
    errs.push_back(Required(strategy_path, "ScoringStrategy field is required"));
    return errs;
  }
  const ScoringStrategy& s = *a.scoring_strategy;
  if (s.type != kLeastAllocated && s.type != kMostAllocated && s.type != kRequestedToCapacityRatio) {
    errs.push_back(NotSupported(ChildPath(strategy_path, "type"), Quote(s.type),
                                {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio}));
  }
  ValidateResourceWeights(ChildPath(strategy_path, "resources"), s.resources, &errs);
  std::string ratio_path = ChildPath(strategy_path, "requestedToCapacityRatio");
  if (s.type == kRequestedToCapacityRatio) {
    if (!s.requested_to_capacity_ratio) {
      errs.push_back(Required(ratio_path, "must be specified when type is RequestedToCapacityRatio"));
    } else {
      ValidateFunctionShape(ChildPath(ratio_path, "shape"), s.requested_to_capacity_ratio->shape, &errs);
    }
  } else if (s.requested_to_capacity_ratio) {
    errs.push_back(Forbidden(ratio_path, "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errs;
}

ErrorList ValidateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                      const NodeResourcesBalancedAllocationArgs& a) {
  ErrorList errs;
  std::set<std::string> seen;
  for (size_t i = 0; i < a.resources.size(); ++i) {
    std::string p = IndexPath(ChildPath(path, "resources"), i);
    const ResourceSpec& r = a.resources[i];
    if (!seen.insert(r.name).second) errs.push_back(Duplicate(ChildPath(p, "name"), Quote(r.name)));
    if (r.weight != 1) errs.push_back(Invalid(ChildPath(p, "weight"), Int(r.weight), "must be 1"));
  }
  return errs;
}

ErrorList ValidatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& a) {
  ErrorList errs;
  std::string type_path = ChildPath(path, "defaultingType");
  if (a.defaulting_type != kSystemDefaulting && a.defaulting_type != kListDefaulting) {
    errs.push_back(NotSupported(type_path, Quote(a.defaulting_type), {kSystemDefaulting, kListDefaulting}));
  } else if (a.defaulting_type == kSystemDefaulting && !a.default_constraints.empty()) {
    errs.push_back(Invalid(type_path, Quote(a.defaulting_type), "when .defaultConstraints are not empty"));
  }
  std::string constraints_path = ChildPath(path, "defaultConstraints");
  for (size_t i = 0; i < a.default_constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = a.default_constraints[i];
    std::string p = IndexPath(constraints_path, i);
    if (c.max_skew <= 0)
      errs.push_back(Invalid(ChildPath(p, "maxSkew"), Int(c.max_skew), "not in valid range (0, inf)"));
    if (c.topology_key.empty()) {
      errs.push_back(Required(ChildPath(p, "topologyKey"), "can not be empty"));
    } else {
      ValidateLabelName(ChildPath(p, "topologyKey"), c.topology_key, &errs);
    }
    if (c.when_unsatisfiable.empty()) {
      errs.push_back(Required(ChildPath(p, "whenUnsatisfiable"), "can not be empty"));
    } else if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway") {
      errs.push_back(NotSupported(ChildPath(p, "whenUnsatisfiable"), Quote(c.when_unsatisfiable),
                                  {"DoNotSchedule", "ScheduleAnyway"}));
    }
    if (c.label_selector) {
      errs.push_back(Forbidden(ChildPath(p, "labelSelector"),
                               "constraint must not define a selector, as they deduced for each pod"));
    }
    for (size_t j = 0; j < i; ++j) {
      const api::TopologySpreadConstraint& other = a.default_constraints[j];
      if (other.topology_key == c.topology_key && other.when_unsatisfiable == c.when_unsatisfiable) {
        errs.push_back(Duplicate(p, "{" + c.topology_key + ", " + c.when_unsatisfiable + "}"));
        break;
      }
    }
  }
  return errs;
}

ErrorList ValidateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& a) {
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

ErrorList ValidateVolumeBindingArgs(const std::string& path, const VolumeBindingArgs& a) {
  ErrorList errs;
  int64_t timeout = a.bind_timeout_seconds.value_or(0);
  if (timeout < 0) {
    errs.push_back(Invalid(ChildPath(path, "bindTimeoutSeconds"), Int(timeout),
                           "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  if (a.shape) {
    std::string points = "[";
    for (size_t i = 0; i < a.shape->size(); ++i) {
      if (i > 0) points += ", ";
      points += "{utilization: " + Int((*a.shape)[i].utilization) + ", score: " + Int((*a.shape)[i].score) + "}";
    }
    points += "]";
    errs.push_back(Invalid(ChildPath(path, "shape"), points,
                           "unexpected field `shape`, remove it: ksched does not support the StorageCapacityScoring "
                           "feature"));
  }
  return errs;
}

ErrorList ValidatePluginArgs(const std::string& path, const PluginArgs& args) {
  ErrorList errs;
  if (const auto* a = std::get_if<DefaultPreemptionArgs>(&args)) Append(&errs, ValidateDefaultPreemptionArgs(path, *a));
  if (const auto* a = std::get_if<InterPodAffinityArgs>(&args)) Append(&errs, ValidateInterPodAffinityArgs(path, *a));
  if (const auto* a = std::get_if<NodeResourcesFitArgs>(&args)) Append(&errs, ValidateNodeResourcesFitArgs(path, *a));
  if (const auto* a = std::get_if<NodeResourcesBalancedAllocationArgs>(&args)) {
    Append(&errs, ValidateNodeResourcesBalancedAllocationArgs(path, *a));
  }
  if (const auto* a = std::get_if<PodTopologySpreadArgs>(&args)) Append(&errs, ValidatePodTopologySpreadArgs(path, *a));
  if (const auto* a = std::get_if<NodeAffinityArgs>(&args)) Append(&errs, ValidateNodeAffinityArgs(path, *a));
  if (const auto* a = std::get_if<VolumeBindingArgs>(&args)) Append(&errs, ValidateVolumeBindingArgs(path, *a));
  return errs;
}

}  // namespace ksched::config
