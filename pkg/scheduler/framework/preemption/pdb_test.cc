#include "pkg/scheduler/framework/preemption/pdb.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/preemption/test_pods.h"

namespace ksched::scheduler::framework::preemption {
namespace {

using testing::P;

std::shared_ptr<const api::PodDisruptionBudget> PDB(const std::string& ns, std::optional<api::StringMap> match,
                                                    int32_t allowed, std::vector<std::string> disrupted = {}) {
  auto pdb = std::make_shared<api::PodDisruptionBudget>();
  pdb->metadata.name = "pdb";
  pdb->metadata.namespace_ = ns;
  if (match) pdb->spec.selector = api::LabelSelector{*match, {}};
  pdb->status.disruptions_allowed = allowed;
  for (const std::string& d : disrupted) pdb->status.disrupted_pods[d] = api::Time{};
  return pdb;
}

PodInfoPtr Labeled(const std::string& name, api::StringMap labels, const std::string& ns = "default") {
  auto p = P(name, 0, 0, ns);
  p->metadata.labels = std::move(labels);
  return std::make_shared<const PodInfo>(p);
}

std::vector<std::string> Names(const std::vector<PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->pod().metadata.name);
  return out;
}

TEST(PDBTest, FilterPodsWithPDBViolation) {
  struct Case {
    const char* name;
    std::vector<PodInfoPtr> pods;
    PDBList pdbs;
    std::vector<std::string> violating, non_violating;
  };
  const api::StringMap app{{"app", "a"}};
  std::vector<Case> cases = {
      {"no PDBs", {Labeled("p1", app)}, {}, {}, {"p1"}},
      {"budget of one: the second matching pod violates",
       {Labeled("p1", app), Labeled("p2", app), Labeled("p3", {{"app", "b"}})},
       {PDB("default", app, 1)},
       {"p2"},
       {"p1", "p3"}},
      {"budget already exhausted", {Labeled("p1", app)}, {PDB("default", app, 0)}, {"p1"}, {}},
      {"other namespace does not count", {Labeled("p1", app)}, {PDB("other", app, 0)}, {}, {"p1"}},
      {"pod without labels matches nothing", {Labeled("p1", {})}, {PDB("default", api::StringMap{}, 0)}, {}, {"p1"}},
      {"unset selector matches nothing", {Labeled("p1", app)}, {PDB("default", std::nullopt, 0)}, {}, {"p1"}},
      {"empty selector matches nothing", {Labeled("p1", app)}, {PDB("default", api::StringMap{}, 0)}, {}, {"p1"}},
      {"already disrupted pods do not consume the budget",
       {Labeled("p1", app), Labeled("p2", app)},
       {PDB("default", app, 1, {"p1"})},
       {},
       {"p1", "p2"}},
      {"two PDBs: one exhausted is enough to violate",
       {Labeled("p1", {{"app", "a"}, {"tier", "x"}})},
       {PDB("default", app, 5), PDB("default", api::StringMap{{"tier", "x"}}, 0)},
       {"p1"},
       {}},
  };
  for (const Case& c : cases) {
    PDBSplit split = FilterPodsWithPDBViolation(c.pods, c.pdbs);
    EXPECT_EQ(Names(split.violating), c.violating) << c.name;
    EXPECT_EQ(Names(split.non_violating), c.non_violating) << c.name;
  }
}

}  // namespace
}  // namespace ksched::scheduler::framework::preemption
