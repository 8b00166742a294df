// DefaultBinder: the Bind plugin that POSTs a Binding (pods/<name>/binding)
// through the framework's BindingClient (kube's DefaultBinder).
//
// A failed call is an Error status wrapping the client's util::Status, so the
// binding cycle can tell a conflict (util::StatusCode::kConflict: another
// binder won) from other failures. Without a client (Handle::Client() is
// null) every Bind fails with an Error.
//
// Thread-safety: stateless apart from the Handle; Bind may run concurrently
// for different pods (the client must allow that, see handle.h). The Handle
// must outlive the plugin.
#pragma once

#include <memory>
#include <string_view>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"

namespace ksched::scheduler::plugins::defaultbinder {

inline constexpr std::string_view kName = "DefaultBinder";

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(const framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }
  framework::Status Bind(framework::CycleState& state, const api::Pod& pod, std::string_view node_name) override;

 private:
  const framework::Handle& handle_;
};

std::unique_ptr<DefaultBinder> New(const framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::defaultbinder
