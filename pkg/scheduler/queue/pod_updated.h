// IsPodUpdated: with queueing hints off, did an update of an unschedulable
// pod change anything that could make it schedulable? (kube's
// isPodUpdated.) Compares the pods with resourceVersion, generation,
// finalizers and the whole status blanked.
//
// Thread-safety: a pure function. Cost: encodes both pods; used only on the
// hints-off update path.
#pragma once

#include "pkg/api/types.h"

namespace ksched::scheduler::queue {

bool IsPodUpdated(const api::Pod& old_pod, const api::Pod& new_pod);

}  // namespace ksched::scheduler::queue
