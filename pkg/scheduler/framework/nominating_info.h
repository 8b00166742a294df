// NominatingInfo: what a scheduling attempt says about the pod's nominated
// node (kube's fwk.NominatingInfo).
//
// kNoop keeps whatever the pod's status.nominatedNodeName says; kOverride
// replaces the in-memory nomination with `nominated_node_name` ("" clears
// it). A missing NominatingInfo (nullptr) means kNoop.
//
// Thread-safety: a value type.
#pragma once

#include <string>

namespace ksched::scheduler::framework {

enum class NominatingMode { kNoop, kOverride };

struct NominatingInfo {
  NominatingMode mode = NominatingMode::kNoop;
  std::string nominated_node_name;
};

}  // namespace ksched::scheduler::framework
