// DefaultSelector: which pods PodTopologySpread's default constraints count
// for a pod without constraints of its own (kube's helper.DefaultSelector).
//
// The selector is the union of
//   - the selectors of the Services of the pod's namespace whose selector
//     matches the pod (a Service without a selector selects nothing), merged
//     as label sets, a later Service's value winning a shared key;
//   - the selector of the pod's controller (the owner reference with
//     controller: true) when it is a v1 ReplicationController (merged into
//     the same label set), or an apps/v1 ReplicaSet or StatefulSet (its
//     requirements added), looked up by name in the pod's namespace.
// A controller that is missing from the listers, of another kind, or with
// an invalid or unset selector contributes nothing. An empty result means
// the pod gets no default constraints.
//
// Thread-safety: reads the listers only (safe for concurrent use).
// Complexity: O(Services of the namespace * selector size) plus one lookup.
#pragma once

#include "pkg/api/labels.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"

namespace ksched::scheduler::plugins::podtopologyspread {

api::Selector DefaultSelector(const api::Pod& pod, const framework::SharedListers& listers);

}  // namespace ksched::scheduler::plugins::podtopologyspread
