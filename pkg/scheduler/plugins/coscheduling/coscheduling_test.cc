#include "pkg/scheduler/plugins/coscheduling/coscheduling.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/scheduler/framework/test_objects.h"
#include "pkg/scheduler/framework/waiting_pods.h"

namespace ksched::scheduler::plugins::coscheduling {
namespace {

using framework::Code;
using framework::testing::MakeNode;
using framework::testing::MakePod;
using std::chrono::seconds;

// A snapshot of fixed NodeInfos.
class FixedSnapshot final : public framework::SharedLister,
                            public framework::NodeInfoLister,
                            public framework::StorageInfoLister {
 public:
  void Set(std::vector<framework::NodeInfo> nodes) {
    nodes_ = std::move(nodes);
    list_.clear();
    for (auto& n : nodes_) list_.push_back(&n);
  }
  const framework::NodeInfoLister& NodeInfos() const override { return *this; }
  const framework::StorageInfoLister& StorageInfos() const override { return *this; }
  const framework::NodeInfoList& List() const override { return list_; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return empty_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override { return empty_; }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view name) const override {
    for (const auto* n : list_) {
      if (n->node_name() == name) return n;
    }
    return util::NotFound("no node");
  }
  bool IsPVCUsedByPods(std::string_view) const override { return false; }

 private:
  std::vector<framework::NodeInfo> nodes_;
  framework::NodeInfoList list_, empty_;
};

// A Handle with a fake clock, in-memory listers (PodGroups included), a
// settable snapshot and real waiting pods.
class GangHandle final : public framework::Handle {
 public:
  std::string_view ProfileName() const override { return "ksched"; }
  const framework::SharedLister& SnapshotSharedLister() const override { return snapshot; }
  const framework::SharedListers& Listers() const override { return listers; }
  util::Parallelizer& Parallelizer() const override { return parallelizer_; }
  const util::Clock& Clock() const override { return clock; }
  const framework::FeatureGates& Features() const override { return features_; }
  framework::BindingClient* Client() const override { return nullptr; }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(std::string_view) const override { return {}; }
  void Activate(const std::vector<std::shared_ptr<const api::Pod>>&) override {}
  std::shared_ptr<framework::WaitingPod> GetWaitingPod(std::string_view uid) const override {
    return waiting.Get(uid);
  }
  void IterateOverWaitingPods(const std::function<void(framework::WaitingPod&)>& fn) const override {
    waiting.Iterate(fn);
  }
  bool RejectWaitingPod(std::string_view uid) override {
    auto wp = waiting.Get(uid);
    if (!wp) return false;
    wp->Reject("", "removed");
    return true;
  }
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState&, const api::Pod&, const framework::PodInfoPtr&,
                                                const framework::NodeInfo&) override {
    return framework::Status::Error("unused");
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState&, const api::Pod&,
                                                   const framework::PodInfoPtr&, const framework::NodeInfo&) override {
    return framework::Status::Error("unused");
  }
  framework::Status RunFilterPlugins(framework::CycleState&, const api::Pod&, const framework::NodeInfo&) override {
    return framework::Status::Error("unused");
  }
  framework::Status RunFilterPluginsWithNominatedPods(framework::CycleState&, const api::Pod&,
                                                      const framework::NodeInfo&) override {
    return framework::Status::Error("unused");
  }

  // Holds `pod` at Permit for Coscheduling, as the framework would.
  std::shared_ptr<framework::WaitingPod> Wait(std::shared_ptr<const api::Pod> pod, util::Duration timeout) {
    auto wp = std::make_shared<framework::WaitingPod>(
        std::move(pod), std::map<std::string, util::Duration>{{std::string(kName), timeout}}, clock);
    waiting.Add(wp);
    return wp;
  }

  util::FakeClock clock;
  framework::InMemorySharedListers listers;
  FixedSnapshot snapshot;
  framework::WaitingPodsMap waiting;

 private:
  mutable util::Parallelizer parallelizer_{1};
  framework::FeatureGates features_;
};

class CoschedulingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = New(args_, handle_);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    plugin_ = std::move(p).value();
  }

  // A PodGroup "ns/name" created `age` ago.
  void Group(const std::string& name, int32_t min_member, api::ResourceList min_resources = {},
             std::optional<int32_t> timeout = std::nullopt, seconds age = seconds(60)) {
    auto pg = std::make_shared<api::PodGroup>();
    pg->metadata.name = name;
    pg->metadata.namespace_ = "default";
    pg->metadata.creation_timestamp =
        std::chrono::time_point_cast<api::Time::duration>(handle_.clock.WallNow() - age);
    pg->spec.min_member = min_member;
    pg->spec.min_resources = std::move(min_resources);
    pg->spec.schedule_timeout_seconds = timeout;
    handle_.listers.pod_groups.Set(pg);
  }
  // A pod of gang `group`, known to the pod lister.
  std::shared_ptr<const api::Pod> Member(const std::string& name, const std::string& group,
                                         const std::string& node = "") {
    auto w = MakePod(name).UID(name).Label(std::string(api::kPodGroupLabel), group).Req({{"cpu", "1"}});
    if (!node.empty()) w.Node(node);
    auto pod = w.Obj();
    handle_.listers.pods.Set(pod);
    return pod;
  }
  framework::NodeInfo Node(const std::string& name, std::vector<std::shared_ptr<const api::Pod>> pods = {}) {
    return framework::NodeInfo(MakeNode(name).Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj(), pods);
  }
  framework::Status PreFilter(const std::shared_ptr<const api::Pod>& pod) {
    framework::CycleState state;
    return plugin_->PreFilter(state, *pod, handle_.snapshot.List()).second;
  }
  framework::Status PostFilter(const std::shared_ptr<const api::Pod>& pod) {
    framework::CycleState state;
    return plugin_->PostFilter(state, *pod, framework::NodeToStatus()).second;
  }

  CoschedulingArgs args_ = DefaultArgs();
  GangHandle handle_;
  std::unique_ptr<Coscheduling> plugin_;
};

TEST_F(CoschedulingTest, NameArgsAndEvents) {
  EXPECT_EQ(plugin_->Name(), "Coscheduling");
  EXPECT_EQ(DefaultArgs().permit_waiting_time_seconds, 60);
  EXPECT_EQ(DefaultArgs().pod_group_backoff_seconds, 0);
  CoschedulingArgs bad;
  bad.pod_group_backoff_seconds = -1;
  EXPECT_NE(ValidateArgs(bad).message().find("podGroupBackoffSeconds"), std::string::npos);
  EXPECT_FALSE(New(bad, handle_).ok());
  auto events = plugin_->EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].event, framework::ClusterEvent(framework::resource::kPod, framework::ActionType::kAdd));
  EXPECT_EQ((*events)[1].event, framework::ClusterEvent(framework::resource::kNode, framework::ActionType::kAdd));
  EXPECT_EQ((*events)[2].event,
            framework::ClusterEvent("podgroups.v1alpha1.scheduling.x-k8s.io",
                                    framework::ActionType::kAdd | framework::ActionType::kUpdate));
}

TEST_F(CoschedulingTest, QueueSortKeepsAGangTogetherBehindOlderGangs) {
  Group("old", 2, {}, std::nullopt, seconds(600));
  Group("new", 2, {}, std::nullopt, seconds(10));
  auto qi = [&](std::shared_ptr<const api::Pod> pod) {
    framework::QueuedPodInfo info(std::move(pod), handle_.clock.Now());
    info.initial_attempt_timestamp = handle_.clock.Now();
    return info;
  };
  auto new_a = qi(Member("a", "new"));
  auto old_z = qi(Member("z", "old"));
  auto old_y = qi(Member("y", "old"));
  EXPECT_TRUE(plugin_->Less(old_z, new_a));
  EXPECT_TRUE(plugin_->Less(old_y, old_z));
  EXPECT_FALSE(plugin_->Less(new_a, old_y));
}

TEST_F(CoschedulingTest, PreFilterPassesPodsWithoutAGroupOrWithAnUndeclaredOne) {
  EXPECT_TRUE(PreFilter(MakePod("solo").Obj()).IsSuccess());
  EXPECT_TRUE(PreFilter(Member("m", "undeclared")).IsSuccess());
}

TEST_F(CoschedulingTest, PreFilterRejectsAGangWithFewerPodsThanMinMember) {
  Group("g", 3);
  auto a = Member("a", "g");
  Member("b", "g");
  framework::Status s = PreFilter(a);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pre-filter pod a cannot find enough sibling pods, current pods number: 2, minMember of group: 3");
  Member("c", "g");
  EXPECT_TRUE(PreFilter(a).IsSuccess());
}

TEST_F(CoschedulingTest, PreFilterChecksMinResourcesAgainstFreeCapacityAndTrustsAPassForAWhile) {
  handle_.snapshot.Set({Node("n1"), Node("n2")});
  Group("g", 2, framework::testing::ToResourceList({{"cpu", "9"}}));
  auto a = Member("a", "g");
  Member("b", "g");
  framework::Status s = PreFilter(a);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resource gap: cpu 1000m");
  Group("g", 2, framework::testing::ToResourceList({{"cpu", "8"}}));
  EXPECT_TRUE(PreFilter(a).IsSuccess());
  // The pass is remembered for PermitWaitingTimeSeconds (60 s).
  Group("g", 2, framework::testing::ToResourceList({{"cpu", "100"}}));
  EXPECT_TRUE(PreFilter(a).IsSuccess());
  handle_.clock.Step(seconds(60));
  EXPECT_EQ(PreFilter(a).code(), Code::kUnschedulableAndUnresolvable);
}

TEST_F(CoschedulingTest, PermitWaitsForTheQuorumThenReleasesEveryWaitingMember) {
  Group("g", 3);
  auto a = Member("a", "g"), b = Member("b", "g"), c = Member("c", "g");
  handle_.snapshot.Set({Node("n1")});
  // First member: nothing assigned yet; waits the default 60 s and wakes its siblings.
  framework::CycleState state;
  auto to_activate = std::make_shared<framework::PodsToActivate>();
  state.Write(framework::PodsToActivateKey(), to_activate);
  auto [s1, wait1] = plugin_->Permit(state, *a, "n1");
  EXPECT_EQ(s1.code(), Code::kWait);
  EXPECT_EQ(wait1, seconds(60));
  auto activated = to_activate->TakeAll();
  ASSERT_EQ(activated.size(), 2u);
  EXPECT_EQ(activated[0]->metadata.name, "b");
  EXPECT_EQ(activated[1]->metadata.name, "c");
  auto wa = handle_.Wait(a, wait1);
  // Second member: a is assumed on n1 now; 1 + 1 < 3 still waits, and does not re-activate.
  a = Member("a", "g", "n1");
  handle_.snapshot.Set({Node("n1", {a})});
  auto [s2, wait2] = plugin_->Permit(state, *b, "n1");
  EXPECT_EQ(s2.code(), Code::kWait);
  EXPECT_TRUE(to_activate->TakeAll().empty());
  auto wb = handle_.Wait(b, wait2);
  EXPECT_FALSE(wa->TryGet().has_value());
  // Third member completes the quorum: allowed at once, and the waiting ones too.
  b = Member("b", "g", "n1");
  handle_.snapshot.Set({Node("n1", {a, b})});
  auto [s3, wait3] = plugin_->Permit(state, *c, "n1");
  EXPECT_TRUE(s3.IsSuccess());
  EXPECT_EQ(wait3, util::Duration::zero());
  ASSERT_TRUE(wa->TryGet().has_value());
  EXPECT_TRUE(wa->TryGet()->IsSuccess());
  EXPECT_TRUE(wb->TryGet()->IsSuccess());
}

TEST_F(CoschedulingTest, PermitUsesTheGroupsTimeoutAndRefusesAMissingGroup) {
  Group("g", 2, {}, 7);
  framework::CycleState state;
  auto [s, wait] = plugin_->Permit(state, *Member("a", "g"), "n1");
  EXPECT_EQ(s.code(), Code::kWait);
  EXPECT_EQ(wait, seconds(7));
  auto [missing, _] = plugin_->Permit(state, *Member("x", "nowhere"), "n1");
  EXPECT_EQ(missing.code(), Code::kUnschedulable);
  EXPECT_EQ(missing.Message(), "PodGroup not found");
  auto [solo, zero] = plugin_->Permit(state, *MakePod("solo").Obj(), "n1");
  EXPECT_TRUE(solo.IsSuccess());
}

TEST_F(CoschedulingTest, TimedOutMemberIsRejectedAtItsDeadline) {
  Group("g", 2, {}, 5);
  auto a = Member("a", "g");
  Member("b", "g");
  framework::CycleState state;
  auto [s, wait] = plugin_->Permit(state, *a, "n1");
  auto wa = handle_.Wait(a, wait);
  handle_.clock.Step(seconds(4));
  EXPECT_FALSE(wa->TryGet().has_value());
  handle_.clock.Step(seconds(1));
  ASSERT_TRUE(wa->TryGet().has_value());
  EXPECT_EQ(wa->TryGet()->code(), Code::kUnschedulable);
}

TEST_F(CoschedulingTest, PostFilterRejectsTheWaitingMembersAndBacksTheGroupOff) {
  args_.pod_group_backoff_seconds = 30;
  SetUp();
  Group("g", 4);
  auto a = Member("a", "g"), b = Member("b", "g"), c = Member("c", "g"), d = Member("d", "g");
  auto other = Member("o", "other");
  auto wa = handle_.Wait(a, seconds(60));
  auto wo = handle_.Wait(other, seconds(60));
  framework::Status s = PostFilter(b);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "PodGroup default/g gets rejected due to Pod b is unschedulable even after PostFilter");
  ASSERT_TRUE(wa->TryGet().has_value());
  EXPECT_EQ(wa->TryGet()->code(), Code::kUnschedulable);
  EXPECT_EQ(wa->TryGet()->Message(), "optimistic rejection in PostFilter");
  EXPECT_FALSE(wo->TryGet().has_value());
  // The group is refused at PreFilter until the backoff ends.
  framework::Status refused = PreFilter(c);
  EXPECT_EQ(refused.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(refused.Message(), "podGroup default/g failed recently");
  handle_.clock.Step(seconds(30));
  EXPECT_TRUE(PreFilter(c).IsSuccess());
  (void)d;
}

TEST_F(CoschedulingTest, PostFilterSparesTheGangWhenEnoughAreAssignedOrAlmostAll) {
  Group("g", 2);
  auto a = Member("a", "g", "n1"), b = Member("b", "g", "n1"), c = Member("c", "g");
  handle_.snapshot.Set({Node("n1", {a, b})});
  auto wc = handle_.Wait(c, seconds(60));
  framework::Status s = PostFilter(c);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "");
  EXPECT_FALSE(wc->TryGet().has_value());
  // 10 members, 9 assigned: 10% missing is tolerated.
  Group("big", 10);
  std::vector<std::shared_ptr<const api::Pod>> placed;
  for (int i = 0; i < 9; ++i) placed.push_back(Member("p" + std::to_string(i), "big", "n1"));
  handle_.snapshot.Set({Node("n1", placed)});
  auto last = Member("p9", "big");
  auto wp = handle_.Wait(Member("w", "big"), seconds(60));
  EXPECT_EQ(PostFilter(last).Message(), "");
  EXPECT_FALSE(wp->TryGet().has_value());
  EXPECT_EQ(PostFilter(MakePod("solo").Obj()).Message(), "can not find pod group");
}

TEST_F(CoschedulingTest, UnreserveRejectsTheWaitingMembers) {
  Group("g", 3);
  auto a = Member("a", "g"), b = Member("b", "g");
  auto wa = handle_.Wait(a, seconds(60));
  framework::CycleState state;
  EXPECT_TRUE(plugin_->Reserve(state, *b, "n1").IsSuccess());
  plugin_->Unreserve(state, *b, "n1");
  ASSERT_TRUE(wa->TryGet().has_value());
  EXPECT_EQ(wa->TryGet()->Message(), "rejection in Unreserve");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::coscheduling
