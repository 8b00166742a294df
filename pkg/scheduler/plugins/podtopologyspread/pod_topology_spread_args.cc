#include "pkg/scheduler/plugins/podtopologyspread/pod_topology_spread_args.h"

#include "pkg/config/args_fields.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

using config::ChildPath;
using config::Value;
using Json = nlohmann::ordered_json;

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, PodTopologySpreadArgs* a) {
  config::ReadField(m, "defaultConstraints", [&](const Value& x) {
    for (const Value& item : r->Items(x)) {
      a->default_constraints.push_back(config::DecodeTopologySpreadConstraint(r, item));
    }
  });
  config::ReadField(m, "defaultingType", [&](const Value& x) { a->defaulting_type = r->String(x).value_or(""); });
}

void SetDefaults(PodTopologySpreadArgs* a) {
  if (a->defaulting_type.empty()) a->defaulting_type = kSystemDefaulting;
}

void Encode(const PodTopologySpreadArgs& a, Json* out) {
  if (!a.default_constraints.empty()) {
    Json cs = Json::array();
    for (const api::TopologySpreadConstraint& c : a.default_constraints) {
      cs.push_back(config::TopologySpreadConstraintJson(c));
    }
    (*out)["defaultConstraints"] = cs;
  }
  if (!a.defaulting_type.empty()) (*out)["defaultingType"] = a.defaulting_type;
}

}  // namespace

std::vector<api::TopologySpreadConstraint> SystemDefaultTopologySpreadConstraints() {
  api::TopologySpreadConstraint hostname;
  hostname.max_skew = 3;
  hostname.topology_key = "kubernetes.io/hostname";
  hostname.when_unsatisfiable = "ScheduleAnyway";
  api::TopologySpreadConstraint zone;
  zone.max_skew = 5;
  zone.topology_key = "topology.kubernetes.io/zone";
  zone.when_unsatisfiable = "ScheduleAnyway";
  return {hostname, zone};
}

config::ErrorList ValidatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& a) {
  config::ErrorList errs;
  std::string type_path = ChildPath(path, "defaultingType");
  if (a.defaulting_type != kSystemDefaulting && a.defaulting_type != kListDefaulting) {
    errs.push_back(
        config::NotSupported(type_path, config::Quote(a.defaulting_type), {kSystemDefaulting, kListDefaulting}));
  } else if (a.defaulting_type == kSystemDefaulting && !a.default_constraints.empty()) {
    errs.push_back(
        config::Invalid(type_path, config::Quote(a.defaulting_type), "when .defaultConstraints are not empty"));
  }
  std::string constraints_path = ChildPath(path, "defaultConstraints");
  for (size_t i = 0; i < a.default_constraints.size(); ++i) {
    const api::TopologySpreadConstraint& c = a.default_constraints[i];
    std::string p = config::IndexPath(constraints_path, i);
    if (c.max_skew <= 0) {
      errs.push_back(
          config::Invalid(ChildPath(p, "maxSkew"), std::to_string(c.max_skew), "not in valid range (0, inf)"));
    }
    if (c.topology_key.empty()) {
      errs.push_back(config::Required(ChildPath(p, "topologyKey"), "can not be empty"));
    } else {
      config::ValidateLabelName(ChildPath(p, "topologyKey"), c.topology_key, &errs);
    }
    if (c.when_unsatisfiable.empty()) {
      errs.push_back(config::Required(ChildPath(p, "whenUnsatisfiable"), "can not be empty"));
    } else if (c.when_unsatisfiable != "DoNotSchedule" && c.when_unsatisfiable != "ScheduleAnyway") {
      errs.push_back(config::NotSupported(ChildPath(p, "whenUnsatisfiable"), config::Quote(c.when_unsatisfiable),
                                          {"DoNotSchedule", "ScheduleAnyway"}));
    }
    if (c.label_selector) {
      errs.push_back(config::Forbidden(ChildPath(p, "labelSelector"),
                                       "constraint must not define a selector, as they deduced for each pod"));
    }
    for (size_t j = 0; j < i; ++j) {
      const api::TopologySpreadConstraint& other = a.default_constraints[j];
      if (other.topology_key == c.topology_key && other.when_unsatisfiable == c.when_unsatisfiable) {
        errs.push_back(config::Duplicate(p, "{" + c.topology_key + ", " + c.when_unsatisfiable + "}"));
        break;
      }
    }
  }
  return errs;
}

const config::ArgsCodec& PodTopologySpreadArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<PodTopologySpreadArgs>(
      {"PodTopologySpreadArgs", &Decode, &SetDefaults, &ValidatePodTopologySpreadArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
