#include "pkg/scheduler/queue/nominator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using testing::MakePod;

std::shared_ptr<api::Pod> Nominated(const std::string& name, const std::string& node) {
  auto p = MakePod(name);
  p->status.nominated_node_name = node;
  return p;
}

std::vector<std::string> Names(const std::vector<framework::PodInfoPtr>& pods) {
  std::vector<std::string> out;
  for (auto& p : pods) out.push_back(p->pod().metadata.name);
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

TEST(NominatorTest, NoopDropsAnInMemoryNominationTheStatusDoesNotShow) {
  // kube's addNominatedPodUnlocked: Noop takes the node from the pod's
  // status, and a status naming none ends the pod's nomination.
  Nominator n(nullptr);
  framework::NominatingInfo preempted{framework::NominatingMode::kOverride, "n1"};
  n.AddNominatedPod(framework::PodInfo(MakePod("a")), &preempted);
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"a"}));
  n.AddNominatedPod(framework::PodInfo(MakePod("a")), nullptr);
  EXPECT_EQ(n.size(), 0u);
  n.AddNominatedPod(framework::PodInfo(MakePod("a")), &preempted);
  framework::NominatingInfo noop{framework::NominatingMode::kNoop, ""};
  n.AddNominatedPod(framework::PodInfo(MakePod("a")), &noop);
  EXPECT_EQ(n.size(), 0u);
  // The status wins when it names a node.
  n.AddNominatedPod(framework::PodInfo(MakePod("a")), &preempted);
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n2")), nullptr);
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
  EXPECT_EQ(Names(n.NominatedPodsForNode("n2")), (std::vector<std::string>{"a"}));
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

TEST(NominatorTest, KeepsWholePodInfoAndRefreshesItOnUpdate) {
  Nominator n(nullptr);
  auto pod = Nominated("a", "n1");
  api::Container c;
  c.resources.requests["cpu"] = api::Quantity::MustParse("500m");
  pod->spec.containers.push_back(c);
  n.AddNominatedPod(framework::PodInfo(pod), nullptr);
  auto got = n.NominatedPodsForNode("n1");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->pod_ptr(), pod);
  EXPECT_EQ(got[0]->requests().milli_cpu, 500);
  // An update replaces the stored PodInfo (new requests count).
  auto bigger = std::make_shared<api::Pod>(*pod);
  bigger->spec.containers.Mutable()[0].resources.requests["cpu"] = api::Quantity::MustParse("2");
  n.UpdateNominatedPod(*pod, framework::PodInfo(bigger));
  got = n.NominatedPodsForNode("n1");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->requests().milli_cpu, 2000);
  // A copy handed out earlier is not affected by later changes.
  n.DeleteNominatedPodIfExists(*pod);
  EXPECT_EQ(got[0]->pod().metadata.name, "a");
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());
}

TEST(NominatorTest, NominatedElsewhereMovesTheEntryAndSizeTracksIt) {
  Nominator n(nullptr);
  EXPECT_EQ(n.size(), 0u);
  EXPECT_TRUE(n.NominatedPodsForNode("n1").empty());  // fast path
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), nullptr);
  n.AddNominatedPod(framework::PodInfo(Nominated("b", "n1")), nullptr);
  EXPECT_EQ(n.size(), 2u);
  framework::NominatingInfo elsewhere{framework::NominatingMode::kOverride, "n2"};
  n.AddNominatedPod(framework::PodInfo(Nominated("a", "n1")), &elsewhere);
  EXPECT_EQ(n.size(), 2u);
  EXPECT_EQ(Names(n.NominatedPodsForNode("n1")), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Names(n.NominatedPodsForNode("n2")), (std::vector<std::string>{"a"}));
  n.DeleteNominatedPodIfExists(*MakePod("a"));
  n.DeleteNominatedPodIfExists(*MakePod("b"));
  EXPECT_EQ(n.size(), 0u);
  EXPECT_TRUE(n.NominatedPodsForNode("n2").empty());
}

// Readers on many threads while a writer nominates and clears: every answer
// is a consistent list (run under TSan in the tsan build).
TEST(NominatorTest, ConcurrentReadersAndWriter) {
  Nominator n(nullptr);
  std::atomic<bool> stop{false};
  std::atomic<int> seen{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        for (const auto& pi : n.NominatedPodsForNode("n1")) {
          if (pi->pod().status.nominated_node_name == "n1") seen.fetch_add(1);
        }
      }
    });
  }
  for (int i = 0; i < 2000; ++i) {
    auto p = Nominated("p" + std::to_string(i % 7), "n1");
    n.AddNominatedPod(framework::PodInfo(p), nullptr);
    if (i % 3 == 0) n.DeleteNominatedPodIfExists(*p);
  }
  stop.store(true);
  for (auto& t : readers) t.join();
  EXPECT_LE(n.size(), 7u);
}

}  // namespace
}  // namespace ksched::scheduler::queue
