#include "pkg/scheduler/plugins/defaultbinder/default_binder.h"

#include "pkg/log/log.h"

namespace ksched::scheduler::plugins::defaultbinder {

framework::Status DefaultBinder::Bind(framework::CycleState& /*state*/, const api::Pod& pod,
                                      std::string_view node_name) {
  framework::BindingClient* client = handle_.Client();
  if (client == nullptr) return framework::Status::Error("DefaultBinder: no API client to bind with");
  KLOG_V(3, "Attempting to bind {} to {}", api::KeyOf(pod.metadata), node_name);
  util::Status s = client->Bind(pod, node_name);
  if (!s.ok()) return framework::Status::FromError(std::move(s));
  return framework::Status();
}

std::unique_ptr<DefaultBinder> New(const framework::Handle& handle) { return std::make_unique<DefaultBinder>(handle); }

}  // namespace ksched::scheduler::plugins::defaultbinder
