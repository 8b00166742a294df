// InterPodAffinityArgs (kubescheduler.config.k8s.io/v1) and its codec:
// hardPodAffinityWeight defaults to 1 and must be in [0, 100].
//
// Thread-safety: a plain value; the codec is immutable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pkg/config/plugin_args.h"

namespace ksched::scheduler::plugins::interpodaffinity {

struct InterPodAffinityArgs {
  static const config::ArgsCodec& Codec();

  std::optional<int32_t> hard_pod_affinity_weight;  // default 1, in [0, 100]
  bool ignore_preferred_terms_of_existing_pods = false;
};

config::ErrorList ValidateInterPodAffinityArgs(const std::string& path, const InterPodAffinityArgs& a);

}  // namespace ksched::scheduler::plugins::interpodaffinity
