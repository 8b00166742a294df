// NodeDeclaredFeatures: the Filter plugin that keeps a pod off nodes whose
// kubelet does not declare (node.status.declaredFeatures) a feature the
// pod's spec needs, e.g. a container restart rule "RestartAllContainers"
// (kube's NodeDeclaredFeatures; on by default from 1.36, GA in 1.37). The
// features and what in a spec needs them are kube's registry at the chosen
// minor (feature_registry.h).
//
// PreFilter: Skip unless the gate is on and the pod needs some feature.
// Filter: UnschedulableAndUnresolvable kErrReason when the node lacks one.
// Events: Node/Add|UpdateNodeDeclaredFeature, queueing when the node is new
// or its declared features changed. (kube also registers the pod's own
// updates; the fields that need features are immutable, so its hint skips
// them and ksched does not register them.)
//
// Thread-safety: immutable after construction; safe to call concurrently.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {

inline constexpr std::string_view kName = "NodeDeclaredFeatures";
inline constexpr std::string_view kErrReason = "node(s) didn't match Pod's required features";
inline constexpr std::string_view kPreFilterStateKey = "PreFilterNodeDeclaredFeatures";

class NodeDeclaredFeatures final : public framework::SignPlugin,
                                   public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  // `enabled`: the NodeDeclaredFeatures gate; off, the plugin does nothing.
  NodeDeclaredFeatures(bool enabled, int minor) : enabled_(enabled), minor_(minor) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state, const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);

 private:
  const bool enabled_;
  const int minor_;
};

std::unique_ptr<NodeDeclaredFeatures> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
