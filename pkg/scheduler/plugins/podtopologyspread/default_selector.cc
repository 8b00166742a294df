#include "pkg/scheduler/plugins/podtopologyspread/default_selector.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

const api::OwnerReference* ControllerOf(const api::Pod& pod) {
  for (const api::OwnerReference& ref : pod.metadata.owner_references) {
    if (ref.controller.value_or(false)) return &ref;
  }
  return nullptr;
}

// The requirements of a workload's LabelSelector; none when it is unset
// (selects nothing) or invalid.
template <class Workload>
std::vector<api::LabelRequirement> RequirementsOf(const std::shared_ptr<const Workload>& w) {
  if (w == nullptr) return {};
  util::StatusOr<api::Selector> s = api::Selector::FromLabelSelector(w->spec.selector);
  if (!s.ok() || s->IsNothing()) return {};
  return s->requirements();
}

}  // namespace

api::Selector DefaultSelector(const api::Pod& pod, const framework::SharedListers& listers) {
  const std::string& ns = pod.metadata.namespace_;
  api::StringMap label_set;
  for (const std::shared_ptr<const api::Service>& service : listers.Services().List(ns)) {
    // List("") lists every namespace: the pod's namespace must still match.
    if (service->metadata.namespace_ != ns || !service->spec.selector) continue;
    if (!api::Selector::FromSet(*service->spec.selector).Matches(pod.metadata.labels)) continue;
    for (const auto& [k, v] : *service->spec.selector) label_set[k] = v;
  }
  api::Selector selector = api::Selector::FromSet(label_set);

  const api::OwnerReference* owner = ControllerOf(pod);
  if (owner == nullptr) return selector;
  std::vector<api::LabelRequirement> added;
  if (owner->api_version == "v1" && owner->kind == "ReplicationController") {
    std::shared_ptr<const api::ReplicationController> rc = listers.ReplicationControllers().Get(ns, owner->name);
    if (rc != nullptr) {
      for (const auto& [k, v] : rc->spec.selector) label_set[k] = v;
      selector = api::Selector::FromSet(label_set);
    }
  } else if (owner->api_version == "apps/v1" && owner->kind == "ReplicaSet") {
    added = RequirementsOf(listers.ReplicaSets().Get(ns, owner->name));
  } else if (owner->api_version == "apps/v1" && owner->kind == "StatefulSet") {
    added = RequirementsOf(listers.StatefulSets().Get(ns, owner->name));
  }
  for (api::LabelRequirement& r : added) selector = selector.Add(std::move(r));
  return selector;
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
