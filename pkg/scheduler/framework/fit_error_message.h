// The text of a FitError (kube's FitError.Error()), shared by the
// scheduler's FitError and by preemption, which reports its own dry run in
// the same shape after "preemption: ":
//
//   "0/<N> nodes are available:"
//   + " <PreFilter message>."                 when PreFilter rejected the pod
//   + " <histogram>."                         otherwise, if any reason exists
//   + " <PostFilter message>"                 when PostFilter said something
//
// where <histogram> is "<count> <reason>" for every distinct reason (each
// explicit node status contributes each of its reasons once; the
// num_all_nodes - explicit nodes without a status count the absent-nodes
// status's reasons), sorted as strings and joined by ", ".
//
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "pkg/scheduler/framework/cycle_plugins.h"

namespace ksched::scheduler::framework {

std::string FitErrorMessage(int num_all_nodes, const NodeToStatus& node_to_status, std::string_view pre_filter_msg,
                            std::string_view post_filter_msg);

}  // namespace ksched::scheduler::framework
