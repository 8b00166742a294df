#include "pkg/scheduler/queue/nominator.h"

#include <gtest/gtest.h>

#include <map>

#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using testing::MakePod;

std::shared_ptr<api::Pod> Nominated(const std::string& name, const std::string& node) {
  auto p = MakePod(name);
  p->status.nominated_node_name = node;
  return p;
}

std::vector<std::string> Names(const std::vector<PodRef>& refs) {
  std::vector<std::string> out;
  for (auto& r : refs) out.push_back(r.name);
  return out;
}

TEST(NominatorTest, NoopUsesStatusOverrideWins) {
  Nominator n(nullptr);
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), nullptr);
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"a"}));
  framework::NominatingInfo override{framework::NominatingMode::kOverride, "n2"};
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), &override);
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  EXPECT_EQ(Names(n.NominatedPodsForNode("n2")), (std::vector<std::string>{"a"}));
  EXPECT_EQ(n.NominatedNodeFor("uid-default-a"), std::optional<std::string>("n2"));
  // Override with "" clears.
  framework::NominatingInfo clear{framework::NominatingMode::kOverride, ""};
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), &clear);
  EXPECT_EQ(n.size(), 0u);
  // A pod without a nominated node is not recorded.
  n.AddNominatedPod(framework::PodInfo(MakePod("b")), nullptr);
  EXPECT_EQ(n.size(), 0u);
}

TEST(NominatorTest, NoDuplicatesAndDelete) {
  Nominator n(nullptr);
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), nullptr);
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), nullptr);
  n.AddNominatedPod(framework::PodInfo(Nominated("b", "n1")), nullptr);
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"a", "b"}));
  n.DeleteNominatedPodIfExists(*MakePod("a"));
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"b"}));
  n.DeleteNominatedPodIfExists(*MakePod("b"));
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  n.DeleteNominatedPodIfExists(*MakePod("zzz"));
}

TEST(NominatorTest, ListerSkipsGoneAndBoundPods) {
  std::map<std::string, std::shared_ptr<api::Pod>> store;
  Nominator n([&](std::string_view ns, std::string_view name) -> std::shared_ptr<const api::Pod> {
    auto it = store.find(std::string(ns) + "/" + std::string(name));
    return it == store.end() ? nullptr : it->second;
  });
  n.AddNominatedPod(framework::PodInfo(Nominated("gone", "n1")), nullptr);
  EXPECT_EQ(n.size(), 0u);
  auto bound = Nominated("bound", "n1");
  auto bound_now = std::make_shared<api::Pod>(*bound);
  bound_now->spec.node_name = "n1";
  store["default/bound"] = bound_now;
  n.AddNominatedPod(framework::PodInfo(bound), nullptr);
  EXPECT_EQ(n.size(), 0u);
  auto alive = Nominated("alive", "n1");
  store["default/alive"] = alive;
  n.AddNominatedPod(framework::PodInfo(alive), nullptr);
  EXPECT_EQ(n.size(), 1u);
}

TEST(NominatorTest, UpdateKeepsInMemoryNomination) {
  Nominator n(nullptr);
  framework::NominatingInfo override{framework::NominatingMode::kOverride, "n1"};
  auto pod = MakePod("a");
  n.AddNominatedPod(framework::PodInfo(pod), &override);
  // An update that names no node keeps the preemption's nomination.
  auto updated = testing::WithLabel(*pod, "k", "v");
  n.UpdateNominatedPod(*pod, framework::PodInfo(updated));
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"a"}));
  // An update that names a node wins.
  auto renamed = Nominated("a", "n2");
  n.UpdateNominatedPod(*updated, framework::PodInfo(renamed));
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  EXPECT_EQ(Names(n.NominatedPodsForNode("n2")), (std::vector<std::string>{"a"}));
  // Removing the node from the status removes the nomination.
  n.UpdateNominatedPod(*renamed, framework::PodInfo(MakePod("a")));
  EXPECT_EQ(n.size(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler::queue
