// DraManager: framework::SharedDRAManager over the scheduler's DRA listers
// and the claim tracker the DynamicResources plugin shares (kube's
// DefaultDRAManager as NodeResourcesFit and BalancedAllocation read it).
//
// GatherDeviceCapacity takes the slices and the allocated state (in-flight
// allocations included) once; the view indexes the slices that name a node
// by that name, so Totals for a node looks only at its own slices and at
// those with allNodes, a nodeSelector or per-device node selection.
// Class selectors compile once per manager (CelCache), and their verdict
// on each device is remembered across cycles, as kube memoizes it.
//
// Ownership: the listers must outlive the manager; views keep what they
// read alive. Thread-safety: as framework::SharedDRAManager.
#pragma once

#include <memory>

#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/shared_dra_manager.h"

namespace ksched::scheduler::dra {

// A manager for `listers`, with the DRA switches of `features` (the CEL
// environment, consumable capacity's shares).
std::shared_ptr<const framework::SharedDRAManager> NewSharedDRAManager(const framework::SharedListers& listers,
                                                                       const framework::FeatureGates& features);

}  // namespace ksched::scheduler::dra
