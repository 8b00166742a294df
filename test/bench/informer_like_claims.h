// InformerLikeClaims: the in-process cluster's ResourceClaims as an API
// server and the claim informer would keep them, and the DynamicResources
// plugin's claim writes (framework::ResourceClaimClient) against them.
//
// The API server's copy of each claim lives here. A write of the
// scheduler's (PreBind's finalizer PUT and status PUT, Unreserve's
// reservedFor patch) is checked and stored at once with the next
// resourceVersion, kube-apiserver's rules: kNotFound when the claim does not
// exist, kConflict when a non-empty resourceVersion is not the stored one;
// an update of the claim keeps the stored status, a status update the
// stored metadata and spec. The informer sees the write later: `post`
// queues `deliver(claim)` on the cluster's delivery thread (the one that
// confirms bindings), which updates the lister and then calls the
// scheduler's handlers, so the plugin's assumed claim is confirmed as in the
// daemon, one ordered stream with the pods.
//
// The harness's own writes (Create, SetStatus: objects of a workload's
// set-up, before any pod uses them) are stored and delivered on the calling
// thread, as the in-process cluster creates pods and nodes.
//
// Thread-safety: every method is thread-safe (binding cycles write
// concurrently). One mutex, never held while delivering; `post` is called
// under it (so deliveries keep the store's order) and must not call back.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/scheduler/framework/resource_claim_client.h"
#include "pkg/util/status.h"

namespace ksched::bench {

class InformerLikeClaims final : public scheduler::framework::ResourceClaimClient {
 public:
  using ClaimPtr = std::shared_ptr<const api::ResourceClaim>;
  using Post = std::function<void(std::function<void()>)>;
  using Deliver = std::function<void(const ClaimPtr& claim)>;

  // `rv` is the cluster's resourceVersion counter (shared with its other
  // objects, so versions only grow).
  InformerLikeClaims(std::atomic<int64_t>& rv, Post post, Deliver deliver)
      : rv_(rv), post_(std::move(post)), deliver_(std::move(deliver)) {}

  // A new claim (decoded, resourceVersion set); kAlreadyExists when taken.
  util::Status Create(ClaimPtr claim);
  // Replaces the stored claim's status (an unconditional status PUT).
  util::Status SetStatus(const std::string& ns, const std::string& name, const api::ResourceClaimStatus& status);
  // The API server's copy of every claim.
  std::vector<ClaimPtr> List() const;

  // ---- framework::ResourceClaimClient
  util::StatusOr<api::ResourceClaim> GetResourceClaim(const std::string& ns, const std::string& name) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaim(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> RemoveResourceClaimReservation(const std::string& ns, const std::string& name,
                                                                    const std::string& claim_uid,
                                                                    const std::string& pod_uid) override;

 private:
  using Change = std::function<util::Status(const api::ResourceClaim& stored, api::ResourceClaim& next)>;
  // Checks the write against the stored claim, lets `change` make the next
  // version from a copy (its error refuses the write) and stores it with a
  // new resourceVersion; with `post`, queues its delivery too.
  util::StatusOr<ClaimPtr> Write(const std::string& ns, const std::string& name, const std::string& resource_version,
                                 const Change& change, bool post);
  // Write, then the informer's delivery through post_.
  util::StatusOr<api::ResourceClaim> WriteAndPost(const std::string& ns, const std::string& name,
                                                  const std::string& resource_version, const Change& change);

  std::atomic<int64_t>& rv_;
  const Post post_;
  const Deliver deliver_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, ClaimPtr> stored_;  // guarded by mu_
};

}  // namespace ksched::bench
