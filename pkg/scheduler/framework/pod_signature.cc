#include "pkg/scheduler/framework/pod_signature.h"

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "pkg/api/codec.h"
#include "pkg/api/pod_helpers.h"
#include "pkg/util/seconds.h"

namespace ksched::scheduler::framework {

void AppendSignatureString(std::string& out, std::string_view s) {
  out += std::to_string(s.size());
  out += ':';
  out += s;
}

namespace {

std::string RequirementSignature(const api::NodeSelectorRequirement& r) {
  std::vector<std::string> values = r.values;
  std::sort(values.begin(), values.end());
  std::string out;
  AppendSignatureString(out, r.key);
  AppendSignatureString(out, r.operator_);
  for (const std::string& v : values) AppendSignatureString(out, v);
  return out;
}

// Sorted encodings of the requirements, as one string.
std::string RequirementsSignature(const std::vector<api::NodeSelectorRequirement>& reqs) {
  std::vector<std::string> each;
  each.reserve(reqs.size());
  for (const api::NodeSelectorRequirement& r : reqs) each.push_back(RequirementSignature(r));
  std::sort(each.begin(), each.end());
  std::string out = std::to_string(each.size());
  for (const std::string& e : each) AppendSignatureString(out, e);
  return out;
}

std::string TermSignature(const api::NodeSelectorTerm& t) {
  std::string out;
  AppendSignatureString(out, RequirementsSignature(t.match_expressions));
  AppendSignatureString(out, RequirementsSignature(t.match_fields));
  return out;
}

std::string SortedJoin(std::vector<std::string> parts) {
  std::sort(parts.begin(), parts.end());
  std::string out = std::to_string(parts.size());
  for (const std::string& p : parts) AppendSignatureString(out, p);
  return out;
}

}  // namespace

std::string HostPortsSignature(const api::Pod& pod) {
  std::set<int32_t> ports;
  for (const auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *containers) {
      for (const api::ContainerPort& p : c.ports) {
        if (p.host_port != 0) ports.insert(p.host_port);
      }
    }
  }
  std::string out;
  for (int32_t p : ports) {
    out += std::to_string(p);
    out += ',';
  }
  return out;
}

std::string TolerationsSignature(const api::Pod& pod) {
  std::vector<const api::Toleration*> sorted;
  sorted.reserve(pod.spec.tolerations.size());
  for (const api::Toleration& t : pod.spec.tolerations) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](const api::Toleration* a, const api::Toleration* b) {
    return a->key < b->key || (a->key == b->key && a->value < b->value);
  });
  std::string out;
  for (const api::Toleration* t : sorted) {
    AppendSignatureString(out, t->key);
    AppendSignatureString(out, t->operator_);
    AppendSignatureString(out, t->value);
    AppendSignatureString(out, t->effect);
    AppendSignatureString(out, t->toleration_seconds ? std::to_string(*t->toleration_seconds) : "-");
  }
  return out;
}

std::string VolumesSignature(const api::Pod& pod) {
  // The codec's encoding of each source, its name left out: a pod holding
  // only those volumes, encoded once.
  api::Pod only_volumes;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.other_source == "configMap" || v.other_source == "secret") continue;
    only_volumes.spec.volumes.push_back(v);
    only_volumes.spec.volumes.back().name.clear();
  }
  if (only_volumes.spec.volumes.empty()) return "";
  const nlohmann::json encoded = api::ToJson(only_volumes);
  return encoded.at("spec").at("volumes").dump();
}

std::string NodeAffinitySignature(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return "-";
  const api::NodeAffinity& na = *pod.spec.affinity->node_affinity;
  std::vector<std::string> required;
  if (na.required_during_scheduling_ignored_during_execution) {
    for (const api::NodeSelectorTerm& t : na.required_during_scheduling_ignored_during_execution->node_selector_terms) {
      required.push_back(TermSignature(t));
    }
  }
  std::vector<std::string> preferred;
  for (const api::PreferredSchedulingTerm& t : na.preferred_during_scheduling_ignored_during_execution) {
    std::string one = std::to_string(t.weight);
    AppendSignatureString(one, TermSignature(t.preference));
    preferred.push_back(std::move(one));
  }
  std::string out;
  AppendSignatureString(out, SortedJoin(std::move(required)));
  AppendSignatureString(out, SortedJoin(std::move(preferred)));
  return out;
}

std::string StringMapSignature(const api::StringMap& map) {
  std::string out;
  for (const auto& [k, v] : map) {
    AppendSignatureString(out, k);
    AppendSignatureString(out, v);
  }
  return out;
}

std::string ResourceRequestSignature(const Resource& request) {
  std::string out;
  for (int64_t v : {request.milli_cpu, request.memory, request.ephemeral_storage, request.allowed_pod_number}) {
    out += std::to_string(v);
    out += ',';
  }
  for (const auto& [name, quantity] : request.scalar_resources) {
    AppendSignatureString(out, name);
    out += std::to_string(quantity);
    out += ',';
  }
  return out;
}

PodSigner::PodSigner(std::vector<std::pair<std::string_view, const SignPlugin*>> plugins) {
  std::vector<std::string_view> unsupported;
  for (const auto& [name, plugin] : plugins) {
    if (plugin == nullptr) {
      if (std::find(unsupported.begin(), unsupported.end(), name) == unsupported.end()) unsupported.push_back(name);
      continue;
    }
    if (plugin->NeverSigns()) enabled_ = false;
    // An init-capture: C++20 lambdas may not capture a structured binding.
    if (std::find_if(plugins_.begin(), plugins_.end(), [p = plugin](const auto& e) { return e.second == p; }) ==
        plugins_.end()) {
      plugins_.emplace_back(name, plugin);
    }
  }
  if (!enabled_) plugins_.clear();
  if (!unsupported.empty()) {
    enabled_ = false;
    plugins_.clear();
    std::string names;
    for (std::string_view n : unsupported) {
      if (!names.empty()) names += ", ";
      names += n;
    }
    spdlog::info("Disabling signatures for profile because plugins do not support it: {}", names);
  }
}

std::optional<std::string> PodSigner::Sign(const api::Pod& pod, const Metrics* metrics) const {
  if (!enabled_) return std::nullopt;
  // Keyed, so a part several plugins read counts once; ordered, so equal
  // fragments give equal signatures.
  std::map<std::string_view, std::string> parts;
  parts.emplace(signer::kSchedulerName, pod.spec.scheduler_name);
  std::vector<SignFragment> fragments;
  for (const auto& [name, p] : plugins_) {
    fragments.clear();
    const util::TimePoint start = metrics != nullptr ? metrics->clock->Now() : util::TimePoint();
    Status s = p->SignPod(pod, fragments);
    if (metrics != nullptr) {
      metrics->recorder->ObservePluginDuration(extension_point::kSign, name, s.code(),
                                               util::Seconds(metrics->clock->Since(start)));
    }
    if (!s.IsSuccess()) {
      if (s.code() == Code::kError) spdlog::error("SignPod failed for pod {}: {}", api::PodKey(pod), s.Message());
      return std::nullopt;
    }
    for (SignFragment& f : fragments) parts[f.key] = std::move(f.value);
  }
  std::string out;
  for (const auto& [key, value] : parts) {
    AppendSignatureString(out, key);
    AppendSignatureString(out, value);
  }
  return out;
}

}  // namespace ksched::scheduler::framework
