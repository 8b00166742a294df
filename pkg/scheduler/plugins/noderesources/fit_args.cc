#include "pkg/scheduler/plugins/noderesources/fit_args.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using config::kMaxCustomPriorityScore;
using config::MapReader;
using config::ReadField;
using config::Value;
using config::YamlReader;
using Json = nlohmann::ordered_json;

void DecodeFitArgs(YamlReader* r, MapReader& m, std::string_view, NodeResourcesFitArgs* a) {
  ReadField(m, "ignoredResources", [&](const Value& x) { a->ignored_resources = r->StringList(x); });
  ReadField(m, "ignoredResourceGroups", [&](const Value& x) { a->ignored_resource_groups = r->StringList(x); });
  ReadField(m, "scoringStrategy", [&](const Value& x) {
    ScoringStrategy s;
    MapReader sm(r, x);
    ReadField(sm, "type", [&](const Value& t) { s.type = r->String(t).value_or(""); });
    ReadField(sm, "resources", [&](const Value& t) { s.resources = DecodeResources(r, t); });
    ReadField(sm, "requestedToCapacityRatio", [&](const Value& t) {
      RequestedToCapacityRatioParam p;
      MapReader pm(r, t);
      ReadField(pm, "shape", [&](const Value& sh) { p.shape = config::DecodeShape(r, sh); });
      pm.Finish();
      s.requested_to_capacity_ratio = std::move(p);
    });
    sm.Finish();
    a->scoring_strategy = std::move(s);
  });
}

void SetFitArgsDefaults(NodeResourcesFitArgs* a) {
  if (!a->scoring_strategy) a->scoring_strategy = ScoringStrategy{kLeastAllocated, DefaultResources(), std::nullopt};
  if (a->scoring_strategy->resources.empty()) a->scoring_strategy->resources = DefaultResources();
  DefaultWeights(&a->scoring_strategy->resources);
}

void EncodeFitArgs(const NodeResourcesFitArgs& a, Json* out) {
  if (!a.ignored_resources.empty()) (*out)["ignoredResources"] = config::StringListJson(a.ignored_resources);
  if (!a.ignored_resource_groups.empty()) {
    (*out)["ignoredResourceGroups"] = config::StringListJson(a.ignored_resource_groups);
  }
  if (!a.scoring_strategy) return;
  const ScoringStrategy& s = *a.scoring_strategy;
  Json strategy = Json::object();
  if (!s.type.empty()) strategy["type"] = s.type;
  if (!s.resources.empty()) strategy["resources"] = ResourcesJson(s.resources);
  if (s.requested_to_capacity_ratio) {
    Json ratio = Json::object();
    if (!s.requested_to_capacity_ratio->shape.empty()) {
      ratio["shape"] = config::ShapeJson(s.requested_to_capacity_ratio->shape);
    }
    strategy["requestedToCapacityRatio"] = ratio;
  }
  (*out)["scoringStrategy"] = strategy;
}

}  // namespace

config::ErrorList ValidateNodeResourcesFitArgs(const std::string& path, const NodeResourcesFitArgs& a) {
  config::ErrorList errs;
  for (size_t i = 0; i < a.ignored_resources.size(); ++i) {
    config::ValidateLabelName(config::IndexPath(config::ChildPath(path, "ignoredResources"), i), a.ignored_resources[i],
                              &errs);
  }
  for (size_t i = 0; i < a.ignored_resource_groups.size(); ++i) {
    std::string p = config::IndexPath(config::ChildPath(path, "ignoredResourceGroups"), i);
    const std::string& group = a.ignored_resource_groups[i];
    if (group.find('/') != std::string::npos) {
      errs.push_back(config::Invalid(p, config::Quote(group), "resource group name can't contain '/'"));
    }
    config::ValidateLabelName(p, group, &errs);
  }
  std::string strategy_path = config::ChildPath(path, "scoringStrategy");
  if (!a.scoring_strategy) {
    errs.push_back(config::Required(strategy_path, "ScoringStrategy field is required"));
    return errs;
  }
  const ScoringStrategy& s = *a.scoring_strategy;
  if (s.type != kLeastAllocated && s.type != kMostAllocated && s.type != kRequestedToCapacityRatio) {
    errs.push_back(config::NotSupported(config::ChildPath(strategy_path, "type"), config::Quote(s.type),
                                        {kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio}));
  }
  ValidateResourceWeights(config::ChildPath(strategy_path, "resources"), s.resources, &errs);
  std::string ratio_path = config::ChildPath(strategy_path, "requestedToCapacityRatio");
  if (s.type == kRequestedToCapacityRatio) {
    if (!s.requested_to_capacity_ratio) {
      errs.push_back(config::Required(ratio_path, "must be specified when type is RequestedToCapacityRatio"));
    } else {
      config::ValidateShape(config::ChildPath(ratio_path, "shape"), s.requested_to_capacity_ratio->shape, &errs);
    }
  } else if (s.requested_to_capacity_ratio) {
    errs.push_back(config::Forbidden(ratio_path, "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errs;
}

const config::ArgsCodec& NodeResourcesFitArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<NodeResourcesFitArgs>(
      {"NodeResourcesFitArgs", &DecodeFitArgs, &SetFitArgsDefaults, &ValidateNodeResourcesFitArgs, &EncodeFitArgs});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::noderesources
