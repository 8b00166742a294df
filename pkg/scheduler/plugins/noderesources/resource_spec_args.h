// ResourceSpec (kube's config.ResourceSpec): a resource name and its weight,
// as NodeResourcesFit's scoring strategy and BalancedAllocation list them;
// decoded, encoded and weight-checked for both args codecs.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/config/errors.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::noderesources {

struct ResourceSpec {
  std::string name;
  int64_t weight = 0;  // 0 is defaulted to 1
};

// cpu=1, memory=1.
std::vector<ResourceSpec> DefaultResources();
// Weight 0 becomes 1.
void DefaultWeights(std::vector<ResourceSpec>* resources);

std::vector<ResourceSpec> DecodeResources(config::YamlReader* r, const config::Value& v);
nlohmann::ordered_json ResourcesJson(const std::vector<ResourceSpec>& resources);
// Every weight in (0, 100].
void ValidateResourceWeights(const std::string& path, const std::vector<ResourceSpec>& resources,
                             config::ErrorList* errs);

}  // namespace ksched::scheduler::plugins::noderesources
