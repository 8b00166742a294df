// The node features of kube's declared-feature registry
// (k8s.io/component-helpers/nodedeclaredfeatures/features) at each minor,
// kept as data: a feature's name, the minors whose registry lists it, and,
// for the few that a pod's spec can require at scheduling time, the
// inference from the spec.
//
// Thread-safety: immutable data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/types.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {

// The features `pod` needs its node to declare, for the kube-scheduler of
// `minor`, in byte order. Empty for nearly every pod.
std::vector<std::string_view> RequiredFeatures(const api::Pod& pod, int minor);

// Whether every name of `required` (sorted) is among `declared` as kube
// reads a node's status.declaredFeatures: matched against the minor's
// registry by a merge that assumes `declared` sorted (the kubelet writes it
// so), names the registry does not know ignored.
bool Declares(const std::vector<std::string>& declared, const std::vector<std::string_view>& required, int minor);

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
