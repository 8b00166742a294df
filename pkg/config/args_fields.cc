#include "pkg/config/args_fields.h"

#include "pkg/util/name_validation.h"

namespace ksched::config {
namespace {

using Json = nlohmann::ordered_json;

// Label and node selector requirements share their fields.
template <class Requirement>
std::vector<Requirement> DecodeRequirements(YamlReader* r, const Value& v) {
  std::vector<Requirement> out;
  for (const Value& item : r->Items(v)) {
    Requirement req;
    MapReader m(r, item);
    ReadField(m, "key", [&](const Value& x) { req.key = r->String(x).value_or(""); });
    ReadField(m, "operator", [&](const Value& x) { req.operator_ = r->String(x).value_or(""); });
    ReadField(m, "values", [&](const Value& x) { req.values = r->StringList(x); });
    m.Finish();
    out.push_back(std::move(req));
  }
  return out;
}

}  // namespace

api::LabelSelector DecodeLabelSelector(YamlReader* r, const Value& v) {
  api::LabelSelector s;
  MapReader m(r, v);
  ReadField(m, "matchLabels", [&](const Value& x) {
    for (auto& [k, val] : r->StringMap(x)) s.match_labels[k] = val;
  });
  ReadField(m, "matchExpressions",
            [&](const Value& x) { s.match_expressions = DecodeRequirements<api::LabelSelectorRequirement>(r, x); });
  m.Finish();
  return s;
}

std::vector<api::NodeSelectorRequirement> DecodeNodeSelectorRequirements(YamlReader* r, const Value& v) {
  return DecodeRequirements<api::NodeSelectorRequirement>(r, v);
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

Json StringListJson(const std::vector<std::string>& v) {
  Json out = Json::array();
  for (const std::string& s : v) out.push_back(s);
  return out;
}

Json LabelSelectorJson(const api::LabelSelector& s) {
  Json out = Json::object();
  if (!s.match_labels.empty()) {
    Json labels = Json::object();
    for (const auto& [k, v] : s.match_labels) labels[k] = v;
    out["matchLabels"] = labels;
  }
  if (!s.match_expressions.empty()) {
    Json exprs = Json::array();
    for (const api::LabelSelectorRequirement& r : s.match_expressions) {
      Json e = {{"key", r.key}, {"operator", r.operator_}};
      if (!r.values.empty()) e["values"] = StringListJson(r.values);
      exprs.push_back(e);
    }
    out["matchExpressions"] = exprs;
  }
  return out;
}

Json NodeSelectorRequirementsJson(const std::vector<api::NodeSelectorRequirement>& reqs) {
  Json out = Json::array();
  for (const api::NodeSelectorRequirement& r : reqs) {
    Json e = {{"key", r.key}, {"operator", r.operator_}};
    if (!r.values.empty()) e["values"] = StringListJson(r.values);
    out.push_back(e);
  }
  return out;
}

Json NodeSelectorTermJson(const api::NodeSelectorTerm& t) {
  Json out = Json::object();
  if (!t.match_expressions.empty()) out["matchExpressions"] = NodeSelectorRequirementsJson(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = NodeSelectorRequirementsJson(t.match_fields);
  return out;
}

Json NodeAffinityJson(const api::NodeAffinity& a) {
  Json out = Json::object();
  if (a.required_during_scheduling_ignored_during_execution) {
    Json terms = Json::array();
    for (const api::NodeSelectorTerm& t : a.required_during_scheduling_ignored_during_execution->node_selector_terms) {
      terms.push_back(NodeSelectorTermJson(t));
    }
    out["requiredDuringSchedulingIgnoredDuringExecution"] = Json{{"nodeSelectorTerms", terms}};
  }
  if (!a.preferred_during_scheduling_ignored_during_execution.empty()) {
    Json pref = Json::array();
    for (const api::PreferredSchedulingTerm& t : a.preferred_during_scheduling_ignored_during_execution) {
      pref.push_back(Json{{"weight", t.weight}, {"preference", NodeSelectorTermJson(t.preference)}});
    }
    out["preferredDuringSchedulingIgnoredDuringExecution"] = pref;
  }
  return out;
}

Json TopologySpreadConstraintJson(const api::TopologySpreadConstraint& c) {
  Json out = {{"maxSkew", c.max_skew}, {"topologyKey", c.topology_key}, {"whenUnsatisfiable", c.when_unsatisfiable}};
  if (c.label_selector) out["labelSelector"] = LabelSelectorJson(*c.label_selector);
  if (c.min_domains) out["minDomains"] = *c.min_domains;
  if (c.node_affinity_policy) out["nodeAffinityPolicy"] = *c.node_affinity_policy;
  if (c.node_taints_policy) out["nodeTaintsPolicy"] = *c.node_taints_policy;
  if (!c.match_label_keys.empty()) out["matchLabelKeys"] = StringListJson(c.match_label_keys);
  return out;
}

Json ShapeJson(const std::vector<UtilizationShapePoint>& shape) {
  Json out = Json::array();
  for (const UtilizationShapePoint& p : shape) out.push_back(Json{{"utilization", p.utilization}, {"score", p.score}});
  return out;
}

void ValidateLabelName(const std::string& path, const std::string& name, ErrorList* errs) {
  for (const std::string& m : util::IsQualifiedName(name)) errs->push_back(Invalid(path, Quote(name), m));
}

void ValidateShape(const std::string& path, const std::vector<UtilizationShapePoint>& shape, ErrorList* errs) {
  if (shape.empty()) {
    errs->push_back(Required(path, "at least one point must be specified"));
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "utilization"), std::to_string(shape[i].utilization),
                              "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const UtilizationShapePoint& p = shape[i];
    if (p.utilization < 0 || p.utilization > 100) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "utilization"), std::to_string(p.utilization),
                              "not in valid range [0, 100]"));
    }
    if (p.score < 0 || p.score > kMaxCustomPriorityScore) {
      errs->push_back(Invalid(ChildPath(IndexPath(path, i), "score"), std::to_string(p.score),
                              "not in valid range [0, " + std::to_string(kMaxCustomPriorityScore) + "]"));
    }
  }
}

}  // namespace ksched::config
