#include "pkg/simulate/simulation_test_util.h"

#include <gtest/gtest.h>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::simulate::testutil {

std::string Node(const std::string& name, const std::string& cpu, const std::string& memory,
                 const std::string& extra_spec) {
  return "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels: {kubernetes.io/hostname: " +
         name + "}\nspec: {" + extra_spec + "}\nstatus:\n  allocatable: {cpu: \"" + cpu + "\", memory: " + memory +
         ", pods: \"110\"}\n";
}

std::string Pod(const std::string& name, const std::string& cpu, int created, int priority, const std::string& node) {
  std::string ts = std::to_string(created);
  if (ts.size() < 2) ts = "0" + ts;
  return "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n  uid: uid-" + name +
         "\n  creationTimestamp: \"2024-01-01T00:00:" + ts + "Z\"\nspec:\n  priority: " + std::to_string(priority) +
         (node.empty() ? "" : "\n  nodeName: " + node) +
         "\n  containers:\n  - name: c\n    image: pause\n    resources:\n      requests: {cpu: \"" + cpu +
         "\", memory: 1Gi}\n";
}

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
