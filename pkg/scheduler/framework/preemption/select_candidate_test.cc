#include "pkg/scheduler/framework/preemption/select_candidate.h"

#include <gtest/gtest.h>

#include <limits>

#include "pkg/scheduler/framework/preemption/test_pods.h"

namespace ksched::scheduler::framework::preemption {
namespace {

using testing::P;
using testing::T;

Candidate C(const std::string& node, std::vector<std::shared_ptr<api::Pod>> victims, int pdb = 0) {
  Candidate c;
  c.name = node;
  for (auto& v : victims) c.victims.push_back(v);
  c.num_pdb_violations = pdb;
  return c;
}

TEST(SelectCandidateTest, PickOneNodeForPreemption) {
  struct Case {
    const char* name;
    std::vector<Candidate> candidates;
    std::string want;
  };
  std::vector<Case> cases = {
      {"single candidate", {C("n1", {P("a", 5)})}, "n1"},
      {"fewest PDB violations first",
       {C("n1", {P("a", 1)}, 1), C("n2", {P("b", 100), P("c", 100)}, 0)},
       "n2"},
      {"lowest highest-victim priority",
       {C("n1", {P("a", 10), P("b", 1)}), C("n2", {P("c", 5), P("d", 5), P("e", 5)})},
       "n2"},
      {"smallest sum of priorities",
       {C("n1", {P("a", 10), P("b", 9)}), C("n2", {P("c", 10), P("d", 1)})},
       "n2"},
      {"negative priorities: fewer victims still sum smaller",
       {C("n1", {P("a", -10), P("b", -10)}), C("n2", {P("c", -10)})},
       "n2"},
      {"fewest victims (same highest priority and sum)",
       // 0 + INT32_MIN + 2 * 2^31 == 0 + 2^31. n2 started earlier, so only
       // the victim count can prefer it.
       {C("n1", {P("a", 0, 50), P("b", std::numeric_limits<int32_t>::min(), 50)}), C("n2", {P("c", 0, 10)})},
       "n2"},
      {"latest start time of the highest-priority victims",
       {C("n1", {P("a", 5, 30), P("b", 1, 0)}), C("n2", {P("c", 5, 40), P("d", 1, 0)}),
        C("n3", {P("e", 5, 35), P("f", 1, 0)})},
       "n2"},
      {"all tied: the first",
       {C("n1", {P("a", 5, 30)}), C("n2", {P("b", 5, 30)}), C("n3", {P("c", 5, 30)})},
       "n1"},
  };
  for (const Case& c : cases) {
    int i = PickOneNodeForPreemption(c.candidates, T(100));
    ASSERT_GE(i, 0) << c.name;
    EXPECT_EQ(c.candidates[static_cast<size_t>(i)].name, c.want) << c.name;
  }
  EXPECT_EQ(PickOneNodeForPreemption({}, T(0)), -1);
}

}  // namespace
}  // namespace ksched::scheduler::framework::preemption
