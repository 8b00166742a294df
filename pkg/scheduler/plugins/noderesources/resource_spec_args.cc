#include "pkg/scheduler/plugins/noderesources/resource_spec_args.h"

namespace ksched::scheduler::plugins::noderesources {

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

void DefaultWeights(std::vector<ResourceSpec>* resources) {
  for (ResourceSpec& r : *resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

std::vector<ResourceSpec> DecodeResources(config::YamlReader* r, const config::Value& v) {
  std::vector<ResourceSpec> out;
  for (const config::Value& item : r->Items(v)) {
    ResourceSpec spec;
    config::MapReader m(r, item);
    config::ReadField(m, "name", [&](const config::Value& x) { spec.name = r->String(x).value_or(""); });
    config::ReadField(m, "weight", [&](const config::Value& x) { spec.weight = r->Int64(x).value_or(0); });
    m.Finish();
    out.push_back(std::move(spec));
  }
  return out;
}

nlohmann::ordered_json ResourcesJson(const std::vector<ResourceSpec>& resources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ResourceSpec& r : resources) {
    nlohmann::ordered_json e = {{"name", r.name}};
    if (r.weight != 0) e["weight"] = r.weight;
    out.push_back(e);
  }
  return out;
}

void ValidateResourceWeights(const std::string& path, const std::vector<ResourceSpec>& resources,
                             config::ErrorList* errs) {
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceSpec& r = resources[i];
    if (r.weight <= 0 || r.weight > 100) {
      errs->push_back(config::Invalid(config::ChildPath(config::IndexPath(path, i), "weight"),
                                      std::to_string(r.weight),
                                      "resource weight of " + r.name + " not in valid range (0, 100]"));
    }
  }
}

}  // namespace ksched::scheduler::plugins::noderesources
