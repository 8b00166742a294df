#include "pkg/simulate/simulation_test_util.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::simulate::testutil {

ClusterObjects Load(const std::string& yaml) {
  ClusterLoader l;
  util::Status s = l.AddText(yaml, "test.yaml");
  EXPECT_TRUE(s.ok()) << s.message();
  return l.Finish();
}

SimulationOptions Options(TieBreak tie, bool explain) {
  SimulationOptions o;
  o.config = config::DefaultConfiguration(scheduler::plugins::InTreePlugins());
  o.tie_break = tie;
  o.explain = explain;
  return o;
}

SimulationResult RunSim(const ClusterObjects& c, const SimulationOptions& o) {
  util::StatusOr<SimulationResult> r = Simulate(c, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SimulationResult{};
}

const PodOutcome* Find(const SimulationResult& r, const std::string& name) {
  for (const PodOutcome& p : r.pods) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace ksched::simulate::testutil
