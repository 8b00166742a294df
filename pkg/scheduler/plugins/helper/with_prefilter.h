// WithPreFilter<P>: the Filter plugin P with a PreFilter, as kube 1.37 gave
// NodeName, NodeUnschedulable and TaintToleration one
// (FeatureGates::node_name_prefilter_order). The PreFilter keeps no state:
// it returns P::PreFilterNodes(pod) (which nodes Filter needs to look at)
// with Success, so the framework counts and times it like any PreFilter.
//
// Thread-safety: as P's; PreFilter is a pure function of the pod.
#pragma once

#include <utility>

#include "pkg/scheduler/framework/cycle_plugins.h"

namespace ksched::scheduler::plugins::helper {

template <class P>
class WithPreFilter final : public P, public framework::PreFilterPlugin {
 public:
  using P::P;

  std::pair<framework::PreFilterResult, framework::Status> PreFilter(framework::CycleState& /*state*/,
                                                                     const api::Pod& pod,
                                                                     const framework::NodeInfoList& /*nodes*/) override {
    return {P::PreFilterNodes(pod), framework::Status()};
  }
};

}  // namespace ksched::scheduler::plugins::helper
