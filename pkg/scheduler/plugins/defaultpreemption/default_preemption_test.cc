#include "pkg/scheduler/plugins/defaultpreemption/default_preemption.h"

#include <gtest/gtest.h>

#include <chrono>

#include "pkg/config/defaults.h"
#include "pkg/scheduler/plugins/defaultpreemption/test_util.h"
#include "pkg/scheduler/plugins/helper/other_args.h"

namespace ksched::scheduler::plugins::defaultpreemption {
namespace {

using framework::Code;
using framework::testing::MakeNode;
using framework::testing::MakePod;
using testing::PreemptionFixture;

api::Time Started(int s) { return api::Time(std::chrono::seconds(1'700'000'000 + s)); }

std::shared_ptr<const api::Node> Node(const std::string& name, const std::string& cpu = "4") {
  return MakeNode(name).Capacity({{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
}

// A running pod on `node` with `cpu` cores, priority `prio`, started at `start`.
std::shared_ptr<const api::Pod> Running(const std::string& name, const std::string& node, const std::string& cpu,
                                        int32_t prio, int start = 0) {
  auto w = MakePod(name).Node(node).Priority(prio).Req({{"cpu", cpu}});
  api::Pod p = *w.Obj();
  p.status.start_time = Started(start);
  return std::make_shared<const api::Pod>(p);
}

std::shared_ptr<const api::Pod> Preemptor(const std::string& cpu, int32_t prio = 100) {
  return MakePod("preemptor").Priority(prio).Req({{"cpu", cpu}}).Obj();
}

std::shared_ptr<const api::PodDisruptionBudget> PDB(const std::string& name, api::StringMap match, int32_t allowed) {
  auto pdb = std::make_shared<api::PodDisruptionBudget>();
  pdb->metadata.name = name;
  pdb->metadata.namespace_ = "default";
  pdb->spec.selector = api::LabelSelector{std::move(match), {}};
  pdb->status.disruptions_allowed = allowed;
  return pdb;
}

std::shared_ptr<const api::Pod> WithLabel(std::shared_ptr<const api::Pod> p, const std::string& k,
                                          const std::string& v) {
  api::Pod c = *p;
  c.metadata.labels[k] = v;
  return std::make_shared<const api::Pod>(c);
}

struct Case {
  const char* name;
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<const api::Pod>> pods;
  std::shared_ptr<const api::Pod> preemptor;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  Code want_code;
  std::string want_node;                 // nominated node ("" for none)
  std::vector<std::string> want_victims;  // deleted, most important first
  std::string want_message;              // checked when not empty
};

TEST(DefaultPreemptionTest, VictimSelectionAndCandidateOrdering) {
  std::vector<Case> cases = {
      {"reprieve the most important pods; only the minimum is evicted",
       {Node("n1")},
       {Running("p1", "n1", "1", 1), Running("p2", "n1", "1", 2), Running("p3", "n1", "2", 3)},
       Preemptor("2"),
       {},
       Code::kSuccess,
       "n1",
       {"p2", "p1"}},
      {"pods of equal or higher priority are never victims",
       {Node("n1")},
       {Running("p1", "n1", "2", 100), Running("p2", "n1", "2", 200)},
       Preemptor("2"),
       {},
       Code::kUnschedulable,
       "",
       {},
       "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."},
      {"the node whose most important victim has the lowest priority",
       {Node("n1"), Node("n2")},
       {Running("a", "n1", "4", 50), Running("b", "n2", "2", 10), Running("c", "n2", "2", 10)},
       Preemptor("4"),
       {},
       Code::kSuccess,
       "n2",
       {"b", "c"}},
      {"same highest priority: the smaller sum of priorities",
       {Node("n1"), Node("n2")},
       {Running("a", "n1", "2", 10), Running("b", "n1", "2", 10), Running("c", "n2", "2", 10),
        Running("d", "n2", "2", 1)},
       Preemptor("4"),
       {},
       Code::kSuccess,
       "n2",
       {"c", "d"}},
      {"same priorities: fewer victims",
       {Node("n1"), Node("n2")},
       {Running("a", "n1", "2", 10), Running("b", "n1", "2", 10), Running("c", "n2", "4", 10)},
       Preemptor("3"),
       {},
       Code::kSuccess,
       "n2",
       {"c"}},
      {"all else equal: the victims that started latest",
       {Node("n1"), Node("n2")},
       {Running("a", "n1", "4", 10, 100), Running("b", "n2", "4", 10, 200)},
       Preemptor("4"),
       {},
       Code::kSuccess,
       "n2",
       {"b"}},
      {"a node without PDB violations wins over lower priorities",
       {Node("n1"), Node("n2")},
       {WithLabel(Running("a", "n1", "4", 1), "app", "db"), Running("b", "n2", "4", 50)},
       Preemptor("4"),
       {PDB("db", {{"app", "db"}}, 0)},
       Code::kSuccess,
       "n2",
       {"b"}},
      {"PDB-violating victims are reprieved first",
       {Node("n1")},
       // Either a or b must go; a is protected by the PDB, so b (even of
       // higher priority) is evicted.
       {WithLabel(Running("a", "n1", "2", 1), "app", "db"), Running("b", "n1", "2", 5)},
       Preemptor("2"),
       {PDB("db", {{"app", "db"}}, 0)},
       Code::kSuccess,
       "n1",
       {"b"}},
      {"PDB violated when nothing else helps",
       {Node("n1")},
       {WithLabel(Running("a", "n1", "4", 1), "app", "db")},
       Preemptor("4"),
       {PDB("db", {{"app", "db"}}, 0)},
       Code::kSuccess,
       "n1",
       {"a"}},
      {"UnschedulableAndUnresolvable nodes are not tried",
       {MakeNode("n1").Capacity({{"cpu", "4"}, {"pods", "110"}}).Unschedulable().Obj()},
       {Running("a", "n1", "4", 1)},
       Preemptor("4"),
       {},
       Code::kUnschedulable,
       "",
       {},
       "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
      {"a pod with affinity to a victim cannot preempt it",
       {Node("n1")},
       {WithLabel(Running("web", "n1", "2", 1), "app", "web"), Running("filler", "n1", "2", 1)},
       MakePod("preemptor")
           .Priority(100)
           .Req({{"cpu", "4"}})
           .RequiredPodAffinity("kubernetes.io/hostname", {{"app", "web"}})
           .Obj(),
       {},
       Code::kUnschedulable,
       "",
       {},
       "preemption: 0/1 nodes are available: 1 node(s) didn't match pod affinity rules."},
      {"preemptionPolicy Never evicts nothing",
       {Node("n1")},
       {Running("a", "n1", "4", 1)},
       [] {
         api::Pod p = *Preemptor("4");
         p.spec.preemption_policy = "Never";
         return std::make_shared<const api::Pod>(p);
       }(),
       {},
       Code::kUnschedulable,
       "",
       {},
       "preemption: not eligible due to preemptionPolicy=Never."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PreemptionFixture f(c.nodes, c.pods);
    for (const auto& pdb : c.pdbs) f.AddPDB(pdb);
    auto [result, status] = f.Run(c.preemptor);
    EXPECT_EQ(status.code(), c.want_code) << status.Message();
    if (!c.want_message.empty()) {
      EXPECT_EQ(status.Message(), c.want_message);
    }
    if (!c.want_node.empty()) {
      ASSERT_TRUE(result.nominating_info.has_value());
      EXPECT_EQ(result.nominating_info->mode, framework::NominatingMode::kOverride);
      EXPECT_EQ(result.nominating_info->nominated_node_name, c.want_node);
    }
    EXPECT_EQ(f.writer().deleted, c.want_victims);
    EXPECT_EQ(f.writer().attempts, 1);
    if (c.want_code == Code::kSuccess) {
      EXPECT_EQ(f.writer().victims_observed, std::vector<int>{static_cast<int>(c.want_victims.size())});
      std::vector<std::string> events;
      for (const auto& v : c.want_victims) events.push_back(v + "@" + c.want_node);
      EXPECT_EQ(f.writer().events, events);
    } else {
      EXPECT_TRUE(f.writer().victims_observed.empty());
      EXPECT_TRUE(f.writer().events.empty());
    }
  }
}

TEST(DefaultPreemptionTest, NoCandidateClearsTheNomination) {
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 200)});
  auto [result, status] = f.Run(Preemptor("4"));
  EXPECT_EQ(status.code(), Code::kUnschedulable);
  ASSERT_TRUE(result.nominating_info.has_value());
  EXPECT_EQ(result.nominating_info->mode, framework::NominatingMode::kOverride);
  EXPECT_EQ(result.nominating_info->nominated_node_name, "");
}

// kube 1.37's PostFilter says where the preemptor goes; FailedScheduling
// then ends with it. Earlier minors return a bare Success.
TEST(DefaultPreemptionTest, SuccessSaysWhereThePodGoesFromKube137) {
  for (int minor : {36, 37}) {
    SCOPED_TRACE(minor);
    PreemptionFixture f({Node("n1"), Node("n2")},
                        {Running("a", "n1", "4", 1), Running("b", "n1", "0", 1), Running("c", "n2", "4", 1000)}, {}, 0,
                        framework::FeatureGates::ForMinor(minor));
    auto [result, status] = f.Run(Preemptor("4"));
    ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
    EXPECT_EQ(status.Message(),
              minor >= 37 ? "preemption: found a potential placement for pod on node n1, preempting 1 victims" : "");
  }
}

TEST(DefaultPreemptionTest, NominatedPodsOfHigherPriorityKeepTheirRoom) {
  // n1 has 4 cpus: 2 taken by a pod of priority 1000 nominated there, 2 by
  // low-priority pods. A preemptor of 3 cpus cannot fit on n1 even with
  // every victim gone; n2 is the only candidate.
  PreemptionFixture f({Node("n1"), Node("n2")},
                      {Running("a", "n1", "2", 1), Running("b", "n2", "4", 1)});
  f.Nominate("n1", MakePod("big").Priority(1000).Req({{"cpu", "2"}}).Obj());
  auto [result, status] = f.Run(Preemptor("3"));
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(result.nominating_info->nominated_node_name, "n2");
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"b"});
}

TEST(DefaultPreemptionTest, LowerPriorityNominationsOnTheNodeAreCleared) {
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 1)});
  f.Nominate("n1", MakePod("low").Priority(5).NominatedNode("n1").Req({{"cpu", "1"}}).Obj());
  f.Nominate("n1", MakePod("high").Priority(500).NominatedNode("n1").Obj());
  auto [result, status] = f.Run(Preemptor("2"));
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().cleared, std::vector<std::string>{"low"});
}

TEST(DefaultPreemptionTest, NominatedPodWaitsForTerminatingVictims) {
  api::Pod terminating = *Running("victim", "n1", "4", 1);
  terminating.metadata.deletion_timestamp = Started(10);
  terminating.status.conditions.push_back(
      api::PodCondition{"DisruptionTarget", "True", "PreemptionByScheduler", "", std::nullopt, std::nullopt, {}});
  PreemptionFixture f({Node("n1"), Node("n2")},
                      {std::make_shared<const api::Pod>(terminating), Running("b", "n2", "4", 1)});
  api::Pod pod = *Preemptor("4");
  pod.status.nominated_node_name = "n1";
  auto [result, status] = f.Run(std::make_shared<const api::Pod>(pod));
  EXPECT_EQ(status.code(), Code::kUnschedulable);
  EXPECT_EQ(status.Message(), "preemption: not eligible due to a terminating pod on the nominated node.");
  EXPECT_FALSE(result.nominating_info.has_value());  // keeps its nomination
  EXPECT_TRUE(f.writer().deleted.empty());

  // A victim terminating for another reason does not hold the pod back.
  terminating.status.conditions.clear();
  PreemptionFixture g({Node("n1")}, {std::make_shared<const api::Pod>(terminating)});
  auto [r2, s2] = g.Run(std::make_shared<const api::Pod>(pod));
  EXPECT_EQ(s2.code(), Code::kSuccess) << s2.Message();
}

framework::FeatureGates SyncPreemption() {
  framework::FeatureGates g;
  g.scheduler_async_preemption = false;
  return g;
}

framework::FeatureGates SyncPreemptionAt(int minor) {
  framework::FeatureGates g = framework::FeatureGates::ForMinor(minor);
  g.scheduler_async_preemption = false;
  return g;
}

// A victim held at Permit is stopped without an API call: rejected
// (Unschedulable) before 1.36; from 1.36 preempted with an Error, so it goes
// to backoff, and its event says so; once its outcome is decided it is
// evicted like any other.
TEST(DefaultPreemptionTest, VictimWaitingAtPermitIsStoppedInMemory) {
  for (int minor : {35, 36}) {
    SCOPED_TRACE(minor);
    for (bool async : {false, true}) {
      framework::FeatureGates features = framework::FeatureGates::ForMinor(minor);
      features.scheduler_async_preemption = async;
      PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 1)}, {}, 0, features);
      std::shared_ptr<framework::WaitingPod> wp = f.HoldAtPermit(Running("a", "n1", "4", 1));
      auto [result, status] = f.Run(Preemptor("4"));
      ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
      std::optional<framework::Status> outcome = wp->TryGet();
      ASSERT_TRUE(outcome.has_value());
      EXPECT_EQ(outcome->code(), minor >= 36 ? Code::kError : Code::kUnschedulable);
      EXPECT_EQ(outcome->plugin(), "DefaultPreemption");
      EXPECT_TRUE(f.writer().deleted.empty());
      EXPECT_EQ(f.writer().events, std::vector<std::string>{minor >= 36 ? "a@n1 (in memory)" : "a@n1"});
    }
  }
  // Decided before the preemption (here: allowed): from 1.36 it is evicted.
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 1)}, {}, 0, SyncPreemptionAt(36));
  f.HoldAtPermit(Running("a", "n1", "4", 1))->Allow("Gate");
  auto [result, status] = f.Run(Preemptor("4"));
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"a"});
  EXPECT_EQ(f.writer().events, std::vector<std::string>{"a@n1"});
}

TEST(DefaultPreemptionTest, NoSecondPreemptionWhileTheVictimsAreStillThere) {
  // Synchronous preemption only: asynchronous preemption holds the pod back
  // at PreEnqueue instead (AsyncPreemption* tests).
  PreemptionFixture f({Node("n1"), Node("n2")}, {Running("a", "n1", "4", 1), Running("b", "n2", "4", 2)}, {}, 0,
                      SyncPreemption());
  auto pod = Preemptor("4");
  auto [r1, s1] = f.Run(pod);
  ASSERT_EQ(s1.code(), Code::kSuccess) << s1.Message();
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"a"});
  // Retried before the informer reported "a" gone (the pod's status does
  // not name its node yet either): it waits instead of evicting "b" too.
  auto [r2, s2] = f.Run(pod);
  EXPECT_EQ(s2.code(), Code::kUnschedulable);
  EXPECT_EQ(s2.Message(), "preemption: not eligible due to a terminating pod on the nominated node.");
  EXPECT_FALSE(r2.nominating_info.has_value());
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"a"});
  // Another pod is not held back.
  auto other = MakePod("other").UID("uid-other").Priority(100).Req({{"cpu", "4"}}).Obj();
  auto [r3, s3] = f.Run(other);
  EXPECT_EQ(s3.code(), Code::kSuccess) << s3.Message();
}

TEST(DefaultPreemptionTest, NumCandidates) {
  struct NC {
    int nodes, pct, abs, want;
  };
  for (const NC& c : std::vector<NC>{{10, 10, 100, 10},
                                     {1000, 10, 100, 100},
                                     {5000, 10, 100, 500},
                                     {5000, 0, 1, 1},
                                     {50, 50, 0, 25},
                                     {50, 100, 0, 50},
                                     {3, 0, 0, 0}}) {
    DefaultPreemptionArgs args;
    args.min_candidate_nodes_percentage = c.pct;
    args.min_candidate_nodes_absolute = c.abs;
    PreemptionFixture f({Node("n1")}, {}, args);
    EXPECT_EQ(f.plugin().NumCandidates(c.nodes), c.want) << c.nodes << " " << c.pct << " " << c.abs;
  }
}

TEST(DefaultPreemptionTest, DryRunStartsAtTheOffsetAndStopsWhenEnoughCandidates) {
  // Five identical nodes; one candidate is enough. The dry run starts at
  // the offset, so that node is chosen.
  DefaultPreemptionArgs args;
  args.min_candidate_nodes_percentage = 0;
  args.min_candidate_nodes_absolute = 1;
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<const api::Pod>> pods;
  for (int i = 0; i < 5; ++i) {
    std::string n = "n" + std::to_string(i);
    nodes.push_back(Node(n));
    pods.push_back(Running("p" + std::to_string(i), n, "4", 1));
  }
  for (int offset : {0, 3}) {
    PreemptionFixture f(nodes, pods, args, offset);
    auto [result, status] = f.Run(Preemptor("4"));
    ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
    // The snapshot lists nodes in its own order: find which one is at the
    // offset among the potential nodes.
    const std::string want = f.fwk().SnapshotSharedLister().NodeInfos().List()[static_cast<size_t>(offset)]->node_name();
    EXPECT_EQ(result.nominating_info->nominated_node_name, want);
    EXPECT_EQ(f.writer().deleted.size(), 1u);
  }
}

TEST(DefaultPreemptionTest, RandomOffsetStaysInRange) {
  auto reg = InTreeRegistry();
  ASSERT_TRUE(reg.ok());
  PreemptionFixture f({Node("n1")}, {});
  DefaultPreemption p({}, f.fwk());
  for (int i = 0; i < 200; ++i) {
    auto [offset, num] = p.GetOffsetAndNumCandidates(7);
    EXPECT_GE(offset, 0);
    EXPECT_LT(offset, 7);
    EXPECT_EQ(num, 7);
  }
}

TEST(DefaultPreemptionTest, DefaultProfileRunsDefaultPreemptionAsPostFilter) {
  config::KubeSchedulerConfiguration c;
  auto reg = InTreeRegistry();
  ASSERT_TRUE(reg.ok());
  config::SetDefaults(&c, reg->Known());
  auto snapshot = cache::Snapshot::FromObjects({}, {});
  util::Parallelizer parallelizer(1);
  framework::runtime::FrameworkOptions o;
  o.snapshot_lister = snapshot.get();
  o.parallelizer = &parallelizer;
  auto f = framework::runtime::Framework::New(*reg, c.profiles.at(0), o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE((*f)->HasPostFilterPlugins());
  EXPECT_NE(dynamic_cast<DefaultPreemption*>((*f)->GetPlugin("DefaultPreemption")), nullptr);
  // Args are validated by type.
  EXPECT_FALSE(New(helper::OtherArgs{}, **f).ok());
}

// ---- Asynchronous preemption (SchedulerAsyncPreemption, on by default)

std::shared_ptr<const api::Pod> Terminating(std::shared_ptr<const api::Pod> p) {
  api::Pod c = *p;
  c.metadata.deletion_timestamp = Started(100);
  return std::make_shared<const api::Pod>(c);
}

// n1 holds two victims of 2 cpus ("a" more important than "b": "b" is the
// last victim); the preemptor needs all 4 cpus.
struct AsyncCase {
  AsyncCase()
      : f({Node("n1")}, {Running("a", "n1", "2", 2), Running("b", "n1", "2", 1)}),
        pod(Preemptor("4")) {
    f.writer().hold = true;
  }
  framework::Status PreEnqueue() { return f.plugin().PreEnqueue(*pod); }
  PreemptionFixture f;
  std::shared_ptr<const api::Pod> pod;
};

TEST(DefaultPreemptionTest, AsyncPreemptionGatesThePreemptorUntilItsCallsAreDone) {
  AsyncCase c;
  EXPECT_TRUE(c.PreEnqueue().IsSuccess());
  auto [result, status] = c.f.Run(c.pod);
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(result.nominating_info->nominated_node_name, "n1");
  EXPECT_EQ(c.f.writer().victims_observed, std::vector<int>{2});
  // Every victim but the last is evicted first.
  EXPECT_EQ(c.f.writer().deleted, std::vector<std::string>{"a"});
  framework::Status gated = c.PreEnqueue();
  EXPECT_EQ(gated.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(gated.Message(), "waiting for the preemption for this pod to be finished");
  EXPECT_TRUE(c.f.writer().events.empty());  // Preempted is recorded once a victim is evicted

  c.f.clock().Step(std::chrono::milliseconds(1500));
  ASSERT_TRUE(c.f.writer().Complete("a"));
  EXPECT_EQ(c.f.writer().deleted, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.f.writer().events, std::vector<std::string>{"a@n1"});
  // The last eviction is issued but the informer still shows "b" running.
  EXPECT_FALSE(c.PreEnqueue().IsSuccess());
  // Once the informer shows it terminating, the pod is no longer held back
  // (its deletion event may come before the writer reports back).
  c.f.listers().pods.Set(Terminating(Running("b", "n1", "2", 1)));
  EXPECT_TRUE(c.PreEnqueue().IsSuccess());
  c.f.listers().pods.Set(Running("b", "n1", "2", 1));
  EXPECT_FALSE(c.PreEnqueue().IsSuccess());

  ASSERT_TRUE(c.f.writer().Complete("b"));
  EXPECT_TRUE(c.PreEnqueue().IsSuccess());
  EXPECT_EQ(c.f.writer().events, (std::vector<std::string>{"a@n1", "b@n1"}));
  ASSERT_EQ(c.f.writer().goroutines.size(), 1u);
  EXPECT_TRUE(c.f.writer().goroutines[0].first);
  EXPECT_EQ(c.f.writer().goroutines[0].second, std::chrono::milliseconds(1500));
  // Success does not activate the pod: the victims' deletions move it.
  EXPECT_TRUE(c.f.activator().Activated().empty());
}

TEST(DefaultPreemptionTest, AsyncPreemptionErrorActivatesThePreemptor) {
  AsyncCase c;
  auto [result, status] = c.f.Run(c.pod);
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  ASSERT_TRUE(c.f.writer().Complete("a", util::Status(util::StatusCode::kInternal, "etcd")));
  // The last victim is spared: the pod tries again sooner.
  EXPECT_EQ(c.f.writer().deleted, std::vector<std::string>{"a"});
  EXPECT_TRUE(c.f.writer().events.empty());
  EXPECT_TRUE(c.PreEnqueue().IsSuccess());
  EXPECT_EQ(c.f.activator().Activated(), std::vector<std::string>{"preemptor"});
  ASSERT_EQ(c.f.writer().goroutines.size(), 1u);
  EXPECT_FALSE(c.f.writer().goroutines[0].first);
}

TEST(DefaultPreemptionTest, AsyncPreemptionErrorOnTheLastVictimActivatesThePreemptor) {
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 1)});
  f.writer().result = util::Status(util::StatusCode::kInvalidArgument, "no");
  auto pod = Preemptor("4");
  auto [result, status] = f.Run(pod);
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"a"});
  EXPECT_TRUE(f.plugin().PreEnqueue(*pod).IsSuccess());
  EXPECT_EQ(f.activator().Activated(), std::vector<std::string>{"preemptor"});
  ASSERT_EQ(f.writer().goroutines.size(), 1u);
  EXPECT_FALSE(f.writer().goroutines[0].first);
}

TEST(DefaultPreemptionTest, AsyncPreemptionSkipsVictimsAlreadyTerminating) {
  PreemptionFixture f({Node("n1")}, {Terminating(Running("a", "n1", "2", 1)), Running("b", "n1", "2", 1)});
  f.writer().hold = true;
  auto pod = Preemptor("4");
  auto [result, status] = f.Run(pod);
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().deleted, std::vector<std::string>{"b"});  // "b" is the last and only call
  EXPECT_FALSE(f.plugin().PreEnqueue(*pod).IsSuccess());
  ASSERT_TRUE(f.writer().Complete("b"));
  EXPECT_TRUE(f.plugin().PreEnqueue(*pod).IsSuccess());

  // Nothing left to evict: nothing runs, nothing is held back.
  PreemptionFixture g({Node("n1")}, {Terminating(Running("a", "n1", "4", 1))});
  auto [r2, s2] = g.Run(pod);
  ASSERT_EQ(s2.code(), Code::kSuccess) << s2.Message();
  EXPECT_TRUE(g.writer().deleted.empty());
  EXPECT_TRUE(g.plugin().PreEnqueue(*pod).IsSuccess());
  EXPECT_TRUE(g.writer().goroutines.empty());
}

TEST(DefaultPreemptionTest, AsyncPreemptionClearsLowerPriorityNominations) {
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "4", 1)});
  f.Nominate("n1", MakePod("low").Priority(5).NominatedNode("n1").Req({{"cpu", "1"}}).Obj());
  auto [result, status] = f.Run(Preemptor("2"));
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().cleared, std::vector<std::string>{"low"});
}

TEST(DefaultPreemptionTest, AsyncPreemptionRegistersPodDeleteWithASkipHint) {
  PreemptionFixture f({Node("n1")}, {});
  auto events = f.plugin().EventsToRegister();
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event, framework::ClusterEvent(framework::resource::kPod, framework::ActionType::kDelete));
  ASSERT_TRUE((*events)[0].queueing_hint_fn);
  auto victim = Running("a", "n1", "4", 1);
  auto hint = (*events)[0].queueing_hint_fn(*Preemptor("4"), framework::EventObject(victim), framework::EventObject());
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, framework::QueueingHint::kQueueSkip);
}

TEST(DefaultPreemptionTest, SyncPreemptionHasNoPreEnqueueGateNorEvents) {
  PreemptionFixture f({Node("n1")}, {Running("a", "n1", "2", 2), Running("b", "n1", "2", 1)}, {}, 0,
                      SyncPreemption());
  f.writer().hold = true;  // evictions without completions are never held
  auto pod = Preemptor("4");
  auto [result, status] = f.Run(pod);
  ASSERT_EQ(status.code(), Code::kSuccess) << status.Message();
  EXPECT_EQ(f.writer().deleted, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.writer().events, (std::vector<std::string>{"a@n1", "b@n1"}));
  EXPECT_TRUE(f.plugin().PreEnqueue(*pod).IsSuccess());
  auto events = f.plugin().EventsToRegister();
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->empty());
  EXPECT_TRUE(f.writer().goroutines.empty());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultpreemption
