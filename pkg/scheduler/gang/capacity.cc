#include "pkg/scheduler/gang/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pkg/scheduler/framework/resource.h"

namespace ksched::scheduler::gang {

namespace {

// The resources of `r` by API name, skipping zeros.
std::map<std::string, int64_t> ByName(const framework::Resource& r) {
  std::map<std::string, int64_t> out;
  auto put = [&out](const std::string& name, int64_t v) {
    if (v != 0) out[name] = v;
  };
  put("cpu", r.milli_cpu);
  put("memory", r.memory);
  put("ephemeral-storage", r.ephemeral_storage);
  put("pods", r.allowed_pod_number);
  for (const auto& [name, v] : r.scalar_resources) put(name, v);
  return out;
}

}  // namespace

std::optional<std::string> CapacityGap(const framework::NodeInfoList& nodes, const GangKey& key,
                                       const GangPolicy& policy, const GangSource& source) {
  framework::Resource want(policy.min_resources);
  want.allowed_pod_number = policy.min_member;
  std::map<std::string, int64_t> missing = ByName(want);
  for (const framework::NodeInfo* node : nodes) {
    if (missing.empty()) break;
    if (node->node() == nullptr) continue;
    framework::Resource used = node->requested();
    int64_t pods = static_cast<int64_t>(node->pods().size());
    for (const auto& pi : node->pods()) {
      const api::Pod& pod = pi->pod();
      if (pod.metadata.namespace_ != key.namespace_) continue;
      auto k = source.KeyOf(pod);
      if (!k || *k != key) continue;
      used.Sub(pi->requests());
      --pods;
    }
    const framework::Resource& alloc = node->allocatable();
    for (auto it = missing.begin(); it != missing.end();) {
      int64_t free = it->first == "pods" ? alloc.allowed_pod_number - pods
                                         : alloc.Get(it->first) - used.Get(it->first);
      it->second -= free;
      it = it->second <= 0 ? missing.erase(it) : std::next(it);
    }
  }
  if (missing.empty()) return std::nullopt;
  std::string gap;
  for (const auto& [name, v] : missing) {
    if (!gap.empty()) gap += ", ";
    gap += name == "cpu" ? fmt::format("cpu {}m", v) : fmt::format("{} {}", name, v);
  }
  return "resource gap: " + gap;
}

}  // namespace ksched::scheduler::gang
