#include "examples/out-of-tree-plugin/node_label_args.h"

namespace nodelabel {
namespace {

namespace config = ksched::config;

constexpr int64_t kMaxWeight = 100;  // a node score's maximum

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, NodeLabelArgs* a) {
  config::ReadField(m, "labelKey", [&](const config::Value& x) { a->label_key = r->String(x).value_or(""); });
  config::ReadField(m, "weights", [&](const config::Value& x) {
    config::MapReader wm(r, x);
    if (!wm.is_map()) return;
    // Every key is ours: read each one the mapping holds.
    for (auto it = x.node.begin(); it != x.node.end(); ++it) {
      const std::string value = it->first.Scalar();
      if (std::optional<config::Value> w = wm.Get(value)) a->weights[value] = r->Int64(*w).value_or(0);
    }
    wm.Finish();
  });
}

void Encode(const NodeLabelArgs& a, nlohmann::ordered_json* out) {
  (*out)["labelKey"] = a.label_key;
  nlohmann::ordered_json weights = nlohmann::ordered_json::object();
  for (const auto& [value, weight] : a.weights) weights[value] = weight;
  (*out)["weights"] = weights;
}

}  // namespace

config::ErrorList ValidateNodeLabelArgs(const std::string& path, const NodeLabelArgs& a) {
  config::ErrorList errs;
  const std::string key_path = config::ChildPath(path, "labelKey");
  if (a.label_key.empty()) {
    errs.push_back(config::Required(key_path, "the label whose value picks the weight"));
  } else {
    config::ValidateLabelName(key_path, a.label_key, &errs);
  }
  const std::string weights_path = config::ChildPath(path, "weights");
  if (a.weights.empty()) errs.push_back(config::Required(weights_path, "at least one label value and its weight"));
  for (const auto& [value, weight] : a.weights) {
    if (weight < 0 || weight > kMaxWeight) {
      errs.push_back(config::Invalid(config::ChildPath(weights_path, value), std::to_string(weight),
                                     "not in valid range [0, " + std::to_string(kMaxWeight) + "]"));
    }
  }
  return errs;
}

const config::ArgsCodec& NodeLabelArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<NodeLabelArgs>(
      {"NodeLabelArgs", &Decode, nullptr, &ValidateNodeLabelArgs, &Encode});
  return *kCodec;
}

}  // namespace nodelabel
