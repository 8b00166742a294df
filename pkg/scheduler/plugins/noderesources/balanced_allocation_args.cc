#include "pkg/scheduler/plugins/noderesources/balanced_allocation_args.h"

#include <set>

namespace ksched::scheduler::plugins::noderesources {
namespace {

void DecodeBalancedAllocationArgs(config::YamlReader* r, config::MapReader& m, std::string_view,
                                  NodeResourcesBalancedAllocationArgs* a) {
  config::ReadField(m, "resources", [&](const config::Value& x) { a->resources = DecodeResources(r, x); });
}

void SetBalancedAllocationArgsDefaults(NodeResourcesBalancedAllocationArgs* a) {
  if (a->resources.empty()) {
    a->resources = DefaultResources();
    return;
  }
  DefaultWeights(&a->resources);
}

void EncodeBalancedAllocationArgs(const NodeResourcesBalancedAllocationArgs& a, nlohmann::ordered_json* out) {
  if (!a.resources.empty()) (*out)["resources"] = ResourcesJson(a.resources);
}

}  // namespace

config::ErrorList ValidateNodeResourcesBalancedAllocationArgs(const std::string& path,
                                                              const NodeResourcesBalancedAllocationArgs& a) {
  config::ErrorList errs;
  std::set<std::string> seen;
  for (size_t i = 0; i < a.resources.size(); ++i) {
    std::string p = config::IndexPath(config::ChildPath(path, "resources"), i);
    const ResourceSpec& r = a.resources[i];
    if (!seen.insert(r.name).second) {
      errs.push_back(config::Duplicate(config::ChildPath(p, "name"), config::Quote(r.name)));
    }
    if (r.weight != 1) {
      errs.push_back(config::Invalid(config::ChildPath(p, "weight"), std::to_string(r.weight), "must be 1"));
    }
  }
  return errs;
}

const config::ArgsCodec& NodeResourcesBalancedAllocationArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<NodeResourcesBalancedAllocationArgs>(
      {"NodeResourcesBalancedAllocationArgs", &DecodeBalancedAllocationArgs, &SetBalancedAllocationArgsDefaults,
       &ValidateNodeResourcesBalancedAllocationArgs, &EncodeBalancedAllocationArgs});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::noderesources
