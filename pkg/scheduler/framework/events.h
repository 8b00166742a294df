// Turning an object update into the cluster events it amounts to
// (kube-scheduler's PodSchedulingPropertiesChange and
// NodeSchedulingPropertiesChange), so plugins registered for one facet of a
// change (labels, taints, requests, ...) see only updates of that facet.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/cluster_event.h"

namespace ksched::scheduler::framework {

// The events of a pod update, in this order: UpdatePodLabel (labels
// changed), UpdatePodScaleDown (some request removed or reduced),
// UpdatePodSchedulingGatesEliminated (gates went from some to none),
// UpdatePodToleration (toleration count changed),
// UpdatePodGeneratedResourceClaim (status.resourceClaimStatuses changed). The resource is
// AssignedPod when new_pod has a node, else UnschedulablePod. When no facet
// changed, a single generic {resource, Update} event.
std::vector<ClusterEvent> PodSchedulingPropertiesChange(const api::Pod& new_pod, const api::Pod& old_pod);

// The events of a node update, one per changed facet, in this order:
// UpdateNodeTaint (spec.unschedulable became false), UpdateNodeAllocatable,
// UpdateNodeLabel, UpdateNodeTaint (taints), UpdateNodeCondition (the
// status of some condition type; reasons and times ignored),
// UpdateNodeAnnotation. Empty when nothing relevant changed (for example a
// node only becoming unschedulable, or only a heartbeat).
std::vector<ClusterEvent> NodeSchedulingPropertiesChange(const api::Node& new_node, const api::Node& old_node);

}  // namespace ksched::scheduler::framework
