// Helpers the simulate tests share: snapshot YAML for nodes and pods, a
// snapshot from YAML text, the default options, a run that must succeed,
// and a pod's outcome by name. Test-only
// (they report problems as gtest failures); linked into simulate_test.
//
// Thread-safety: stateless functions; call them from the test's thread.
#pragma once

#include <string>

#include "pkg/simulate/cluster_loader.h"
#include "pkg/simulate/simulation.h"

namespace ksched::simulate::testutil {

// A Node document labelled with its hostname; `extra_spec` goes inside its
// `spec: {...}` ("taints: [...]").
std::string Node(const std::string& name, const std::string& cpu, const std::string& memory = "8Gi",
                 const std::string& extra_spec = "");

// A Pod document of the default scheduler in namespace "default" (uid
// uid-<name>) created at second `created` (0-59) of 2024-01-01, asking for
// `cpu` and 1Gi of memory; bound to `node` unless it is empty.
std::string Pod(const std::string& name, const std::string& cpu, int created, int priority = 0,
                const std::string& node = "");

// The objects of `yaml` (multi-document text); a load error is a test
// failure and yields what was read before it.
ClusterObjects Load(const std::string& yaml);

// The default profile with every in-tree plugin, ties broken by `tie`, with
// or without per-node explanations.
SimulationOptions Options(TieBreak tie = TieBreak::kLowestName, bool explain = false);

// Simulate(c, o); an error is a test failure and yields an empty result.
SimulationResult RunSim(const ClusterObjects& c, const SimulationOptions& o);

// The outcome of the pod named `name` (any namespace), or null. Points into
// `r`, so valid while `r` is. Linear in the pods.
const PodOutcome* Find(const SimulationResult& r, const std::string& name);

}  // namespace ksched::simulate::testutil
