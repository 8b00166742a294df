#include "pkg/simulate/claim_release.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>

namespace ksched::simulate {

namespace {

constexpr char kDeleteProtection[] = "resource.kubernetes.io/delete-protection";

std::string NextVersion(const std::string& rv) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) v = 0;
  return std::to_string(v + 1);
}

bool OwnedBy(const api::ResourceClaim& claim, const api::Pod& pod) {
  for (const api::OwnerReference& o : claim.metadata.owner_references) {
    if (o.controller.value_or(false) && o.kind == "Pod" && o.uid == pod.metadata.uid) return true;
  }
  return false;
}

}  // namespace

std::vector<Effects::ClaimUpdate> ReleasePodClaims(
    scheduler::framework::InMemoryLister<api::ResourceClaim>& claims, const api::Pod& pod) {
  std::vector<Effects::ClaimUpdate> out;
  for (const auto& claim : claims.List(pod.metadata.namespace_)) {
    auto& reserved = claim->status.reserved_for;
    auto mine = [&](const api::ResourceClaimConsumerReference& r) { return r.uid == pod.metadata.uid; };
    if (std::none_of(reserved.begin(), reserved.end(), mine)) continue;
    auto next = std::make_shared<api::ResourceClaim>(*claim);
    std::erase_if(next->status.reserved_for, mine);
    auto& finalizers = next->metadata.finalizers;
    const auto protection = std::find(finalizers.begin(), finalizers.end(), kDeleteProtection);
    if (next->status.reserved_for.empty() && protection != finalizers.end()) {
      next->status.allocation.reset();
      finalizers.erase(protection);
    }
    if (next->status.reserved_for.empty() && OwnedBy(*claim, pod)) {
      claims.Delete(claim->metadata.namespace_, claim->metadata.name);
      out.push_back({claim, nullptr});
      continue;
    }
    next->metadata.resource_version = NextVersion(claim->metadata.resource_version);
    claims.Set(next);
    out.push_back({claim, next});
  }
  return out;
}

}  // namespace ksched::simulate
