// ReleasePodClaims: the part of kube-controller-manager's resource-claim
// controller that `ksched simulate` plays when a pod goes away (a
// preemption victim): every claim of the pod's namespace reserved for it
// loses that reservation; a claim then reserved for nobody that carries
// the resource.kubernetes.io/delete-protection finalizer (the scheduler
// allocated it) is deallocated and loses the finalizer; such a claim that
// the pod owned (generated from a template) is deleted. Each change gets
// the next numeric resourceVersion.
//
// Returns the changes in claim order, already applied to `claims`
// (new_claim nullptr for a deletion), for the caller to deliver as
// ResourceClaim events.
//
// Thread-safety: as the lister's; the caller must not run concurrent claim
// writes (the simulation calls it between scheduling cycles).
// Cost: linear in the namespace's claims.
#pragma once

#include <vector>

#include "pkg/api/resource_types.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/simulate/effects.h"

namespace ksched::simulate {

std::vector<Effects::ClaimUpdate> ReleasePodClaims(
    scheduler::framework::InMemoryLister<api::ResourceClaim>& claims, const api::Pod& pod);

}  // namespace ksched::simulate
