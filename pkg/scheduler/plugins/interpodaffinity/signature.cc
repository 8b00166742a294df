#include "pkg/scheduler/plugins/interpodaffinity/signature.h"

namespace ksched::scheduler::plugins::interpodaffinity {

namespace {

constexpr char kField = '\x1f';
constexpr char kRecord = '\x1e';

void AppendLabels(std::string& s, const api::StringMap& labels) {
  for (const auto& [k, v] : labels) s.append(k).append("=").append(v).push_back(kField);
  s.push_back(kRecord);
}

void AppendSelector(std::string& s, const api::Selector& selector) {
  // Nothing and Everything both print as "".
  s.append(selector.IsNothing() ? "\x01" : selector.ToString()).push_back(kField);
}

void AppendTerm(std::string& s, const framework::AffinityTerm& t) {
  s.append(t.topology_key).push_back(kField);
  for (const std::string& ns : t.namespaces) s.append(ns).push_back(',');
  s.push_back(kField);
  AppendSelector(s, t.selector);
  AppendSelector(s, t.namespace_selector);
}

void AppendPod(std::string& s, const api::Pod& pod, const api::StringMap& ns_labels) {
  s.append(pod.metadata.namespace_).push_back(kRecord);
  AppendLabels(s, pod.metadata.labels);
  AppendLabels(s, ns_labels);
}

}  // namespace

std::string ExistingAntiAffinitySignature(const api::Pod& pod, const api::StringMap& ns_labels) {
  std::string s = "existing";
  s.push_back(kRecord);
  AppendPod(s, pod, ns_labels);
  return s;
}

std::string IncomingTermsSignature(const IncomingRequiredTerms& terms) {
  std::string s = "incoming";
  s.push_back(kRecord);
  for (const framework::AffinityTerm& t : terms.affinity) AppendTerm(s, t);
  s.push_back(kRecord);
  for (const framework::AffinityTerm& t : terms.anti_affinity) AppendTerm(s, t);
  return s;
}

std::string ScoringSignature(const api::Pod& pod, const api::StringMap& ns_labels,
                             const std::vector<framework::WeightedAffinityTerm>& preferred_affinity,
                             const std::vector<framework::WeightedAffinityTerm>& preferred_anti_affinity,
                             int64_t hard_pod_affinity_weight, bool all_pods) {
  std::string s = "score";
  s.push_back(kRecord);
  AppendPod(s, pod, ns_labels);
  s.append(std::to_string(hard_pod_affinity_weight)).push_back(all_pods ? 'A' : 'a');
  s.push_back(kRecord);
  for (const framework::WeightedAffinityTerm& t : preferred_affinity) {
    s.append(std::to_string(t.weight)).push_back(kField);
    AppendTerm(s, t.term);
  }
  s.push_back(kRecord);
  for (const framework::WeightedAffinityTerm& t : preferred_anti_affinity) {
    s.append(std::to_string(t.weight)).push_back(kField);
    AppendTerm(s, t.term);
  }
  return s;
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
