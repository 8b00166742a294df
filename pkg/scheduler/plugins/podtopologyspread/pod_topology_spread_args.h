// PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1) and its codec:
// defaultingType defaults to "System"; default constraints only with "List",
// each valid and without a labelSelector, as kube validates them.
//
// Thread-safety: plain values; the codec is immutable.
#pragma once

#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::podtopologyspread {

inline constexpr char kSystemDefaulting[] = "System";
inline constexpr char kListDefaulting[] = "List";

struct PodTopologySpreadArgs {
  static const config::ArgsCodec& Codec();

  // Only with defaulting_type "List"; constraints carry no labelSelector.
  std::vector<api::TopologySpreadConstraint> default_constraints;
  std::string defaulting_type;  // default "System"
};

// The constraints kube-scheduler applies under defaultingType "System":
// hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
std::vector<api::TopologySpreadConstraint> SystemDefaultTopologySpreadConstraints();

config::ErrorList ValidatePodTopologySpreadArgs(const std::string& path, const PodTopologySpreadArgs& a);

}  // namespace ksched::scheduler::plugins::podtopologyspread
