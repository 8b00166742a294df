#include "pkg/scheduler/queue/unschedulable_pods.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "pkg/scheduler/queue/queue_test_util.h"

namespace ksched::scheduler::queue {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using testing::kProfile;
using testing::MakePod;

class UnschedulablePodsTest : public ::testing::Test {
 protected:
  UnschedulablePodsTest() {
    QueueingHintMap m;
    m.Register(ClusterEvent(framework::resource::kNode, ActionType::kAdd), "A", nullptr);
    m.Register(ClusterEvent(framework::resource::kNode, ActionType::kAdd), "B", nullptr);
    m.Register(ClusterEvent(framework::resource::kPod, ActionType::kDelete), "C", nullptr);
    maps_.emplace(kProfile, std::move(m));
  }

  framework::QueuedPodInfoPtr Info(const std::string& name, std::initializer_list<std::string_view> plugins,
                                   const std::string& profile = kProfile) {
    auto pod = MakePod(name);
    pod->spec.scheduler_name = profile;
    auto info = std::make_shared<framework::QueuedPodInfo>(pod, util::TimePoint());
    for (auto p : plugins) info->unschedulable_plugins.Insert(p);
    return info;
  }

  std::vector<std::string> Candidates(UnschedulablePods& u, const ClusterEvent& e) {
    EventHints hints;
    for (const auto& [profile, map] : maps_) {
      MatchedHints m;
      map.Match(e, &m);
      if (!m.empty()) hints.push_back(ProfileHints{profile, std::move(m)});
    }
    std::vector<UnschedulablePods::Candidate> c;
    u.CollectCandidates(hints, &c);
    std::vector<std::string> out;
    for (auto& x : c) out.push_back(*x.key);
    std::sort(out.begin(), out.end());
    return out;
  }

  QueueingHintMapPerProfile maps_;
  CountingQueueMetrics metrics_;
};

TEST_F(UnschedulablePodsTest, EventsVisitOnlyInterestedRejectors) {
  UnschedulablePods u(maps_, metrics_, true);
  u.AddOrUpdate("default/a", Info("a", {"A"}), "e");
  u.AddOrUpdate("default/b", Info("b", {"B", "A"}), "e");
  u.AddOrUpdate("default/c", Info("c", {"C"}), "e");
  u.AddOrUpdate("default/x", Info("x", {"Unregistered"}), "e");
  u.AddOrUpdate("default/none", Info("none", {}), "e");
  u.AddOrUpdate("default/other", Info("other", {"C"}, "other-profile"), "e");
  const ClusterEvent node_add(framework::resource::kNode, ActionType::kAdd);
  const ClusterEvent pod_delete(framework::resource::kAssignedPod, ActionType::kDelete);
  // b is rejected by two interested plugins but visited once; pods without
  // rejectors or without a hint map are always visited.
  EXPECT_EQ(Candidates(u, node_add),
            (std::vector<std::string>{"default/a", "default/b", "default/none", "default/other"}));
  EXPECT_EQ(Candidates(u, pod_delete), (std::vector<std::string>{"default/c", "default/none", "default/other"}));
  EXPECT_EQ(Candidates(u, ClusterEvent(framework::resource::kPersistentVolume, ActionType::kAdd)),
            (std::vector<std::string>{"default/none", "default/other"}));
  std::vector<UnschedulablePods::Candidate> all;
  u.CollectAll(&all);
  EXPECT_EQ(all.size(), 6u);
}

TEST_F(UnschedulablePodsTest, NaiveModeVisitsEverything) {
  UnschedulablePods u(maps_, metrics_, false);
  u.AddOrUpdate("default/a", Info("a", {"A"}), "e");
  u.AddOrUpdate("default/c", Info("c", {"C"}), "e");
  EXPECT_EQ(Candidates(u, ClusterEvent(framework::resource::kNode, ActionType::kAdd)).size(), 2u);
}

TEST_F(UnschedulablePodsTest, DeleteAndRefreshKeepIndexConsistent) {
  UnschedulablePods u(maps_, metrics_, true);
  for (int i = 0; i < 50; ++i) u.AddOrUpdate("default/p" + std::to_string(i), Info("p" + std::to_string(i), {"A"}), "e");
  for (int i = 0; i < 50; i += 2) EXPECT_NE(u.Delete("default/p" + std::to_string(i)), nullptr);
  EXPECT_EQ(u.Delete("default/p0"), nullptr);
  const ClusterEvent node_add(framework::resource::kNode, ActionType::kAdd);
  EXPECT_EQ(Candidates(u, node_add).size(), 25u);
  // Mutate a record in place and refresh: it moves to C's bucket.
  auto info = *u.Get("default/p1");
  info->unschedulable_plugins.Clear();
  info->unschedulable_plugins.Insert("C");
  u.Refresh("default/p1");
  EXPECT_EQ(Candidates(u, node_add).size(), 24u);
  EXPECT_EQ(Candidates(u, ClusterEvent(framework::resource::kPod, ActionType::kDelete)),
            (std::vector<std::string>{"default/p1"}));
  // Replacing a record re-indexes it too.
  u.AddOrUpdate("default/p3", Info("p3", {"C"}), "e");
  EXPECT_EQ(Candidates(u, node_add).size(), 23u);
  EXPECT_EQ(u.size(), 25u);
}

// Random adds, replacements, deletes and takes of records with zero to four
// rejectors (so bucket positions spill past the two inline slots), checked
// after every step against a brute-force answer: an event's candidates are
// exactly the records rejected by a plugin registered for it, or with no
// rejector at all.
TEST_F(UnschedulablePodsTest, RandomizedIndexMatchesBruteForce) {
  UnschedulablePods u(maps_, metrics_, true);
  std::map<std::string, std::set<std::string>> model;  // key -> rejectors
  std::mt19937 rng(11);
  const char* plugins[] = {"A", "B", "C", "D"};
  const ClusterEvent node_add(framework::resource::kNode, ActionType::kAdd);
  const ClusterEvent pod_delete(framework::resource::kPod, ActionType::kDelete);
  auto expected = [&](std::initializer_list<std::string> interested) {
    std::vector<std::string> out;
    for (const auto& [key, rejectors] : model) {
      bool hit = rejectors.empty();
      for (const std::string& p : interested) hit = hit || rejectors.count(p) > 0;
      if (hit) out.push_back(key);
    }
    return out;
  };
  for (int step = 0; step < 3000; ++step) {
    const std::string name = "p" + std::to_string(rng() % 40);
    const std::string key = "default/" + name;
    const int op = static_cast<int>(rng() % 3);
    if (op == 0) {
      std::set<std::string> rejectors;
      for (const char* p : plugins) {
        if (rng() % 2 == 0) rejectors.insert(p);
      }
      auto info = Info(name, {});
      for (const std::string& r : rejectors) info->unschedulable_plugins.Insert(r);
      u.AddOrUpdate(key, info, "e");
      model[key] = rejectors;
    } else if (op == 1) {
      EXPECT_EQ(u.Delete(key) != nullptr, model.erase(key) == 1);
    } else {
      std::vector<UnschedulablePods::Candidate> all;
      u.CollectAll(&all);
      if (all.empty()) continue;
      const UnschedulablePods::Candidate& c = all[rng() % all.size()];
      std::string taken;
      framework::QueuedPodInfoPtr info = u.Take(c, &taken);
      ASSERT_NE(info, nullptr);
      EXPECT_EQ(info->pod().metadata.name, taken.substr(taken.find('/') + 1));
      EXPECT_EQ(model.erase(taken), 1u);
    }
    ASSERT_EQ(u.size(), model.size());
    ASSERT_EQ(Candidates(u, node_add), expected({"A", "B"})) << "step " << step;
    ASSERT_EQ(Candidates(u, pod_delete), expected({"C"})) << "step " << step;
  }
  EXPECT_EQ(metrics_.PendingPods(QueueName::kUnschedulable), static_cast<int64_t>(model.size()));
}

TEST_F(UnschedulablePodsTest, GaugesAndIncomingCount) {
  UnschedulablePods u(maps_, metrics_, true);
  auto gated = Info("g", {"Gate"});
  gated->gating_plugin = "Gate";
  u.AddOrUpdate("default/g", gated, "UnschedulablePodAdd");
  u.AddOrUpdate("default/a", Info("a", {"A"}), "ScheduleAttemptFailure");
  u.AddOrUpdate("default/a", Info("a", {"A"}), "ScheduleAttemptFailure");  // update: not incoming
  EXPECT_EQ(metrics_.PendingPods(QueueName::kGated), 1);
  EXPECT_EQ(metrics_.PendingPods(QueueName::kUnschedulable), 1);
  EXPECT_EQ(metrics_.IncomingPods(QueueName::kUnschedulable, "ScheduleAttemptFailure"), 1);
  EXPECT_EQ(metrics_.IncomingPods(QueueName::kUnschedulable, "UnschedulablePodAdd"), 1);
  EXPECT_EQ(u.gated_size(), 1u);
  // Un-gating in place moves the gauge.
  gated->gating_plugin.clear();
  u.Refresh("default/g");
  EXPECT_EQ(metrics_.PendingPods(QueueName::kGated), 0);
  EXPECT_EQ(metrics_.PendingPods(QueueName::kUnschedulable), 2);
  u.Delete("default/g");
  u.Delete("default/a");
  EXPECT_EQ(metrics_.PendingPods(QueueName::kUnschedulable), 0);
  EXPECT_EQ(u.size(), 0u);
}

}  // namespace
}  // namespace ksched::scheduler::queue
