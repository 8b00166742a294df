// Pieces that several plugins' args share, for their codecs: the core/v1
// objects args embed (LabelSelector, NodeAffinity, TopologySpreadConstraint)
// and kube's UtilizationShapePoint, each decoded strictly with positions,
// encoded as v1 JSON, and label names validated as kube's
// metav1validation.ValidateLabelName does.
//
// Thread-safety: pure functions over the given reader.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/errors.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::config {

// kube's config.MaxCustomPriorityScore: the highest score of a shape point.
inline constexpr int32_t kMaxCustomPriorityScore = 10;

// kube's config.UtilizationShapePoint.
struct UtilizationShapePoint {
  int32_t utilization = 0;  // [0, 100]
  int32_t score = 0;        // [0, kMaxCustomPriorityScore]
};

api::LabelSelector DecodeLabelSelector(YamlReader* r, const Value& v);
std::vector<api::NodeSelectorRequirement> DecodeNodeSelectorRequirements(YamlReader* r, const Value& v);
api::NodeSelectorTerm DecodeNodeSelectorTerm(YamlReader* r, const Value& v);
api::NodeSelector DecodeNodeSelector(YamlReader* r, const Value& v);
api::NodeAffinity DecodeNodeAffinity(YamlReader* r, const Value& v);
api::TopologySpreadConstraint DecodeTopologySpreadConstraint(YamlReader* r, const Value& v);
std::vector<UtilizationShapePoint> DecodeShape(YamlReader* r, const Value& v);

nlohmann::ordered_json StringListJson(const std::vector<std::string>& v);
nlohmann::ordered_json LabelSelectorJson(const api::LabelSelector& s);
nlohmann::ordered_json NodeSelectorRequirementsJson(const std::vector<api::NodeSelectorRequirement>& reqs);
nlohmann::ordered_json NodeSelectorTermJson(const api::NodeSelectorTerm& t);
nlohmann::ordered_json NodeAffinityJson(const api::NodeAffinity& a);
nlohmann::ordered_json TopologySpreadConstraintJson(const api::TopologySpreadConstraint& c);
nlohmann::ordered_json ShapeJson(const std::vector<UtilizationShapePoint>& shape);

// Appends an Invalid error at `path` for each way `name` is not a
// qualified label name.
void ValidateLabelName(const std::string& path, const std::string& name, ErrorList* errs);

// kube's validateFunctionShape: at least one point, utilizations strictly
// increasing, each utilization in [0, 100] and score in [0,
// kMaxCustomPriorityScore]; errors at `path`'s points.
void ValidateShape(const std::string& path, const std::vector<UtilizationShapePoint>& shape, ErrorList* errs);

}  // namespace ksched::config
