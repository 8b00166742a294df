// The scheduler's writing clients behind a util::WritesGate: while the gate
// is open each call goes to the wrapped client; once it is closed every write
// (every call but the claim client's read) fails at once with kCancelled ("writes are closed") and nothing is sent.
// kCancelled is final for the ApiWriter (the write is dropped) and a binding
// error for the binding cycle (the pod goes back to the queue).
//
// Ownership: the wrapped clients and the gate must outlive the wrappers.
// Thread-safety: as thread-safe as the wrapped clients.
#pragma once

#include <optional>
#include <string_view>

#include "pkg/scheduler/apiwriter/api_writer_client.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/resource_claim_client.h"
#include "pkg/util/writes_gate.h"

namespace ksched::scheduler {

class GatedVolumeClient final : public framework::VolumeClient {
 public:
  GatedVolumeClient(framework::VolumeClient& inner, const util::WritesGate& gate) : inner_(inner), gate_(gate) {}
  util::StatusOr<api::PersistentVolume> UpdatePersistentVolume(const api::PersistentVolume& pv) override;
  util::StatusOr<api::PersistentVolumeClaim> UpdatePersistentVolumeClaim(
      const api::PersistentVolumeClaim& pvc) override;

 private:
  framework::VolumeClient& inner_;
  const util::WritesGate& gate_;
};

class GatedResourceClaimClient final : public framework::ResourceClaimClient {
 public:
  GatedResourceClaimClient(framework::ResourceClaimClient& inner, const util::WritesGate& gate)
      : inner_(inner), gate_(gate) {}
  // Reads pass even when the gate is closed.
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
  framework::ResourceClaimClient& inner_;
  const util::WritesGate& gate_;
};

class GatedBindingClient final : public framework::BindingClient, public framework::ResourceClaimClientSource {
 public:
  // `volumes` null: the wrapped client's Volumes(), gated too; `claims`
  // null: the wrapped client's claim calls (framework::
  // ResourceClaimClientSource), if it has them, gated too.
  GatedBindingClient(framework::BindingClient& inner, const util::WritesGate& gate,
                     framework::VolumeClient* volumes = nullptr, framework::ResourceClaimClient* claims = nullptr);
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  framework::VolumeClient* Volumes() override { return volumes_ ? &*volumes_ : nullptr; }
  framework::ResourceClaimClient* ResourceClaims() override { return claims_ ? &*claims_ : nullptr; }

 private:
  framework::BindingClient& inner_;
  const util::WritesGate& gate_;
  std::optional<GatedVolumeClient> volumes_;
  std::optional<GatedResourceClaimClient> claims_;
};

class GatedApiWriterClient final : public apiwriter::ApiWriterClient {
 public:
  GatedApiWriterClient(apiwriter::ApiWriterClient& inner, const util::WritesGate& gate)
      : inner_(inner), gate_(gate) {}
  util::Status PatchPodStatus(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;
  util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override;
  util::Status CreateEvent(const api::Event& event) override;
  util::Status PatchEvent(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;

 private:
  apiwriter::ApiWriterClient& inner_;
  const util::WritesGate& gate_;
};

}  // namespace ksched::scheduler
