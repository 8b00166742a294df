// NodePorts: rejects nodes where a host port the pod asks for is already in
// use (kube's NodePorts plugin).
//
// PreFilter collects the pod's host ports (api::PodHostPorts: regular and
// sidecar containers with hostPort > 0) into the CycleState, or returns Skip
// when there are none, so Filter does not run for the common port-less pod.
// Filter checks them against NodeInfo::used_ports() (0.0.0.0 conflicts with
// every address) and rejects with Unschedulable kErrReason: deleting (or
// preempting) the pods holding the ports would help.
//
// Events (kube-scheduler v1.34):
//   Pod/Delete with a hint: Queue only if the deleted pod was assigned or
//     nominated and held a host port this pod wants;
//   Node/Add (hints off: also UpdateNodeTaint|UpdateNodeLabel), no hint.
//
// Thread-safety: immutable after construction; safe to call concurrently.
// Filter allocates nothing on success.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/interface.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::nodeports {

inline constexpr std::string_view kName = "NodePorts";
inline constexpr std::string_view kErrReason = "node(s) didn't have free ports for the requested pod ports";
// The CycleState key of the pod's host ports.
inline constexpr std::string_view kPreFilterStateKey = "PreFilterNodePorts";

// Whether the pod's host ports are free on the node.
bool Fits(const api::Pod& pod, const framework::NodeInfo& node_info);

class NodePorts final : public framework::SignPlugin,
                        public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  explicit NodePorts(bool enable_queueing_hints) : enable_queueing_hints_(enable_queueing_hints) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& state, const api::Pod& pod,
                                                                     const framework::NodeInfoList& nodes) override;
  framework::Status Filter(framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  util::StatusOr<std::vector<framework::ClusterEventWithHint>> EventsToRegister() const override;

  static util::StatusOr<framework::QueueingHint> IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                                              const framework::EventObject& old_obj,
                                                                              const framework::EventObject& new_obj);

 private:
  bool enable_queueing_hints_;
};

std::unique_ptr<NodePorts> New(const framework::FeatureGates& features);

}  // namespace ksched::scheduler::plugins::nodeports
