// NodeAffinityArgs (kubescheduler.config.k8s.io/v1) and its codec: no
// defaults; addedAffinity's terms validated as kube's nodeaffinity
// NewNodeSelector would parse them (labels.NewRequirement's rules).
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <optional>
#include <string>

#include "pkg/api/types.h"
#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::nodeaffinity {

struct NodeAffinityArgs {
  static const config::ArgsCodec& Codec();

  std::optional<api::NodeAffinity> added_affinity;
};

config::ErrorList ValidateNodeAffinityArgs(const std::string& path, const NodeAffinityArgs& a);

}  // namespace ksched::scheduler::plugins::nodeaffinity
