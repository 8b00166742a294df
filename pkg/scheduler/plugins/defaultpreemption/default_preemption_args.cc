#include "pkg/scheduler/plugins/defaultpreemption/default_preemption_args.h"

#include <string>

#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::defaultpreemption {
namespace {

using config::MapReader;
using config::ReadField;
using config::Value;
using config::YamlReader;

std::string Int(int64_t v) { return std::to_string(v); }

void Decode(YamlReader* r, MapReader& m, std::string_view, DefaultPreemptionArgs* a) {
  ReadField(m, "minCandidateNodesPercentage", [&](const Value& x) { a->min_candidate_nodes_percentage = r->Int32(x); });
  ReadField(m, "minCandidateNodesAbsolute", [&](const Value& x) { a->min_candidate_nodes_absolute = r->Int32(x); });
}

void SetDefaults(DefaultPreemptionArgs* a) {
  if (!a->min_candidate_nodes_percentage) a->min_candidate_nodes_percentage = 10;
  if (!a->min_candidate_nodes_absolute) a->min_candidate_nodes_absolute = 100;
}

void Encode(const DefaultPreemptionArgs& a, nlohmann::ordered_json* out) {
  if (a.min_candidate_nodes_percentage) (*out)["minCandidateNodesPercentage"] = *a.min_candidate_nodes_percentage;
  if (a.min_candidate_nodes_absolute) (*out)["minCandidateNodesAbsolute"] = *a.min_candidate_nodes_absolute;
}

}  // namespace

config::ErrorList ValidateDefaultPreemptionArgs(const std::string& path, const DefaultPreemptionArgs& a) {
  config::ErrorList errs;
  int32_t pct = a.min_candidate_nodes_percentage.value_or(0);
  int32_t abs = a.min_candidate_nodes_absolute.value_or(0);
  std::string pct_path = config::ChildPath(path, "minCandidateNodesPercentage");
  std::string abs_path = config::ChildPath(path, "minCandidateNodesAbsolute");
  if (pct < 0 || pct > 100) errs.push_back(config::Invalid(pct_path, Int(pct), "not in valid range [0, 100]"));
  if (abs < 0) errs.push_back(config::Invalid(abs_path, Int(abs), "not in valid range [0, inf)"));
  if (pct == 0 && abs == 0) {
    errs.push_back(
        config::Invalid(pct_path, Int(pct), "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errs.push_back(
        config::Invalid(abs_path, Int(abs), "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errs;
}

const config::ArgsCodec& DefaultPreemptionArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<DefaultPreemptionArgs>(
      {"DefaultPreemptionArgs", &Decode, &SetDefaults, &ValidateDefaultPreemptionArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::defaultpreemption
