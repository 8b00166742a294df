#include "pkg/scheduler/client_adapters.h"

#include <utility>

#include "pkg/client/event_calls.h"
#include "pkg/client/pod_calls.h"
#include "pkg/client/typed.h"

namespace ksched::scheduler {

util::Status RestBindingClient::Bind(const api::Pod& pod, std::string_view node_name) {
  api::Binding binding;
  binding.metadata.namespace_ = pod.metadata.namespace_;
  binding.metadata.name = pod.metadata.name;
  binding.metadata.uid = pod.metadata.uid;
  binding.target.kind = "Node";
  binding.target.name = std::string(node_name);
  return client::BindPod(client_, binding);
}

util::StatusOr<api::PersistentVolume> RestVolumeClient::UpdatePersistentVolume(const api::PersistentVolume& pv) {
  return client::UpdateObject(client_, pv);
}

util::StatusOr<api::PersistentVolumeClaim> RestVolumeClient::UpdatePersistentVolumeClaim(
    const api::PersistentVolumeClaim& pvc) {
  return client::UpdateObject(client_, pvc);
}

util::Status RestApiWriterClient::PatchPodStatus(const std::string& ns, const std::string& name,
                                                 const nlohmann::json& patch) {
  return client::PatchPodStatus(client_, ns, name, patch).status();
}

util::Status RestApiWriterClient::DeletePod(const std::string& ns, const std::string& name, const std::string& uid) {
  client::DeleteOptions options;
  options.precondition_uid = uid;
  return client::DeletePod(client_, ns, name, options);
}

util::StatusOr<api::Event> RestApiWriterClient::CreateEvent(const api::Event& event) {
  return client::CreateEvent(client_, event);
}

util::Status RestApiWriterClient::PatchEvent(const std::string& ns, const std::string& name,
                                             const nlohmann::json& patch) {
  return client::PatchEvent(client_, ns, name, patch).status();
}

util::Status ConflictRecordingBindingClient::Bind(const api::Pod& pod, std::string_view node_name) {
  util::Status s = inner_.Bind(pod, node_name);
  if (s.code() == util::StatusCode::kConflict) {
    std::lock_guard<std::mutex> l(mu_);
    conflicts_.insert(pod.metadata.uid);
  }
  return s;
}

bool ConflictRecordingBindingClient::TakeConflict(const std::string& uid) {
  std::lock_guard<std::mutex> l(mu_);
  return conflicts_.erase(uid) > 0;
}

}  // namespace ksched::scheduler
