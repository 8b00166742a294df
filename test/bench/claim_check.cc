#include "test/bench/claim_check.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace ksched::bench {

namespace {

using DeviceKey = std::tuple<std::string, std::string, std::string>;  // driver, pool, device

std::string Key(const api::ObjectMeta& m) { return m.namespace_ + "/" + m.name; }

std::string DeviceName(const DeviceKey& d) {
  return fmt::format("{}/{}/{}", std::get<0>(d), std::get<1>(d), std::get<2>(d));
}

// The claim the pod's entry names, if any.
std::optional<std::string> ClaimName(const api::Pod& pod, const api::PodResourceClaim& entry) {
  if (entry.resource_claim_name) return entry.resource_claim_name;
  for (const api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
    if (s.name == entry.name) return s.resource_claim_name;
  }
  return std::nullopt;
}

}  // namespace

util::StatusOr<ClaimCheck> CheckClaimAllocations(const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                                 const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                                 const std::vector<std::shared_ptr<const api::ResourceSlice>>& slices) {
  // Where each published device is: its slice's node.
  std::map<DeviceKey, std::string> node_of;
  for (const auto& slice : slices) {
    for (const api::Device& d : slice->spec.devices) {
      node_of[{slice->spec.driver, slice->spec.pool.name, d.name}] = slice->spec.node_name.value_or("");
    }
  }
  ClaimCheck out;
  // Every allocated device once, whoever holds it.
  std::map<DeviceKey, std::string> holder;
  std::map<std::string, const api::ResourceClaim*, std::less<>> by_key;
  for (const auto& claim : claims) {
    by_key[Key(claim->metadata)] = claim.get();
    if (!claim->status.allocation) continue;
    for (const api::DeviceRequestAllocationResult& r : claim->status.allocation->devices.results) {
      if (r.admin_access.value_or(false)) continue;
      const DeviceKey d{r.driver, r.pool, r.device};
      auto [it, inserted] = holder.emplace(d, Key(claim->metadata));
      if (!inserted) {
        return util::Internal(fmt::format("device {} is allocated to claims {} and {}", DeviceName(d), it->second,
                                          Key(claim->metadata)));
      }
    }
  }
  out.devices = static_cast<int64_t>(holder.size());
  for (const auto& pod : pods) {
    if (pod->spec.resource_claims.empty()) continue;
    const std::string pod_key = Key(pod->metadata);
    if (pod->spec.node_name.empty()) return util::Internal("pod " + pod_key + " has claims but no node");
    for (const api::PodResourceClaim& entry : pod->spec.resource_claims) {
      const std::optional<std::string> name = ClaimName(*pod, entry);
      if (!name) return util::Internal(fmt::format("pod {}: claim {} names no ResourceClaim", pod_key, entry.name));
      auto it = by_key.find(pod->metadata.namespace_ + "/" + *name);
      if (it == by_key.end()) return util::Internal(fmt::format("pod {}: ResourceClaim {} not found", pod_key, *name));
      const api::ResourceClaim& claim = *it->second;
      const std::string claim_key = Key(claim.metadata);
      if (!claim.status.allocation || claim.status.allocation->devices.results.empty()) {
        return util::Internal(fmt::format("pod {}: claim {} is not allocated", pod_key, claim_key));
      }
      bool reserved = false;
      for (const api::ResourceClaimConsumerReference& r : claim.status.reserved_for) {
        reserved = reserved || r.uid == pod->metadata.uid;
      }
      if (!reserved) return util::Internal(fmt::format("pod {}: claim {} is not reserved for it", pod_key, claim_key));
      for (const api::DeviceRequestAllocationResult& r : claim.status.allocation->devices.results) {
        const DeviceKey d{r.driver, r.pool, r.device};
        auto at = node_of.find(d);
        if (at == node_of.end()) {
          return util::Internal(fmt::format("pod {}: claim {} holds device {}, which no slice publishes", pod_key,
                                            claim_key, DeviceName(d)));
        }
        if (at->second != pod->spec.node_name) {
          return util::Internal(fmt::format("pod {} on node {}: claim {} holds device {} of node {}", pod_key,
                                            pod->spec.node_name, claim_key, DeviceName(d), at->second));
        }
      }
      ++out.claims;
    }
    ++out.pods;
  }
  return out;
}

}  // namespace ksched::bench
