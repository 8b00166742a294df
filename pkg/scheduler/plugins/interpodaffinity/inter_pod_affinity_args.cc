#include "pkg/scheduler/plugins/interpodaffinity/inter_pod_affinity_args.h"

#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

using config::MapReader;
using config::ReadField;
using config::Value;
using config::YamlReader;

void Decode(YamlReader* r, MapReader& m, std::string_view, InterPodAffinityArgs* a) {
  ReadField(m, "hardPodAffinityWeight", [&](const Value& x) { a->hard_pod_affinity_weight = r->Int32(x); });
  ReadField(m, "ignorePreferredTermsOfExistingPods",
            [&](const Value& x) { a->ignore_preferred_terms_of_existing_pods = r->Bool(x).value_or(false); });
}

void SetDefaults(InterPodAffinityArgs* a) {
  if (!a->hard_pod_affinity_weight) a->hard_pod_affinity_weight = 1;
}

void Encode(const InterPodAffinityArgs& a, nlohmann::ordered_json* out) {
  if (a.hard_pod_affinity_weight) (*out)["hardPodAffinityWeight"] = *a.hard_pod_affinity_weight;
  (*out)["ignorePreferredTermsOfExistingPods"] = a.ignore_preferred_terms_of_existing_pods;
}

}  // namespace

config::ErrorList ValidateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& a) {
  config::ErrorList errs;
  int32_t w = a.hard_pod_affinity_weight.value_or(0);
  if (w < 0 || w > 100) {
    errs.push_back(config::Invalid(config::ChildPath(path, "hardPodAffinityWeight"), std::to_string(w),
                                   "not in valid range [0, 100]"));
  }
  return errs;
}

const config::ArgsCodec& InterPodAffinityArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<InterPodAffinityArgs>(
      {"InterPodAffinityArgs", &Decode, &SetDefaults, &ValidateInterPodAffinityArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
