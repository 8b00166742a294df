#include "pkg/config/decode_pluginargs.h"

#include <string>

#include "pkg/config/types.h"

namespace ksched::config {
namespace {

std::vector<api::LabelSelectorRequirement> DecodeLabelSelectorRequirements(YamlReader* r, const Value& v) {
  std::vector<api::LabelSelectorRequirement> out;
  for (const Value& item : r->Items(v)) {
    api::LabelSelectorRequirement req;
    MapReader m(r, item);
    ReadField(m, "key", [&](const Value& x) { req.key = r->String(x).value_or(""); });
    ReadField(m, "operator", [&](const Value& x) { req.operator_ = r->String(x).value_or(""); });
    ReadField(m, "values", [&](const Value& x) { req.values = r->StringList(x); });
    m.Finish();
    out.push_back(std::move(req));
  }
  return out;
}

api::LabelSelector DecodeLabelSelector(YamlReader* r, const Value& v) {
  api::LabelSelector s;
  MapReader m(r, v);
  ReadField(m, "matchLabels", [&](const Value& x) {
    for (auto& [k, val] : r->StringMap(x)) s.match_labels[k] = val;
  });
  ReadField(m, "matchExpressions",
            [&](const Value& x) { s.match_expressions = DecodeLabelSelectorRequirements(r, x); });
  m.Finish();
  return s;
}

std::vector<api::NodeSelectorRequirement> DecodeNodeSelectorRequirements(YamlReader* r, const Value& v) {
  std::vector<api::NodeSelectorRequirement> out;
  for (const Value& item : r->Items(v)) {
    api::NodeSelectorRequirement req;
    MapReader m(r, item);
    ReadField(m, "key", [&](const Value& x) { req.key = r->String(x).value_or(""); });
    ReadField(m, "operator", [&](const Value& x) { req.operator_ = r->String(x).value_or(""); });
    ReadField(m, "values", [&](const Value& x) { req.values = r->StringList(x); });
    m.Finish();
    out.push_back(std::move(req));
  }
  return out;
}

api::NodeSelectorTerm DecodeNodeSelectorTerm(YamlReader* r, const Value& v) {
  api::NodeSelectorTerm t;
  MapReader m(r, v);
  ReadField(m, "matchExpressions", [&](const Value& x) { t.match_expressions = DecodeNodeSelectorRequirements(r, x); });
  ReadField(m, "matchFields", [&](const Value& x) { t.match_fields = DecodeNodeSelectorRequirements(r, x); });
  m.Finish();
  return t;
}

api::NodeSelector DecodeNodeSelector(YamlReader* r, const Value& v) {
  api::NodeSelector s;
  MapReader m(r, v);
  ReadField(m, "nodeSelectorTerms", [&](const Value& x) {
    for (const Value& item : r->Items(x)) s.node_selector_terms.push_back(DecodeNodeSelectorTerm(r, item));
  });
  m.Finish();
  return s;
}

api::NodeAffinity DecodeNodeAffinity(YamlReader* r, const Value& v) {
  api::NodeAffinity a;
  MapReader m(r, v);
  ReadField(m, "requiredDuringSchedulingIgnoredDuringExecution",
            [&](const Value& x) { a.required_during_scheduling_ignored_during_execution = DecodeNodeSelector(r, x); });
  ReadField(m, "preferredDuringSchedulingIgnoredDuringExecution", [&](const Value& x) {
    for (const Value& item : r->Items(x)) {
      api::PreferredSchedulingTerm t;
      MapReader tm(r, item);
      ReadField(tm, "weight", [&](const Value& w) { t.weight = r->Int32(w).value_or(0); });
      ReadField(tm, "preference", [&](const Value& p) { t.preference = DecodeNodeSelectorTerm(r, p); });
      tm.Finish();
      a.preferred_during_scheduling_ignored_during_execution.push_back(std::move(t));
    }
  });
  m.Finish();
  return a;
}

api::TopologySpreadConstraint DecodeTopologySpreadConstraint(YamlReader* r, const Value& v) {
  api::TopologySpreadConstraint c;
  MapReader m(r, v);
  ReadField(m, "maxSkew", [&](const Value& x) { c.max_skew = r->Int32(x).value_or(0); });
  ReadField(m, "topologyKey", [&](const Value& x) { c.topology_key = r->String(x).value_or(""); });
  ReadField(m, "whenUnsatisfiable", [&](const Value& x) { c.when_unsatisfiable = r->String(x).value_or(""); });
  ReadField(m, "labelSelector", [&](const Value& x) { c.label_selector = DecodeLabelSelector(r, x); });
  ReadField(m, "minDomains", [&](const Value& x) { c.min_domains = r->Int32(x); });
  ReadField(m, "nodeAffinityPolicy", [&](const Value& x) { c.node_affinity_policy = r->String(x); });
  ReadField(m, "nodeTaintsPolicy", [&](const Value& x) { c.node_taints_policy = r->String(x); });
  ReadField(m, "matchLabelKeys", [&](const Value& x) { c.match_label_keys = r->StringList(x); });
  m.Finish();
  return c;
}

std::vector<ResourceSpec> DecodeResources(YamlReader* r, const Value& v) {
  std::vector<ResourceSpec> out;
  for (const Value& item : r->Items(v)) {
    ResourceSpec spec;
    MapReader m(r, item);
    ReadField(m, "name", [&](const Value& x) { spec.name = r->String(x).value_or(""); });
    ReadField(m, "weight", [&](const Value& x) { spec.weight = r->Int64(x).value_or(0); });
    m.Finish();
    out.push_back(std::move(spec));
  }
  return out;
}

std::vector<UtilizationShapePoint> DecodeShape(YamlReader* r, const Value& v) {
  std::vector<UtilizationShapePoint> out;
  for (const Value& item : r->Items(v)) {
    UtilizationShapePoint p;
    MapReader m(r, item);
    ReadField(m, "utilization", [&](const Value& x) { p.utilization = r->Int32(x).value_or(0); });
    ReadField(m, "score", [&](const Value& x) { p.score = r->Int32(x).value_or(0); });
    m.Finish();
    out.push_back(p);
  }
  return out;
}

// The optional TypeMeta inside args must name this plugin's args kind in the
// document's group.
void CheckTypeMeta(YamlReader* r, MapReader& m, std::string_view plugin_name, std::string_view api_version) {
  std::string want_kind = std::string(plugin_name) + "Args";
  if (std::optional<Value> v = m.Get("apiVersion")) {
    std::optional<std::string> got = r->String(*v);
    if (got && *got != api_version) {
      r->Fail(ErrorType::kInvalid, v->path, v->pos,
              "Invalid value: " + Quote(*got) + ": args for plugin " + std::string(plugin_name) +
                  " must have apiVersion " + Quote(api_version));
    }
  }
  if (std::optional<Value> v = m.Get("kind")) {
    std::optional<std::string> got = r->String(*v);
    if (got && *got != want_kind) {
      r->Fail(ErrorType::kInvalid, v->path, v->pos,
              "Invalid value: " + Quote(*got) + ": args for plugin " + std::string(plugin_name) + " were not of type " +
                  std::string(kGroupName) + "/" + want_kind + ", got " + std::string(kGroupName) + "/" + *got);
    }
  }
}

template <class T, class F>
PluginArgs DecodeTyped(YamlReader* r, std::string_view plugin_name, std::string_view api_version, const Value& v,
                       F&& fields) {
  T args;
  MapReader m(r, v);
  CheckTypeMeta(r, m, plugin_name, api_version);
  fields(m, args);
  m.Finish();
  return args;
}

}  // namespace

PluginArgs DecodePluginArgs(YamlReader* r, std::string_view plugin_name, std::string_view api_version,
                            const Value& args) {
  if (plugin_name == "DefaultPreemption") {
    return DecodeTyped<DefaultPreemptionArgs>(
        r, plugin_name, api_version, args, [&](MapReader& m, DefaultPreemptionArgs& a) {
          ReadField(m, "minCandidateNodesPercentage",
                    [&](const Value& x) { a.min_candidate_nodes_percentage = r->Int32(x); });
          ReadField(m, "minCandidateNodesAbsolute",
                    [&](const Value& x) { a.min_candidate_nodes_absolute = r->Int32(x); });
        });
  }
  if (plugin_name == "InterPodAffinity") {
    return DecodeTyped<InterPodAffinityArgs>(
        r, plugin_name, api_version, args, [&](MapReader& m, InterPodAffinityArgs& a) {
          ReadField(m, "hardPodAffinityWeight", [&](const Value& x) { a.hard_pod_affinity_weight = r->Int32(x); });
          ReadField(m, "ignorePreferredTermsOfExistingPods",
                    [&](const Value& x) { a.ignore_preferred_terms_of_existing_pods = r->Bool(x).value_or(false); });
        });
  }
  if (plugin_name == "NodeResourcesFit") {
    return DecodeTyped<NodeResourcesFitArgs>(
        r, plugin_name, api_version, args, [&](MapReader& m, NodeResourcesFitArgs& a) {
          ReadField(m, "ignoredResources", [&](const Value& x) { a.ignored_resources = r->StringList(x); });
          ReadField(m, "ignoredResourceGroups", [&](const Value& x) { a.ignored_resource_groups = r->StringList(x); });
          ReadField(m, "scoringStrategy", [&](const Value& x) {
            ScoringStrategy s;
            MapReader sm(r, x);
            ReadField(sm, "type", [&](const Value& t) { s.type = r->String(t).value_or(""); });
            ReadField(sm, "resources", [&](const Value& t) { s.resources = DecodeResources(r, t); });
            ReadField(sm, "requestedToCapacityRatio", [&](const Value& t) {
              RequestedToCapacityRatioParam p;
              MapReader pm(r, t);
              ReadField(pm, "shape", [&](const Value& sh) { p.shape = DecodeShape(r, sh); });
              pm.Finish();
              s.requested_to_capacity_ratio = std::move(p);
            });
            sm.Finish();
            a.scoring_strategy = std::move(s);
          });
        });
  }
  if (plugin_name == "NodeResourcesBalancedAllocation") {
    return DecodeTyped<NodeResourcesBalancedAllocationArgs>(
        r, plugin_name, api_version, args, [&](MapReader& m, NodeResourcesBalancedAllocationArgs& a) {
          ReadField(m, "resources", [&](const Value& x) { a.resources = DecodeResources(r, x); });
        });
  }
  if (plugin_name == "PodTopologySpread") {
    return DecodeTyped<PodTopologySpreadArgs>(
        r, plugin_name, api_version, args, [&](MapReader& m, PodTopologySpreadArgs& a) {
          ReadField(m, "defaultConstraints", [&](const Value& x) {
            for (const Value& item : r->Items(x))
              a.default_constraints.push_back(DecodeTopologySpreadConstraint(r, item));
          });
          ReadField(m, "defaultingType", [&](const Value& x) { a.defaulting_type = r->String(x).value_or(""); });
        });
  }
  if (plugin_name == "NodeAffinity") {
    return DecodeTyped<NodeAffinityArgs>(r, plugin_name, api_version, args, [&](MapReader& m, NodeAffinityArgs& a) {
      ReadField(m, "addedAffinity", [&](const Value& x) { a.added_affinity = DecodeNodeAffinity(r, x); });
    });
  }
  if (plugin_name == "VolumeBinding") {
    return DecodeTyped<VolumeBindingArgs>(r, plugin_name, api_version, args, [&](MapReader& m, VolumeBindingArgs& a) {
      ReadField(m, "bindTimeoutSeconds", [&](const Value& x) { a.bind_timeout_seconds = r->Int64(x); });
      // `shape: []` counts as set (a non-nil empty slice in Go); null does not.
      ReadField(m, "shape", [&](const Value& x) { a.shape = DecodeShape(r, x); });
    });
  }
  // No args type: nothing, `{}` and null are "no args"; anything else is kept
  // for validation to reject.
  if (args.node.IsNull()) return std::monostate{};
  if (!args.node.IsMap()) {
    r->TypeError(args, "a mapping");
    return std::monostate{};
  }
  if (args.node.size() == 0) return std::monostate{};
  return UntypedArgs{NodeToJson(args.node)};
}

}  // namespace ksched::config
