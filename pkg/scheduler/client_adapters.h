// The scheduler's API calls, adapted from pkg/client to the interfaces its
// parts consume:
//   - RestBindingClient: framework::BindingClient (the DefaultBinder's
//     POST pods/<name>/binding) over client::BindPod, carrying a
//     RestVolumeClient on the same connection (Volumes());
//   - RestVolumeClient: framework::VolumeClient (VolumeBinding's PV/PVC
//     updates) over client::UpdateObject;
//   - RestApiWriterClient: apiwriter::ApiWriterClient (PodScheduled
//     condition and nominatedNodeName patches, preemption victims'
//     DisruptionTarget patch and DELETE, Events) over
//     client::PatchPodStatus / DeletePod / CreateEvent / PatchEvent;
//   - ConflictRecordingBindingClient: a BindingClient decorator that
//     remembers which pods' bindings answered 409 Conflict. Bind plugins and
//     the framework turn errors into framework::Status messages, losing the
//     code; the binding cycle asks this decorator instead, so a pod another
//     binder already bound is dropped and never bound twice. Its Volumes()
//     is the one it was given, else the wrapped client's.
//
// Thread-safety: all thread-safe (RestClient is).
// Lifetime: the RestClient / wrapped client must outlive the adapters.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "pkg/client/rest_client.h"
#include "pkg/scheduler/apiwriter/api_writer_client.h"
#include "pkg/scheduler/framework/handle.h"

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

class RestBindingClient final : public framework::BindingClient {
 public:
  explicit RestBindingClient(client::RestClient& client) : client_(client), volumes_(client) {}
  util::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  framework::VolumeClient* Volumes() override { return &volumes_; }

 private:
  client::RestClient& client_;
  RestVolumeClient volumes_;
};

class RestApiWriterClient final : public apiwriter::ApiWriterClient {
 public:
  explicit RestApiWriterClient(client::RestClient& client) : client_(client) {}

  util::Status PatchPodStatus(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;
  util::Status DeletePod(const std::string& ns, const std::string& name, const std::string& uid) override;
  util::StatusOr<api::Event> CreateEvent(const api::Event& event) override;
  util::Status PatchEvent(const std::string& ns, const std::string& name, const nlohmann::json& patch) override;

 private:
  client::RestClient& client_;
};

class ConflictRecordingBindingClient final : public framework::BindingClient {
 public:
  // `volumes` nullptr: the wrapped client's Volumes().
  explicit ConflictRecordingBindingClient(framework::BindingClient& inner, framework::VolumeClient* volumes = nullptr)
      : inner_(inner), volumes_(volumes) {}

  util::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  framework::VolumeClient* Volumes() override { return volumes_ != nullptr ? volumes_ : inner_.Volumes(); }

  // Whether a binding of the pod with `uid` answered Conflict since the last
  // call; clears the record.
  bool TakeConflict(const std::string& uid);

 private:
  framework::BindingClient& inner_;
  framework::VolumeClient* const volumes_;
  std::mutex mu_;
  std::set<std::string, std::less<>> conflicts_;  // guarded by mu_
};

}  // namespace ksched::scheduler
