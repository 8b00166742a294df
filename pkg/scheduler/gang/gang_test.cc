#include <gtest/gtest.h>

#include <map>

#include "pkg/api/podgroup.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/gang/capacity.h"
#include "pkg/scheduler/gang/expiring_set.h"
#include "pkg/scheduler/gang/queue_order.h"
#include "pkg/scheduler/gang/quorum.h"

namespace ksched::scheduler::gang {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;

// Gangs by the pod-group label; policies set by the test.
class FakeSource final : public GangSource {
 public:
  std::optional<GangKey> KeyOf(const api::Pod& pod) const override {
    std::string_view name = api::PodGroupNameOf(pod);
    if (name.empty()) return std::nullopt;
    return GangKey{pod.metadata.namespace_, std::string(name)};
  }
  std::optional<GangPolicy> Policy(const GangKey& key) const override {
    auto it = policies.find(key);
    if (it == policies.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::shared_ptr<const api::Pod>> Members(const GangKey& key) const override {
    std::vector<std::shared_ptr<const api::Pod>> out;
    for (const auto& p : pods) {
      if (KeyOf(*p) == key) out.push_back(p);
    }
    return out;
  }
  std::map<GangKey, GangPolicy> policies;
  std::vector<std::shared_ptr<const api::Pod>> pods;
};

framework::testing::PodWrapper Member(const std::string& name, const std::string& gang) {
  return MakePod(name).UID(name).Label(std::string(api::kPodGroupLabel), gang);
}

TEST(ExpiringSetTest, EntriesExpireOnTheInjectedClock) {
  util::FakeClock clock;
  ExpiringSet set(clock);
  GangKey a{"ns", "a"};
  set.Add(a, std::chrono::seconds(10));
  set.Add({"ns", "b"}, util::Duration::zero());
  EXPECT_TRUE(set.Contains(a));
  EXPECT_FALSE(set.Contains({"ns", "b"}));
  clock.Step(std::chrono::seconds(9));
  EXPECT_TRUE(set.Contains(a));
  set.Add(a, std::chrono::seconds(1));  // an earlier deadline does not shorten it
  clock.Step(std::chrono::seconds(1));
  EXPECT_FALSE(set.Contains(a));
  set.Add(a, std::chrono::seconds(5));
  set.Remove(a);
  EXPECT_FALSE(set.Contains(a));
}

TEST(QueueOrderTest, PriorityThenGangCreationThenName) {
  util::FakeClock clock;
  FakeSource source;
  const api::Time t0 = std::chrono::time_point_cast<api::Time::duration>(clock.WallNow());
  source.policies[{"default", "old"}] = GangPolicy{2, {}, {}, t0 - std::chrono::seconds(100)};
  source.policies[{"default", "new"}] = GangPolicy{2, {}, {}, t0 - std::chrono::seconds(10)};
  auto info = [&](framework::testing::PodWrapper w, util::Duration attempt_ago) {
    framework::QueuedPodInfo qi(w.Obj(), clock.Now());
    qi.initial_attempt_timestamp = clock.Now() - attempt_ago;
    return qi;
  };
  auto old_b = info(Member("b", "old"), std::chrono::seconds(1));
  auto old_a = info(Member("a", "old"), std::chrono::seconds(1));
  auto new_a = info(Member("a2", "new"), std::chrono::seconds(500));
  auto loner = info(MakePod("z").UID("z"), std::chrono::seconds(50));
  auto high = info(Member("h", "new").Priority(10), std::chrono::seconds(0));
  auto less = [&](const auto& x, const auto& y) { return GangLess(x, y, source, clock); };
  EXPECT_TRUE(less(high, old_a));
  EXPECT_TRUE(less(old_a, old_b));  // same gang: by name
  EXPECT_FALSE(less(old_b, old_a));
  EXPECT_TRUE(less(old_b, new_a));  // the older gang first, whatever the attempts
  EXPECT_TRUE(less(old_b, loner));  // a loner is ordered by its first attempt (50 s ago)
  EXPECT_TRUE(less(loner, new_a));
  // An undeclared gang counts like a loner.
  auto orphan = info(Member("o", "undeclared"), std::chrono::seconds(200));
  EXPECT_TRUE(less(orphan, loner));
  EXPECT_TRUE(less(orphan, old_a));  // its first attempt (200 s ago) is older than gang "old"
}

TEST(QueueOrderTest, TiesCompareNamespaceSlashNameAsOneString) {
  util::FakeClock clock;
  FakeSource source;
  framework::QueuedPodInfo a(MakePod("x", "a-b").Obj(), clock.Now());
  framework::QueuedPodInfo b(MakePod("y", "a").Obj(), clock.Now());
  // "a-b/x" < "a/y" because '-' sorts before '/'.
  EXPECT_TRUE(GangLess(a, b, source, clock));
  EXPECT_FALSE(GangLess(b, a, source, clock));
}

TEST(QuorumTest, CountsAssignedMembersOfTheGangOnly) {
  FakeSource source;
  framework::NodeInfo n1(MakeNode("n1").Obj(), {Member("a", "g").Node("n1").Obj(),
                                                 Member("b", "other").Node("n1").Obj(),
                                                 MakePod("c").Node("n1").Obj()});
  framework::NodeInfo n2(MakeNode("n2").Obj(), {Member("d", "g").Node("n2").Obj(),
                                                 MakePod("e", "elsewhere")
                                                     .Label(std::string(api::kPodGroupLabel), "g")
                                                     .Node("n2")
                                                     .Obj()});
  framework::NodeInfoList nodes = {&n1, &n2};
  EXPECT_EQ(CountAssigned(nodes, {"default", "g"}, source), 2);
  GangPolicy policy;
  policy.min_member = 3;
  EXPECT_TRUE(QuorumReached(2, policy));
  EXPECT_FALSE(QuorumReached(1, policy));
}

TEST(CapacityTest, SumsFreeCapacityAndIgnoresTheGangsOwnPods) {
  FakeSource source;
  auto node = [](const std::string& name) {
    return MakeNode(name).Capacity({{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "3"}}).Obj();
  };
  framework::NodeInfo n1(node("n1"), {MakePod("x").Node("n1").Req({{"cpu", "3"}}).Obj(),
                                      Member("m", "g").Node("n1").Req({{"cpu", "1"}}).Obj()});
  framework::NodeInfo n2(node("n2"), {});
  framework::NodeInfoList nodes = {&n1, &n2};
  GangPolicy policy;
  policy.min_member = 4;
  policy.min_resources = framework::testing::ToResourceList({{"cpu", "5"}});
  GangKey key{"default", "g"};
  // Free: n1 1 cpu (its gang member's 1 counted as free) + n2 4 = 5; pods 2 + 3 = 5.
  EXPECT_EQ(CapacityGap(nodes, key, policy, source), std::nullopt);
  policy.min_resources = framework::testing::ToResourceList({{"cpu", "7"}, {"memory", "1Gi"}});
  policy.min_member = 6;
  EXPECT_EQ(CapacityGap(nodes, key, policy, source), "resource gap: cpu 2000m, pods 1");
  policy.min_resources = framework::testing::ToResourceList({{"example.com/gpu", "1"}});
  policy.min_member = 1;
  EXPECT_EQ(CapacityGap(nodes, key, policy, source), "resource gap: example.com/gpu 1");
}

}  // namespace
}  // namespace ksched::scheduler::gang
