// The scheduler's API calls, adapted from pkg/client to the interfaces its
// parts consume:
//   - RestBindingClient: framework::BindingClient (the DefaultBinder's
//     POST pods/<name>/binding) over client::BindPod, carrying a
//     RestVolumeClient on the same connection (Volumes());
//   - RestVolumeClient: framework::VolumeClient (VolumeBinding's PV/PVC
//     updates) over client::UpdateObject;
//   - RestResourceClaimClient: framework::ResourceClaimClient (the
//     DynamicResources plugin's claim reads, PUTs and status patch), also
//     carried by RestBindingClient (ResourceClaims());
//   - RestApiWriterClient: apiwriter::ApiWriterClient (PodScheduled
//     condition and nominatedNodeName patches, preemption victims'
//     DisruptionTarget patch and DELETE, Events) over
//     client::PatchPodStatus / DeletePod / CreateEvent / PatchEvent;
//
// Thread-safety: all thread-safe (RestClient is).
// Lifetime: the RestClient / wrapped client must outlive the adapters.
#pragma once

#include <string>
#include <string_view>

#include "pkg/client/rest_client.h"
#include "pkg/scheduler/apiwriter/api_writer_client.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/resource_claim_client.h"

namespace ksched::scheduler {

class RestVolumeClient final : public framework::VolumeClient {
 public:
  explicit RestVolumeClient(client::RestClient& client) : client_(client) {}
  util::StatusOr<api::PersistentVolume> UpdatePersistentVolume(const api::PersistentVolume& pv) override;
  util::StatusOr<api::PersistentVolumeClaim> UpdatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) override;

 private:
  client::RestClient& client_;
};

class RestResourceClaimClient final : public framework::ResourceClaimClient {
 public:
  explicit RestResourceClaimClient(client::RestClient& client) : client_(client) {}
  util::StatusOr<api::ResourceClaim> GetResourceClaim(const std::string& ns, const std::string& name) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaim(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> UpdateResourceClaimStatus(const api::ResourceClaim& claim) override;
  util::StatusOr<api::ResourceClaim> RemoveResourceClaimReservation(const std::string& ns, const std::string& name,
                                                                   const std::string& claim_uid,
                                                                   const std::string& pod_uid) override;
  util::StatusOr<api::ResourceClaim> CreateResourceClaim(const api::ResourceClaim& claim) override;
  util::Status DeleteResourceClaim(const std::string& ns, const std::string& name) override;
  util::Status PatchPodExtendedResourceClaimStatus(const std::string& ns, const std::string& name,
                                                   const api::PodExtendedResourceClaimStatus& status) override;

 private:
  client::RestClient& client_;
};

class RestBindingClient final : public framework::BindingClient, public framework::ResourceClaimClientSource {
 public:
  explicit RestBindingClient(client::RestClient& client) : client_(client), volumes_(client), claims_(client) {}
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  framework::VolumeClient* Volumes() override { return &volumes_; }
  framework::ResourceClaimClient* ResourceClaims() override { return &claims_; }

 private:
  client::RestClient& client_;
  RestVolumeClient volumes_;
  RestResourceClaimClient claims_;
};

class RestApiWriterClient final : public apiwriter::ApiWriterClient {
 public:
  explicit RestApiWriterClient(client::RestClient& client) : client_(client) {}

  util::Status PatchPodStatus(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;
  util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override;
  util::Status CreateEvent(const api::Event& event) override;
  util::Status PatchEvent(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;

 private:
  client::RestClient& client_;
};

}  // namespace ksched::scheduler
