#include "test/bench/informer_like_claims.h"

#include <algorithm>

namespace ksched::bench {

namespace {

std::string ClaimRef(const std::string& name) { return "resourceclaims.resource.k8s.io \"" + name + "\""; }

}  // namespace

util::Status InformerLikeClaims::Create(ClaimPtr claim) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto [it, inserted] = stored_.emplace(std::make_pair(claim->metadata.namespace_, claim->metadata.name), claim);
    if (!inserted) {
      return util::Status(util::StatusCode::kAlreadyExists, ClaimRef(claim->metadata.name) + " already exists");
    }
  }
  deliver_(claim);
  return util::Status();
}

util::Status InformerLikeClaims::SetStatus(const std::string& ns, const std::string& name,
                                           const api::ResourceClaimStatus& status) {
  util::StatusOr<ClaimPtr> next = Write(ns, name, "", [&](const api::ResourceClaim&, api::ResourceClaim& n) {
    n.status = status;
    return util::Status();
  }, /*post=*/false);
  if (!next.ok()) return next.status();
  deliver_(*next);
  return util::Status();
}

std::vector<InformerLikeClaims::ClaimPtr> InformerLikeClaims::List() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<ClaimPtr> out;
  out.reserve(stored_.size());
  for (const auto& [key, claim] : stored_) out.push_back(claim);
  return out;
}

util::StatusOr<InformerLikeClaims::ClaimPtr> InformerLikeClaims::Write(const std::string& ns, const std::string& name,
                                                                       const std::string& resource_version,
                                                                       const Change& change, bool post) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = stored_.find({ns, name});
  if (it == stored_.end()) return util::NotFound(ClaimRef(name) + " not found");
  const api::ResourceClaim& stored = *it->second;
  if (!resource_version.empty() && resource_version != stored.metadata.resource_version) {
    return util::Status(util::StatusCode::kConflict,
                        "Operation cannot be fulfilled on " + ClaimRef(name) +
                            ": the object has been modified; please apply your changes to the latest version and "
                            "try again");
  }
  auto next = std::make_shared<api::ResourceClaim>(stored);
  util::Status s = change(stored, *next);
  if (!s.ok()) return s;
  next->metadata.resource_version = std::to_string(++rv_);
  it->second = next;
  ClaimPtr claim = std::move(next);
  // Queued under the lock, so that the informer sees a claim's versions in
  // the order they were stored.
  if (post) post_([this, claim] { deliver_(claim); });
  return claim;
}

util::StatusOr<api::ResourceClaim> InformerLikeClaims::WriteAndPost(const std::string& ns, const std::string& name,
                                                                    const std::string& resource_version,
                                                                    const Change& change) {
  util::StatusOr<ClaimPtr> next = Write(ns, name, resource_version, change, /*post=*/true);
  if (!next.ok()) return next.status();
  return **next;
}

util::StatusOr<api::ResourceClaim> InformerLikeClaims::GetResourceClaim(const std::string& ns,
                                                                        const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = stored_.find({ns, name});
  if (it == stored_.end()) return util::NotFound(ClaimRef(name) + " not found");
  return *it->second;
}

util::StatusOr<api::ResourceClaim> InformerLikeClaims::UpdateResourceClaim(const api::ResourceClaim& claim) {
  return WriteAndPost(claim.metadata.namespace_, claim.metadata.name, claim.metadata.resource_version,
                      [&](const api::ResourceClaim& stored, api::ResourceClaim& next) {
                        next.metadata = claim.metadata;
                        next.metadata.uid = stored.metadata.uid;
                        next.spec = claim.spec;
                        return util::Status();
                      });
}

util::StatusOr<api::ResourceClaim> InformerLikeClaims::UpdateResourceClaimStatus(const api::ResourceClaim& claim) {
  return WriteAndPost(claim.metadata.namespace_, claim.metadata.name, claim.metadata.resource_version,
                      [&](const api::ResourceClaim&, api::ResourceClaim& next) {
                        next.status = claim.status;
                        return util::Status();
                      });
}

util::StatusOr<api::ResourceClaim> InformerLikeClaims::RemoveResourceClaimReservation(const std::string& ns,
                                                                                      const std::string& name,
                                                                                      const std::string& claim_uid,
                                                                                      const std::string& pod_uid) {
  return WriteAndPost(ns, name, "", [&](const api::ResourceClaim& stored, api::ResourceClaim& next) {
    return scheduler::framework::RemoveReservationInMemory(stored, next, claim_uid, pod_uid);
  });
}

}  // namespace ksched::bench
