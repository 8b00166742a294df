#include "pkg/scheduler/plugins/podtopologyspread/constraint.h"

#include <utility>

#include "pkg/api/taints.h"
#include "pkg/scheduler/plugins/podtopologyspread/default_selector.h"

namespace ksched::scheduler::plugins::podtopologyspread {

bool Constraint::Selects(const api::Pod& pod) const { return selector.Matches(pod.metadata.labels); }

NodeInclusion::NodeInclusion(const api::Pod& pod) : affinity_(pod), tolerations_(pod.spec.tolerations) {}

bool NodeInclusion::Includes(const Constraint& c, const api::Node& node) const {
  // Parsing errors of the node affinity make it not match, as in kube.
  if (c.honor_node_affinity && !affinity_.Match(node)) return false;
  if (c.honor_node_taints &&
      api::FindMatchingUntoleratedTaint(node.spec.taints, tolerations_, api::IsNoScheduleOrNoExecute) != nullptr) {
    return false;
  }
  return true;
}

bool NodeHasAllTopologyKeys(const api::StringMap& node_labels, const std::vector<Constraint>& constraints) {
  for (const Constraint& c : constraints) {
    if (node_labels.find(c.topology_key) == node_labels.end()) return false;
  }
  return true;
}

bool AnySelects(const std::vector<Constraint>& constraints, const api::Pod& pod) {
  for (const Constraint& c : constraints) {
    if (c.Selects(pod)) return true;
  }
  return false;
}

util::StatusOr<std::vector<Constraint>> CompileConstraints(const std::vector<api::TopologySpreadConstraint>& specs,
                                                           const api::StringMap& pod_labels, std::string_view action) {
  std::vector<Constraint> out;
  for (const api::TopologySpreadConstraint& spec : specs) {
    if (spec.when_unsatisfiable != action) continue;
    util::StatusOr<api::Selector> selector = api::Selector::FromLabelSelector(spec.label_selector);
    if (!selector.ok()) return selector.status();
    Constraint c;
    c.selector = std::move(selector).value();
    // matchLabelKeys: the pod's own values of those keys join the selector,
    // so e.g. each Deployment revision spreads on its own. A selector that
    // matches nothing stays that way.
    if (!spec.match_label_keys.empty() && !c.selector.IsNothing()) {
      api::StringMap match;
      for (const std::string& key : spec.match_label_keys) {
        auto it = pod_labels.find(key);
        if (it != pod_labels.end()) match[key] = it->second;
      }
      if (!match.empty()) {
        api::Selector merged = api::Selector::FromSet(match);
        for (const api::LabelRequirement& r : c.selector.requirements()) merged = merged.Add(r);
        c.selector = std::move(merged);
      }
    }
    c.max_skew = spec.max_skew;
    c.topology_key = spec.topology_key;
    c.min_domains = spec.min_domains.value_or(1);
    c.honor_node_affinity = spec.node_affinity_policy.value_or(std::string(kPolicyHonor)) == kPolicyHonor;
    c.honor_node_taints = spec.node_taints_policy.value_or(std::string(kPolicyIgnore)) == kPolicyHonor;
    out.push_back(std::move(c));
  }
  return out;
}

util::StatusOr<std::vector<Constraint>> PodConstraints(const api::Pod& pod, std::string_view action,
                                                       const std::vector<api::TopologySpreadConstraint>& defaults,
                                                       const framework::SharedListers& listers) {
  if (!pod.spec.topology_spread_constraints.empty()) {
    return CompileConstraints(pod.spec.topology_spread_constraints, pod.metadata.labels, action);
  }
  util::StatusOr<std::vector<Constraint>> compiled = CompileConstraints(defaults, pod.metadata.labels, action);
  // The listers are read only when some default applies to `action`.
  if (!compiled.ok() || compiled->empty()) return compiled;
  api::Selector selector = DefaultSelector(pod, listers);
  if (selector.Empty()) return std::vector<Constraint>{};
  for (Constraint& c : *compiled) c.selector = selector;
  return compiled;
}

namespace {

constexpr char kField = '\x1f';
constexpr char kRecord = '\x1e';

void AppendRequirements(std::string& s, const std::vector<api::NodeSelectorRequirement>& reqs) {
  for (const api::NodeSelectorRequirement& r : reqs) {
    s.append(r.key).push_back(kField);
    s.append(r.operator_).push_back(kField);
    for (const std::string& v : r.values) s.append(v).push_back(',');
    s.push_back(kField);
  }
}

}  // namespace

std::string CountingSignature(const api::Pod& pod, const std::vector<Constraint>& constraints, std::string_view tag) {
  std::string s(tag);
  s.push_back(kRecord);
  s.append(pod.metadata.namespace_);
  bool affinity = false;
  bool taints = false;
  for (const Constraint& c : constraints) {
    s.push_back(kRecord);
    s.append(c.topology_key).push_back(kField);
    // Nothing and Everything both print as "".
    s.append(c.selector.IsNothing() ? "\x01" : c.selector.ToString()).push_back(kField);
    s.push_back(c.honor_node_affinity ? 'A' : 'a');
    s.push_back(c.honor_node_taints ? 'T' : 't');
    affinity = affinity || c.honor_node_affinity;
    taints = taints || c.honor_node_taints;
  }
  if (affinity) {
    s.push_back(kRecord);
    for (const auto& [k, v] : pod.spec.node_selector) s.append(k).append("=").append(v).push_back(kField);
    const auto& a = pod.spec.affinity;
    if (a && a->node_affinity && a->node_affinity->required_during_scheduling_ignored_during_execution) {
      s.push_back('R');  // a required affinity without terms matches nothing
      for (const api::NodeSelectorTerm& term :
           a->node_affinity->required_during_scheduling_ignored_during_execution->node_selector_terms) {
        s.append("|e");
        AppendRequirements(s, term.match_expressions);
        s.append("|f");
        AppendRequirements(s, term.match_fields);
      }
    }
  }
  if (taints) {
    s.push_back(kRecord);
    for (const api::Toleration& t : pod.spec.tolerations) {
      s.append(t.key).push_back(kField);
      s.append(t.operator_).push_back(kField);
      s.append(t.value).push_back(kField);
      s.append(t.effect).push_back(kRecord);
    }
  }
  return s;
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
