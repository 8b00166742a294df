// Table tests of every PriorityQueue transition, in every feature-gate mode
// where the behaviour differs.
#include "pkg/scheduler/queue/priority_queue.h"

#include <gtest/gtest.h>

#include <thread>

#include "pkg/scheduler/queue/priority_queue_test_fixture.h"
#include "pkg/util/seconds.h"

namespace ksched::scheduler::queue {
namespace {

using namespace testing;  // NOLINT: test helpers

std::shared_ptr<api::Pod> Gated(const std::string& name, std::vector<std::string> gates = {"g1"}) {
  auto p = MakePod(name);
  for (auto& g : gates) p->spec.scheduling_gates.push_back({g});
  return p;
}

std::shared_ptr<api::Pod> WithPriority(const api::Pod& pod, int32_t prio) {
  auto p = std::make_shared<api::Pod>(pod);
  p->spec.priority = prio;
  return p;
}

// ------------------------------------------------------------------ Add/Pop

TEST_F(PriorityQueueTest, AddPopOrdersByPriorityThenTimestamp) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto low = MakePod("low", 1);
    auto high = MakePod("high", 10);
    auto high2 = MakePod("high2", 10);
    q().Add(low);
    q().Add(high);
    clock_->Step(1ms);
    q().Add(high2);
    EXPECT_EQ(Where(*high), "active");
    auto a = PopNow();
    auto b = PopNow();
    auto c = PopNow();
    EXPECT_EQ(a->pod().metadata.name, "high");
    EXPECT_EQ(b->pod().metadata.name, "high2");
    EXPECT_EQ(c->pod().metadata.name, "low");
    EXPECT_EQ(a->attempts, 1);
    EXPECT_TRUE(a->initial_attempt_timestamp.has_value());
    EXPECT_EQ(q().SchedulingCycle(), 3);
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "UnschedulablePodAdd"), 3);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kActive), 0);
    EXPECT_EQ(q().InFlightPods().size(), m.hints ? 3u : 0u);
    EXPECT_EQ(metrics_->InFlightEvents(kPodPoppedInFlightEvent), m.hints ? 3 : 0);
  }
}

// GetPod builds the same key the sub-queues store, also for a pod without
// namespace (keyed by its bare name, as api::KeyOf does).
TEST_F(PriorityQueueTest, GetPodFindsPodsWithAndWithoutNamespace) {
  Build(kAllModes[0]);
  auto gated_without_ns = Gated("g");
  gated_without_ns->metadata.namespace_.clear();
  q().Add(gated_without_ns);
  q().Add(Gated("g"));
  auto without_ns = q().GetPod("g", "");
  ASSERT_TRUE(without_ns.has_value());
  EXPECT_EQ(without_ns->pod_ptr(), gated_without_ns);
  auto with_ns = q().GetPod("g", "default");
  ASSERT_TRUE(with_ns.has_value());
  EXPECT_EQ(with_ns->pod().metadata.namespace_, "default");
  EXPECT_FALSE(q().GetPod("g", "other").has_value());
}

TEST_F(PriorityQueueTest, AddGatedPodGoesToUnschedulablePods) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto g = Gated("g");
    q().Add(g);
    EXPECT_EQ(Where(*g), "gated");
    auto info = q().GetPod("g", "default");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->gating_plugin, "SchedulingGates");
    EXPECT_TRUE(info->unschedulable_plugins.Has("SchedulingGates"));
    EXPECT_FALSE(info->initial_attempt_timestamp.has_value());
    EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 1);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kUnschedulable), 0);
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kUnschedulable, "UnschedulablePodAdd"), 1);
    EXPECT_EQ(metrics_->UnschedulablePods("SchedulingGates", kProfile), 1);
    EXPECT_EQ(q().NumUnschedulablePods(), 1u);
    EXPECT_EQ(q().PendingPods().summary, "activeQ:0; backoffQ:0; unschedulablePods:1");
  }
}

TEST_F(PriorityQueueTest, PendingPodsSummary) {
  Build({true, true});
  AddPopFail(MakePod("error"), {});         // error backoff heap
  AddPopFail(MakePod("unsched"), {"Fit"});  // unschedulable
  q().Add(MakePod("active"));
  q().Add(Gated("gated"));
  PendingPodsSummary s = q().PendingPods();
  EXPECT_EQ(s.summary, "activeQ:1; backoffQ:1; unschedulablePods:2");
  ASSERT_EQ(s.pods.size(), 4u);
  EXPECT_EQ(s.pods[0]->metadata.name, "active");
  EXPECT_EQ(s.pods[1]->metadata.name, "error");
  EXPECT_EQ(metrics_->PendingPods(QueueName::kActive), 1);
  EXPECT_EQ(metrics_->PendingPods(QueueName::kBackoff), 1);
  EXPECT_EQ(metrics_->PendingPods(QueueName::kUnschedulable), 1);
  EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 1);
}

TEST_F(PriorityQueueTest, PopDiscardsDuplicateOfInFlightPod) {
  Build({true, true});
  auto p = MakePod("p", 10);
  auto other = MakePod("other", 1);
  q().Add(p);
  auto info = PopNow();
  q().Add(p);  // the informer re-delivers the pod while it is in flight
  q().Add(other);
  auto next = PopNow();
  EXPECT_EQ(next->pod().metadata.name, "other");
  EXPECT_EQ(q().InFlightPods().size(), 2u);
  EXPECT_TRUE(q().PodsInActiveQ().empty());
}

// ------------------------------------------------------------------ Update

TEST_F(PriorityQueueTest, UpdateInActiveQReordersInPlace) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto a = MakePod("a", 0);
    auto b = MakePod("b", 5);
    q().Add(a);
    q().Add(b);
    auto a2 = WithPriority(*a, 10);
    q().Update(a, a2);
    EXPECT_EQ(Where(*a), "active");
    EXPECT_EQ(q().PodsInActiveQ().size(), 2u);
    auto first = PopNow();
    EXPECT_EQ(first->pod_ptr(), a2);
    EXPECT_EQ(first->attempts, 1);
  }
}

TEST_F(PriorityQueueTest, UpdateInBackoffQReplacesPod) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto p = MakePod("p");
    AddPopFail(p, {});  // no rejectors: error backoff
    EXPECT_EQ(Where(*p), "backoff");
    auto p2 = WithLabel(*p, "k", "v");
    q().Update(p, p2);
    EXPECT_EQ(Where(*p), "backoff");
    EXPECT_EQ(q().GetPod("p", "default")->pod_ptr(), p2);
  }
}

TEST_F(PriorityQueueTest, UpdateUnschedulableWithHints) {
  struct Case {
    const char* name;
    QueueingHint hint;
    bool error;
    util::Duration wait;
    const char* want;
  };
  const Case cases[] = {
      {"Queue while backing off", QueueingHint::kQueue, false, 0s, "backoff"},
      {"Queue after backoff", QueueingHint::kQueue, false, 2s, "active"},
      {"QueueSkip", QueueingHint::kQueueSkip, false, 2s, "unschedulable"},
      {"hint error means Queue", QueueingHint::kQueueSkip, true, 0s, "backoff"},
  };
  for (bool pop_backoff : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (pop_backoff ? " popbackoff" : ""));
      Build({true, pop_backoff});
      auto p = MakePod("p");
      AddPopFail(p, {"Spread"});
      EXPECT_EQ(Where(*p), "unschedulable");
      clock_->Step(c.wait);
      spread_hint_ = c.hint;
      hint_error_ = c.error;
      auto p2 = WithLabel(*p, "k", "v");
      q().Update(p, p2);
      EXPECT_EQ(Where(*p), c.want);
      EXPECT_EQ(spread_calls_, 1);
      EXPECT_EQ(last_old_.As<api::Pod>(), p.get());
      EXPECT_EQ(last_new_.As<api::Pod>(), p2.get());
      EXPECT_EQ(q().GetPod("p", "default")->pod_ptr(), p2);
      EXPECT_EQ(metrics_->HintExecutions("Spread", "UnschedulablePodUpdatePodLabel",
                                         c.error ? kHintResultError : QueueingHintString(c.hint)),
                1);
    }
  }
}

// One update, two events (labels, then tolerations); only Spread's hint
// (labels: Queue) applies and the pod is still backing off. With
// PopFromBackoffQ kube-scheduler stops at backoffQ. Without it, it goes on:
// the toleration event, which no rejector registered, is QueueSkip and files
// the pod in unschedulablePods too, until its backoff ends and the flush
// takes it out of both.
TEST_F(PriorityQueueTest, UpdateWithHintsGoesOnAfterBackoffQWithoutPopFromBackoffQ) {
  for (bool pop_backoff : {true, false}) {
    SCOPED_TRACE(pop_backoff ? "popbackoff" : "no popbackoff");
    Build({true, pop_backoff});
    auto p = MakePod("p");
    AddPopFail(p, {"Spread"});
    auto changed = std::make_shared<api::Pod>(*WithLabel(*p, "k", "v"));
    changed->spec.tolerations.push_back(api::Toleration{"t", "Exists", "", "", std::nullopt});
    q().Update(p, changed);
    EXPECT_EQ(Where(*p), pop_backoff ? "backoff" : "backoff+unschedulable");
    clock_->Step(2s);
    q().FlushBackoffQCompleted();
    EXPECT_EQ(Where(*p), "active");
    EXPECT_EQ(q().PodsInActiveQ().size(), 1u);
  }
  // A pod filed in both leaves both when it is deleted.
  Build({true, false});
  auto p = MakePod("p");
  AddPopFail(p, {"Spread"});
  auto changed = std::make_shared<api::Pod>(*WithLabel(*p, "k", "v"));
  changed->spec.tolerations.push_back(api::Toleration{"t", "Exists", "", "", std::nullopt});
  q().Update(p, changed);
  ASSERT_EQ(Where(*p), "backoff+unschedulable");
  q().Delete(*changed);
  EXPECT_EQ(Where(*p), "none");
  // And a cluster event moving it from unschedulablePods takes it out of
  // backoffQ: one record, in activeQ.
  auto r = MakePod("r");
  AddPopFail(r, {"Spread"});
  auto r2 = std::make_shared<api::Pod>(*WithLabel(*r, "k", "v"));
  r2->spec.tolerations.push_back(api::Toleration{"t", "Exists", "", "", std::nullopt});
  q().Update(r, r2);
  ASSERT_EQ(Where(*r), "backoff+unschedulable");
  clock_->Step(2s);
  q().MoveAllToActiveOrBackoffQueue(kPodDelete, EventObject(MakePod("gone")), EventObject());
  EXPECT_EQ(Where(*r), "active");
}

// kube-scheduler times every run of a pod's PreEnqueue plugins as the
// PreEnqueue extension point (profile: the pod's schedulerName, status
// always Success), a profile without PreEnqueue plugins included, and in a
// sample of the runs each plugin with its status.
TEST_F(PriorityQueueTest, PreEnqueueRunsAreTimedAndPluginsSampled) {
  Build({true, true}, [](PriorityQueueOptions& o) { o.plugin_metrics_sample_percent = 100; });
  q().Add(Gated("g", {"a"}));
  q().Add(MakePod("p"));
  EXPECT_EQ(metrics_->PreEnqueueRuns(kProfile), 2);
  EXPECT_EQ(metrics_->PreEnqueuePluginRuns("SchedulingGates", framework::Code::kUnschedulableAndUnresolvable), 1);
  EXPECT_EQ(metrics_->PreEnqueuePluginRuns("SchedulingGates", framework::Code::kSuccess), 1);
  EXPECT_EQ(metrics_->PreEnqueuePluginRuns("Gate2", framework::Code::kSuccess), 1);  // g stopped at its gate
  auto other = MakePod("o");
  other->spec.scheduler_name = "no-such-profile";
  q().Add(other);
  EXPECT_EQ(metrics_->PreEnqueueRuns("no-such-profile"), 1);

  // Not sampled: the extension point only.
  Build({true, true}, [](PriorityQueueOptions& o) { o.plugin_metrics_sample_percent = 0; });
  q().Add(MakePod("p"));
  EXPECT_EQ(metrics_->PreEnqueueRuns(kProfile), 1);
  EXPECT_EQ(metrics_->PreEnqueuePluginRuns("SchedulingGates", framework::Code::kSuccess), 0);

  // The default samples about a tenth of the runs.
  Build({true, true});
  for (int i = 0; i < 1000; ++i) q().Add(MakePod("p" + std::to_string(i)));
  EXPECT_EQ(metrics_->PreEnqueueRuns(kProfile), 1000);
  const int64_t sampled = metrics_->PreEnqueuePluginRuns("SchedulingGates", framework::Code::kSuccess);
  EXPECT_GT(sampled, 50);
  EXPECT_LT(sampled, 150);
}

TEST_F(PriorityQueueTest, UpdateUnschedulableIgnoresEventsOfOtherPlugins) {
  Build({true, true});
  auto p = MakePod("p");
  AddPopFail(p, {"Fit"});
  q().Update(p, WithLabel(*p, "k", "v"));  // Fit did not register pod label updates
  EXPECT_EQ(Where(*p), "unschedulable");
  EXPECT_EQ(spread_calls_, 0);
  EXPECT_EQ(fit_calls_, 0);
}

TEST_F(PriorityQueueTest, UpdateUnschedulableWithoutHints) {
  for (bool pop_backoff : {true, false}) {
    SCOPED_TRACE(pop_backoff);
    Build({false, pop_backoff});
    auto p = MakePod("p");
    AddPopFail(p, {"Fit"});
    // A status-only change cannot help.
    auto status_only = std::make_shared<api::Pod>(*p);
    status_only->status.conditions.push_back(api::PodCondition{"PodScheduled", "False"});
    status_only->metadata.resource_version = "2";
    q().Update(p, status_only);
    EXPECT_EQ(Where(*p), "unschedulable");
    // Any other change moves it: to backoffQ while backing off...
    auto labelled = WithLabel(*status_only, "k", "v");
    q().Update(status_only, labelled);
    EXPECT_EQ(Where(*p), "backoff");
    // ...and straight to activeQ once the backoff is over.
    auto q2 = MakePod("q2");
    AddPopFail(q2, {"Fit"});
    clock_->Step(2s);
    q().Update(q2, WithLabel(*q2, "k", "v"));
    EXPECT_EQ(Where(*q2), "active");
  }
}

TEST_F(PriorityQueueTest, UpdateRemovingGatesActivates) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto g = Gated("g", {"a", "b"});
    q().Add(g);
    // Removing one of two gates leaves it gated.
    auto one = Gated("g", {"a"});
    q().Update(g, one);
    EXPECT_EQ(Where(*g), "gated");
    auto none = MakePod("g");
    q().Update(one, none);
    EXPECT_EQ(Where(*g), "active");
    auto info = q().GetPod("g", "default");
    EXPECT_TRUE(info->initial_attempt_timestamp.has_value());
    EXPECT_FALSE(info->Gated());
    EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 0);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kActive), 1);
  }
}

TEST_F(PriorityQueueTest, UpdateOfInFlightPodIsReplayedOnFailure) {
  for (QueueingHint hint : {QueueingHint::kQueue, QueueingHint::kQueueSkip}) {
    SCOPED_TRACE(QueueingHintString(hint));
    Build({true, true});
    auto p = MakePod("p");
    q().Add(p);
    auto info = PopNow();
    auto p2 = WithLabel(*p, "k", "v");
    q().Update(p, p2);
    EXPECT_EQ(Where(*p), "inflight");
    EXPECT_EQ(q().InFlightListSize(), 2u);  // the pod marker and the update event
    EXPECT_EQ(metrics_->InFlightEvents("UnschedulablePodUpdatePodLabel"), 1);
    spread_hint_ = hint;
    Fail(info, {"Spread"});
    EXPECT_EQ(Where(*p), hint == QueueingHint::kQueue ? "backoff" : "unschedulable");
    EXPECT_EQ(spread_calls_, 1);
    EXPECT_EQ(q().InFlightListSize(), 0u);
    EXPECT_EQ(metrics_->InFlightEvents("UnschedulablePodUpdatePodLabel"), 0);
    EXPECT_EQ(metrics_->InFlightEvents(kPodPoppedInFlightEvent), 0);
  }
}

TEST_F(PriorityQueueTest, UpdateOfInFlightPodWithoutHintsRequeuesIt) {
  Build({false, true});
  auto p = MakePod("p");
  q().Add(p);
  auto info = PopNow();
  q().Update(p, WithLabel(*p, "k", "v"));
  // kube-scheduler without hints puts the pod back at once...
  EXPECT_EQ(Where(*p), "active");
  // ...and the failure handler then finds it queued.
  info->unschedulable_plugins.Insert("Fit");
  util::Status s = q().AddUnschedulableIfNotPresent(info, q().SchedulingCycle());
  EXPECT_EQ(s.code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "Pod default/p is already present in the active queue");
}

// kube 1.36 keeps a popped pod's rejectors until its failure handler
// replaces them (RejectorsClearedOnFailure); 1.34 and 1.35 clear them at
// Pop. The unschedulable_pods gauge drops at Pop either way.
TEST_F(PriorityQueueTest, PopClearsRejectorsOnlyBeforeKube136) {
  for (bool kept : {false, true}) {
    SCOPED_TRACE(kept);
    Build({true, true}, [&](PriorityQueueOptions& o) { o.features.rejectors_cleared_on_failure = kept; });
    auto p = MakePod("p");
    q().Add(p);
    auto info = PopNow();
    info->unschedulable_plugins.Insert("Fit");
    info->pending_plugins.Insert("Pend");
    ASSERT_TRUE(q().AddUnschedulableIfNotPresent(info, q().SchedulingCycle()).ok());
    q().Activate({p});
    auto again = PopNow();
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->unschedulable_plugins.Has("Fit"), kept);
    EXPECT_EQ(again->pending_plugins.Has("Pend"), kept);
    EXPECT_EQ(metrics_->UnschedulablePods("Fit", again->pod().spec.scheduler_name), 0);
  }
}

TEST_F(PriorityQueueTest, UpdateOfUnknownPodAddsIt) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto p = MakePod("p");
    q().Update(nullptr, p);
    EXPECT_EQ(Where(*p), "active");
    auto p2 = MakePod("p2");
    q().Update(MakePod("p2"), p2);
    EXPECT_EQ(Where(*p2), "active");
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "UnschedulablePodUpdate"), 2);
  }
}

// ------------------------------------------------------------------ Delete

TEST_F(PriorityQueueTest, DeleteFromEveryPlace) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto active = MakePod("active");
    auto backoff = MakePod("backoff");
    auto unsched = MakePod("unsched");
    auto gated = Gated("gated");
    AddPopFail(backoff, {});
    AddPopFail(unsched, {"Fit"});
    q().Add(gated);
    q().Add(active);
    auto inflight = MakePod("inflight", 100);
    q().Add(inflight);
    auto popped = PopNow();
    ASSERT_EQ(popped->pod().metadata.name, "inflight");
    for (const auto& p : {active, backoff, unsched, gated, inflight}) q().Delete(*p);
    EXPECT_EQ(q().PendingPods().summary, "activeQ:0; backoffQ:0; unschedulablePods:0");
    EXPECT_EQ(q().InFlightPods().size(), m.hints ? 1u : 0u);  // in-flight copies are not touched
    EXPECT_EQ(metrics_->PendingPods(QueueName::kActive), 0);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kBackoff), 0);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kUnschedulable), 0);
    EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 0);
    q().Delete(*MakePod("never-seen"));
  }
}

// ------------------------------------------------------- AddUnschedulable

TEST_F(PriorityQueueTest, AddUnschedulableRejectsQueuedPods) {
  Build({true, true});
  auto unsched = MakePod("unsched");
  AddPopFail(unsched, {"Fit"});
  auto active = MakePod("active");
  q().Add(active);
  auto fake = std::make_shared<framework::QueuedPodInfo>(active, clock_->Now());
  EXPECT_EQ(q().AddUnschedulableIfNotPresent(fake, 0).message(),
            "Pod default/active is already present in the active queue");
  fake = std::make_shared<framework::QueuedPodInfo>(unsched, clock_->Now());
  EXPECT_EQ(q().AddUnschedulableIfNotPresent(fake, 0).message(),
            "Pod default/unsched is already present in unschedulable queue");
  q().Delete(*active);
  auto backoff = MakePod("backoff");
  AddPopFail(backoff, {});
  fake = std::make_shared<framework::QueuedPodInfo>(backoff, clock_->Now());
  EXPECT_EQ(q().AddUnschedulableIfNotPresent(fake, 0).message(),
            "Pod default/backoff is already present in the backoff queue");
}

TEST_F(PriorityQueueTest, AddUnschedulableCountersAndTimestamp) {
  Build({true, true});
  auto p = MakePod("p");
  q().Add(p);
  auto info = PopNow();
  clock_->Step(3s);
  info->backoff_expiration = clock_->Now();
  Fail(info, {});
  EXPECT_EQ(info->consecutive_errors_count, 1);
  EXPECT_EQ(info->unschedulable_count, 0);
  EXPECT_EQ(info->timestamp, clock_->Now());
  // The cached deadline was recomputed from the new timestamp.
  EXPECT_EQ(info->backoff_expiration, clock_->Now() + 1s);
  clock_->Step(2s);
  q().FlushBackoffQCompleted();
  info = PopNow();
  Fail(info, {});
  EXPECT_EQ(info->consecutive_errors_count, 2);
  clock_->Step(3s);
  q().FlushBackoffQCompleted();
  info = PopNow();
  Fail(info, {"Fit"});
  EXPECT_EQ(info->consecutive_errors_count, 0);
  EXPECT_EQ(info->unschedulable_count, 1);
  EXPECT_EQ(metrics_->UnschedulablePods("Fit", kProfile), 1);
  EXPECT_EQ(metrics_->IncomingPods(QueueName::kBackoff, "ScheduleAttemptFailure"), 2);
  EXPECT_EQ(metrics_->IncomingPods(QueueName::kUnschedulable, "ScheduleAttemptFailure"), 1);
}

TEST_F(PriorityQueueTest, AddUnschedulableWithHintsUsesInFlightEvents) {
  struct Case {
    const char* name;
    std::vector<std::string> unschedulable;
    std::vector<std::string> pending;
    QueueingHint fit, pend;
    bool event;  // a Node/Add arrives while in flight
    util::Duration wait;
    const char* want;
  };
  const Case cases[] = {
      {"no event", {"Fit"}, {}, QueueingHint::kQueue, QueueingHint::kQueue, false, 0s, "unschedulable"},
      {"event, Queue, backing off", {"Fit"}, {}, QueueingHint::kQueue, QueueingHint::kQueue, true, 0s, "backoff"},
      // The return refreshes the timestamp, so the pod always owes a backoff.
      {"event, Queue, time passed", {"Fit"}, {}, QueueingHint::kQueue, QueueingHint::kQueue, true, 2s, "backoff"},
      {"event, QueueSkip", {"Fit"}, {}, QueueingHint::kQueueSkip, QueueingHint::kQueue, true, 0s, "unschedulable"},
      {"pending plugin Queue: immediately", {}, {"Pend"}, QueueingHint::kQueue, QueueingHint::kQueue, true, 0s,
       "active"},
      {"pending skips, unschedulable queues", {"Fit"}, {"Pend"}, QueueingHint::kQueue, QueueingHint::kQueueSkip,
       true, 0s, "backoff"},
      {"both queue: immediately", {"Fit"}, {"Pend"}, QueueingHint::kQueue, QueueingHint::kQueue, true, 0s, "active"},
      {"both skip", {"Fit"}, {"Pend"}, QueueingHint::kQueueSkip, QueueingHint::kQueueSkip, true, 0s,
       "unschedulable"},
      {"rejector not registered", {"Silent"}, {}, QueueingHint::kQueue, QueueingHint::kQueue, true, 0s,
       "unschedulable"},
      {"no rejectors: error backoff", {}, {}, QueueingHint::kQueue, QueueingHint::kQueue, false, 0s, "backoff"},
  };
  for (bool pop_backoff : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (pop_backoff ? " popbackoff" : ""));
      Build({true, pop_backoff});
      fit_hint_ = c.fit;
      pend_hint_ = c.pend;
      auto p = MakePod("p");
      q().Add(p);
      auto info = PopNow();
      if (c.event) MoveAll(kNodeAdd, {}, EventObject(std::make_shared<const api::Node>()));
      clock_->Step(c.wait);
      for (auto& s : c.unschedulable) info->unschedulable_plugins.Insert(s);
      for (auto& s : c.pending) info->pending_plugins.Insert(s);
      ASSERT_TRUE(q().AddUnschedulableIfNotPresent(info, q().SchedulingCycle()).ok());
      EXPECT_EQ(Where(*p), c.want);
      EXPECT_TRUE(q().InFlightPods().empty());
    }
  }
}

TEST_F(PriorityQueueTest, MoveRequestCycleWithoutHints) {
  struct Case {
    const char* name;
    bool event_before_pop, event_after_pop, uninteresting;
    std::vector<std::string> plugins;
    const char* want;
  };
  const Case cases[] = {
      {"no move request", false, false, false, {"Fit"}, "unschedulable"},
      {"move request during the attempt", false, true, false, {"Fit"}, "backoff"},
      {"move request before the attempt", true, false, false, {"Fit"}, "unschedulable"},
      {"uninteresting event is no move request", false, true, true, {"Fit"}, "unschedulable"},
      {"event for another plugin still counts", false, true, false, {"Silent"}, "backoff"},
      {"no rejectors", false, false, false, {}, "backoff"},
  };
  for (bool pop_backoff : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (pop_backoff ? " popbackoff" : ""));
      Build({false, pop_backoff});
      const ClusterEvent e = c.uninteresting ? ClusterEvent(framework::resource::kCSIDriver, ActionType::kAdd)
                                             : kNodeAdd;
      auto p = MakePod("p");
      q().Add(p);
      if (c.event_before_pop) MoveAll(e);
      auto info = PopNow();
      if (c.event_after_pop) MoveAll(e);
      for (auto& s : c.plugins) info->unschedulable_plugins.Insert(s);
      ASSERT_TRUE(q().AddUnschedulableIfNotPresent(info, q().SchedulingCycle()).ok());
      EXPECT_EQ(Where(*p), c.want);
    }
  }
}

TEST_F(PriorityQueueTest, InFlightEventsAreRecordedOnlyWhileNeededAndPruned) {
  Build({true, true});
  MoveAll(kNodeAdd);
  EXPECT_EQ(q().InFlightListSize(), 0u);  // nothing in flight
  auto a = MakePod("a", 10);
  auto b = MakePod("b", 5);
  q().Add(a);
  q().Add(b);
  auto ia = PopNow();
  MoveAll(kNodeAdd);  // seen by a only
  auto ib = PopNow();
  MoveAll(kNodeAllocatable);  // seen by a and b
  MoveAll(ClusterEvent(framework::resource::kCSIDriver, ActionType::kAdd));  // nobody cares: not recorded
  EXPECT_EQ(q().InFlightListSize(), 4u);
  EXPECT_EQ(metrics_->InFlightEvents("NodeAdd"), 1);
  EXPECT_EQ(metrics_->InFlightEvents("NodeUpdateNodeAllocatable"), 1);
  q().Done(ia->pod().metadata.uid);
  // a's marker and the event only it needed are gone.
  EXPECT_EQ(q().InFlightListSize(), 2u);
  EXPECT_EQ(metrics_->InFlightEvents("NodeAdd"), 0);
  fit_hint_ = QueueingHint::kQueue;
  Fail(ib, {"Fit"});
  EXPECT_EQ(fit_calls_, 1);  // only the allocatable update was replayed
  EXPECT_EQ(Where(*b), "backoff");
  EXPECT_EQ(q().InFlightListSize(), 0u);
  EXPECT_EQ(metrics_->InFlightEvents("NodeUpdateNodeAllocatable"), 0);
  EXPECT_EQ(metrics_->InFlightEvents(kPodPoppedInFlightEvent), 0);
  q().Done("unknown-uid");  // harmless
}

TEST_F(PriorityQueueTest, DoneIsNoOpWithoutHints) {
  Build({false, true});
  q().Add(MakePod("p"));
  auto info = PopNow();
  q().Done(info->pod().metadata.uid);
  EXPECT_EQ(q().InFlightListSize(), 0u);
}

// ------------------------------------------------------------------ MoveAll

TEST_F(PriorityQueueTest, MoveAllMovesOnlyPodsWhoseRejectorsRegistered) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto a = MakePod("a");
    auto b = MakePod("b");
    auto c = MakePod("c");
    auto d = MakePod("d");
    AddPopFail(a, {"Fit"});
    AddPopFail(b, {"Spread"});
    AddPopFail(c, {"Silent"});
    AddPopFail(d, {"Fit", "Spread"});
    clock_->Step(2s);
    MoveAll(kNodeAdd);
    EXPECT_EQ(Where(*a), "active");
    EXPECT_EQ(Where(*b), "unschedulable");
    EXPECT_EQ(Where(*c), "unschedulable");
    EXPECT_EQ(Where(*d), "active");
    EXPECT_EQ(fit_calls_, m.hints ? 2 : 0);
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "NodeAdd"), 2);
    MoveAll(kAssignedPodDelete);
    EXPECT_EQ(Where(*b), "active");
    EXPECT_EQ(Where(*c), "unschedulable");
    // Only the wildcard (the leftover flush) moves c.
    clock_->Step(5min);
    q().FlushUnschedulablePodsLeftover();
    EXPECT_EQ(Where(*c), "active");
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "UnschedulableTimeout"), 1);
  }
}

// A pod the leftover flush moved carries the mark into its next attempt
// (the scheduler counts it if that attempt binds it); failing again clears it,
// as does an event that moves it.
TEST_F(PriorityQueueTest, TheLeftoverFlushMarksThePodsItMoves) {
  Build({true, true});
  auto p = MakePod("p");
  QueuedPodInfoPtr info = AddPopFail(p, {"Silent"});
  EXPECT_FALSE(info->was_flushed_from_unschedulable);
  clock_->Step(6min);
  q().FlushUnschedulablePodsLeftover();
  QueuedPodInfoPtr again = PopNow();
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->was_flushed_from_unschedulable);
  Fail(again, {"Fit"});
  EXPECT_FALSE(again->was_flushed_from_unschedulable);
  clock_->Step(30s);  // past its backoff
  MoveAll(kNodeAdd);
  QueuedPodInfoPtr moved = PopNow();
  ASSERT_NE(moved, nullptr);
  EXPECT_FALSE(moved->was_flushed_from_unschedulable);
}

TEST_F(PriorityQueueTest, MoveAllHintOutcomes) {
  struct Case {
    const char* name;
    QueueingHint hint;
    bool error;
    util::Duration wait;
    const char* want;
  };
  const Case cases[] = {
      {"Queue while backing off", QueueingHint::kQueue, false, 0s, "backoff"},
      {"Queue after backoff", QueueingHint::kQueue, false, 2s, "active"},
      {"QueueSkip", QueueingHint::kQueueSkip, false, 2s, "unschedulable"},
      {"error means Queue", QueueingHint::kQueueSkip, true, 2s, "active"},
  };
  for (bool pop_backoff : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (pop_backoff ? " popbackoff" : ""));
      Build({true, pop_backoff});
      auto p = MakePod("p");
      AddPopFail(p, {"Fit"});
      clock_->Step(c.wait);
      fit_hint_ = c.hint;
      hint_error_ = c.error;
      auto node = std::make_shared<const api::Node>();
      MoveAll(kNodeAllocatable, EventObject(node), EventObject(node));
      EXPECT_EQ(Where(*p), c.want);
      EXPECT_EQ(last_hint_pod_, "p");
      EXPECT_EQ(last_new_.As<api::Node>(), node.get());
      EXPECT_EQ(metrics_->HintExecutions("Fit", "NodeUpdateNodeAllocatable",
                                         c.error ? kHintResultError : QueueingHintString(c.hint)),
                1);
    }
  }
}

// The hint's duration is the time spent in the hint (read with the cycle
// counter, not the injected clock, which no hint moves).
TEST_F(PriorityQueueTest, HintDurationIsTheTimeSpentInTheHint) {
  Build({true, true});
  auto p = MakePod("p");
  AddPopFail(p, {"Fit"});
  hint_busy_ = 2ms;
  auto node = std::make_shared<const api::Node>();
  const auto start = std::chrono::steady_clock::now();
  MoveAll(kNodeAllocatable, EventObject(node), EventObject(node));
  const double around = util::Seconds(std::chrono::steady_clock::now() - start);
  ASSERT_EQ(metrics_->HintExecutions("Fit", "NodeUpdateNodeAllocatable", kHintResultQueue), 1);
  const double seconds = metrics_->HintSeconds("Fit", "NodeUpdateNodeAllocatable", kHintResultQueue);
  // Loose bounds: the counter's rate is calibrated against steady_clock.
  EXPECT_GE(seconds, 0.001);
  EXPECT_LE(seconds, 1.5 * around);
}

TEST_F(PriorityQueueTest, MoveAllPendingPluginQueuesImmediately) {
  Build({true, true});
  auto p = MakePod("p");
  AddPopFail(p, {}, {"Pend"});
  EXPECT_EQ(Where(*p), "unschedulable");
  MoveAll(kNodeAdd);  // backoff is not over, but Pending skips it
  EXPECT_EQ(Where(*p), "active");
}

TEST_F(PriorityQueueTest, MoveAllPreCheckFilters) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto a = MakePod("a");
    auto b = MakePod("b");
    AddPopFail(a, {"Fit"});
    AddPopFail(b, {"Fit"});
    clock_->Step(2s);
    MoveAll(kNodeAdd, {}, {}, [](const api::Pod& pod) { return pod.metadata.name == "b"; });
    EXPECT_EQ(Where(*a), "unschedulable");
    EXPECT_EQ(Where(*b), "active");
  }
}

TEST_F(PriorityQueueTest, GatedPodsMoveOnlyOnTheirGatingPluginsEvents) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    gate2_->gated.insert("g");
    auto g = MakePod("g");
    q().Add(g);
    EXPECT_EQ(Where(*g), "gated");
    EXPECT_EQ(q().GetPod("g", "default")->gating_plugin, "Gate2");
    gate2_->gated.clear();
    MoveAll(kNodeAdd);  // Fit cares, but Gate2 does not
    EXPECT_EQ(Where(*g), "gated");
    clock_->Step(10min);
    q().FlushUnschedulablePodsLeftover();  // never for gated pods
    EXPECT_EQ(Where(*g), "gated");
    MoveAll(kPvAdd);
    EXPECT_EQ(Where(*g), "active");
    EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 0);
  }
}

// 1.37: the leftover flush (a wildcard event) re-runs a gated pod's
// PreEnqueue too, since its gating plugin's events may never come, and then
// leaves the pod alone for another podMaxInUnschedulablePodsDuration; before
// 1.37 it never touches a gated pod.
TEST_F(PriorityQueueTest, LeftoverFlushOfGatedPods) {
  for (bool since_137 : {false, true}) {
    SCOPED_TRACE(since_137 ? "1.37" : "1.36");
    Build({true, true}, [&](PriorityQueueOptions& o) { o.features.leftover_flush_of_gated_pods = since_137; });
    gate2_->gated.insert("g");
    auto g = MakePod("g");
    q().Add(g);
    ASSERT_EQ(Where(*g), "gated");
    const int calls = gate2_->calls;
    clock_->Step(5min + 1s);
    q().FlushUnschedulablePodsLeftover();
    EXPECT_EQ(Where(*g), "gated");
    EXPECT_EQ(gate2_->calls - calls, since_137 ? 1 : 0);
    clock_->Step(30s);
    q().FlushUnschedulablePodsLeftover();  // 1.37: flushed 30 s ago
    EXPECT_EQ(gate2_->calls - calls, since_137 ? 1 : 0);
    gate2_->gated.clear();  // without an event Gate2 registered for
    clock_->Step(5min);
    q().FlushUnschedulablePodsLeftover();
    EXPECT_EQ(Where(*g), since_137 ? "active" : "gated");
  }
}

TEST_F(PriorityQueueTest, GatedPodStillGatedStaysGated) {
  Build({true, true});
  gate2_->gated.insert("g");
  auto g = MakePod("g");
  q().Add(g);
  int calls = gate2_->calls;
  MoveAll(kPvAdd);
  EXPECT_EQ(Where(*g), "gated");
  EXPECT_EQ(gate2_->calls, calls + 1);  // re-checked, still gated
  EXPECT_EQ(q().NumUnschedulablePods(), 1u);
  EXPECT_EQ(metrics_->PendingPods(QueueName::kGated), 1);
}

TEST_F(PriorityQueueTest, PreEnqueueRunsGatingPluginFirst) {
  Build({true, true});
  gate2_->gated.insert("g");
  q().Add(MakePod("g"));
  // Now both gate it: Gate2 gated it last, so Gate2 is asked first and stays
  // the gating plugin.
  auto with_gates = Gated("g");
  q().Update(MakePod("g"), with_gates);
  MoveAll(kPvAdd);
  EXPECT_EQ(q().GetPod("g", "default")->gating_plugin, "Gate2");
}

TEST_F(PriorityQueueTest, ForceActivateWildcardOnlyForItsPod) {
  Build({true, true});
  auto a = MakePod("a");
  auto b = MakePod("b");
  AddPopFail(a, {"Fit"});
  AddPopFail(b, {"Fit"});
  clock_->Step(2s);
  MoveAll(framework::kEventForceActivate, {}, EventObject(PodPtr(b)));
  EXPECT_EQ(Where(*a), "unschedulable");
  EXPECT_EQ(Where(*b), "active");
  MoveAll(framework::kEventForceActivate, {}, EventObject(std::make_shared<const api::Node>()));
  EXPECT_EQ(Where(*a), "unschedulable");
  MoveAll(framework::kEventForceActivate);
  EXPECT_EQ(Where(*a), "active");
}

// ------------------------------------------------------------------ Activate

TEST_F(PriorityQueueTest, ActivateMovesFromUnschedulableAndBackoff) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto u = MakePod("u");
    auto b = MakePod("b");
    auto g = Gated("g");
    AddPopFail(u, {"Fit"});
    AddPopFail(b, {});
    q().Add(g);
    q().Activate({u, b, g, MakePod("unknown")});
    EXPECT_EQ(Where(*u), "active");
    EXPECT_EQ(Where(*b), "active");
    EXPECT_EQ(Where(*g), "gated");
    EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "ForceActivate"), 2);
  }
}

TEST_F(PriorityQueueTest, ActivateInFlightPodRetriesItOnReturn) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto p = MakePod("p");
    q().Add(p);
    auto info = PopNow();
    q().Activate({p});
    clock_->Step(2s);
    Fail(info, {"Silent"});  // no event would ever move it, but activation does
    EXPECT_EQ(Where(*p), "backoff");
  }
}

// ------------------------------------------------------------------ Pop

TEST_F(PriorityQueueTest, PopBlocksUntilAdd) {
  Build({true, true});
  framework::QueuedPodInfoPtr got;
  std::thread t([&] { got = q().Pop(); });
  q().Add(MakePod("p"));
  t.join();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->pod().metadata.name, "p");
}

TEST_F(PriorityQueueTest, CloseWakesBlockedPop) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    framework::QueuedPodInfoPtr got = std::make_shared<framework::QueuedPodInfo>();
    std::thread t([&] { got = q().Pop(); });
    q().Close();
    t.join();
    EXPECT_EQ(got, nullptr);
  }
}

TEST_F(PriorityQueueTest, CloseEndsFlightsButQueuedPodsStillPop) {
  Build({true, true});
  q().Add(MakePod("a", 2));
  q().Add(MakePod("b", 1));
  PopNow();
  q().Close();
  EXPECT_TRUE(q().InFlightPods().empty());
  EXPECT_EQ(metrics_->InFlightEvents(kPodPoppedInFlightEvent), 0);
  auto b = q().Pop();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->pod().metadata.name, "b");
  EXPECT_EQ(q().Pop(), nullptr);
  q().Close();  // idempotent
}

TEST_F(PriorityQueueTest, PopFromBackoffQWhenActiveQIsEmpty) {
  Build({true, true});
  auto p = MakePod("p", 1);
  auto h = MakePod("h", 5);
  AddPopFail(p, {"Fit"});
  AddPopFail(h, {"Fit"});
  MoveAll(kNodeAdd);
  EXPECT_EQ(Where(*p), "backoff");
  // Still backing off, but activeQ is empty: the head of the window comes out.
  auto got = PopNow();
  EXPECT_EQ(got->pod().metadata.name, "h");
  EXPECT_EQ(got->attempts, 2);
  EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "PopFromBackoffQ"), 1);
  // activeQ pods come first.
  auto a = MakePod("a", 0);
  q().Add(a);
  EXPECT_EQ(PopNow()->pod().metadata.name, "a");
  EXPECT_EQ(PopNow()->pod().metadata.name, "p");
}

TEST_F(PriorityQueueTest, ErrorBackoffHeapIsNeverPoppedEarly) {
  Build({true, true});
  auto e = MakePod("e", 100);
  AddPopFail(e, {});  // an error: error heap
  auto r = MakePod("r", 1);
  AddPopFail(r, {"Fit"});
  MoveAll(kNodeAdd);  // r to the rejection heap
  EXPECT_EQ(PopNow()->pod().metadata.name, "r");
  // Only the error heap is left: Pop would block; Close proves it.
  q().Close();
  EXPECT_EQ(q().Pop(), nullptr);
  EXPECT_EQ(Where(*e), "backoff");
}

TEST_F(PriorityQueueTest, WithoutPopFromBackoffQPopWaitsForTheFlush) {
  Build({true, false});
  auto p = MakePod("p");
  AddPopFail(p, {"Fit"});
  MoveAll(kNodeAdd);
  EXPECT_EQ(Where(*p), "backoff");
  q().FlushBackoffQCompleted();
  EXPECT_EQ(Where(*p), "backoff");
  clock_->Step(1001ms);
  q().FlushBackoffQCompleted();
  EXPECT_EQ(Where(*p), "active");
  EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "BackoffComplete"), 1);
}

// ------------------------------------------------------------------ backoff

TEST_F(PriorityQueueTest, BackoffDurationsThroughTheQueue) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    // Start at a whole second so window arithmetic is exact.
    auto p = MakePod("p");
    q().Add(p);
    const util::Duration want[] = {1s, 2s, 4s, 8s, 10s, 10s, 10s};
    for (util::Duration d : want) {
      auto info = PopNow();
      ASSERT_NE(info, nullptr);
      Fail(info, {});  // error backoff: only the flush releases it
      clock_->Step(d - 1ms);
      q().FlushBackoffQCompleted();
      EXPECT_EQ(Where(*p), "backoff") << d.count();
      // With windows the pod is released in the window after its deadline.
      clock_->Step(m.pop_from_backoff ? 1001ms : 2ms);
      q().FlushBackoffQCompleted();
      EXPECT_EQ(Where(*p), "active") << d.count();
    }
  }
}

TEST_F(PriorityQueueTest, CustomBackoffOptions) {
  Build({true, false}, [](PriorityQueueOptions& o) {
    o.pod_initial_backoff = 3s;
    o.pod_max_backoff = 5s;
  });
  auto p = MakePod("p");
  q().Add(p);
  for (util::Duration d : {3s, 5s, 5s}) {
    Fail(PopNow(), {});
    clock_->Step(d);
    q().FlushBackoffQCompleted();
    EXPECT_EQ(Where(*p), "backoff");
    clock_->Step(1ms);
    q().FlushBackoffQCompleted();
    EXPECT_EQ(Where(*p), "active");
  }
}

TEST_F(PriorityQueueTest, UnschedulableLeftoverFlush) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m);
    auto p = MakePod("p");
    AddPopFail(p, {"Silent"});
    clock_->Step(5min);
    q().FlushUnschedulablePodsLeftover();
    EXPECT_EQ(Where(*p), "unschedulable");  // exactly 5 min is not "longer than"
    clock_->Step(1ms);
    q().FlushUnschedulablePodsLeftover();
    EXPECT_EQ(Where(*p), "active");
  }
}

TEST_F(PriorityQueueTest, LeftoverFlushDurationIsConfigurable) {
  Build({true, true}, [](PriorityQueueOptions& o) { o.pod_max_in_unschedulable_pods_duration = 30s; });
  auto p = MakePod("p");
  AddPopFail(p, {"Silent"});
  clock_->Step(31s);
  q().FlushUnschedulablePodsLeftover();
  EXPECT_EQ(Where(*p), "active");
}

TEST_F(PriorityQueueTest, RunFlushesInTheBackground) {
  Build({true, true});
  q().Run();
  q().Run();  // idempotent
  auto p = MakePod("p");
  AddPopFail(p, {});  // error heap: Pop cannot take it early
  // The flusher thread may not have run yet (nothing here waits for it);
  // its schedule is anchored at Run(), so the flush due at +1 s still runs
  // once it sees +2 s. (Anchored at the thread's start, it would see +2 s
  // first and wait for +3 s, which never comes: this test hung.)
  clock_->Step(2s);
  // Pop blocks until the flusher notices the stepped clock.
  auto got = q().Pop();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->pod().metadata.name, "p");
  q().Close();
}

TEST_F(PriorityQueueTest, RunFlushesLeftoversInTheBackground) {
  Build({true, false});
  q().Run();
  auto p = MakePod("p");
  AddPopFail(p, {"Silent"});
  clock_->Step(6min);
  auto got = q().Pop();  // first the leftover flush, then the backoff is over
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->pod().metadata.name, "p");
}

// Run()'s leftover flush repeats every 30 s, measured from the end of the
// previous one, and not earlier. The flusher runs the leftover flush before
// the backoff flush whenever both are due, so a probe pod released by a
// backoff flush at time t proves the flusher has seen t: a leftover flush
// due by then would already have moved `a`.
TEST_F(PriorityQueueTest, RunRepeatsTheLeftoverFlushEvery30s) {
  for (Mode m : kAllModes) {
    SCOPED_TRACE(m.Name());
    Build(m, [](PriorityQueueOptions& o) { o.pod_max_in_unschedulable_pods_duration = 10s; });
    auto a = MakePod("a", 10);
    auto probe = MakePod("probe", 0);
    AddPopFail(a, {"Silent"});
    clock_->Step(11s);
    // The first flush runs at once and moves `a`, unschedulable for 11 s;
    // the next one is due 30 s later.
    q().Run();
    auto got = q().Pop();
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->pod().metadata.name, "a");
    Fail(got, {"Silent"});
    AddPopFail(probe, {});  // error backoff: only a backoff flush releases it
    for (int round = 0; round < 2; ++round) {
      SCOPED_TRACE(round);
      // 29 s after the last leftover flush: the backoff flush releases the
      // probe, the leftover flush is not due yet although `a` has waited
      // longer than 10 s.
      clock_->Step(29s);
      got = q().Pop();
      ASSERT_NE(got, nullptr);
      ASSERT_EQ(got->pod().metadata.name, "probe");
      EXPECT_EQ(Where(*a), "unschedulable");
      Fail(got, {});  // its next backoff ends after the next leftover flush
      // 30 s: the leftover flush moves `a`.
      clock_->Step(1s);
      got = q().Pop();
      ASSERT_NE(got, nullptr);
      ASSERT_EQ(got->pod().metadata.name, "a");
      EXPECT_EQ(Where(*probe), "backoff");
      Fail(got, {"Silent"});
    }
    q().Close();
  }
}

// ------------------------------------------------------------------ nominator

TEST_F(PriorityQueueTest, NominatedPodsForNode) {
  Build({true, true});
  auto p = MakePod("p");
  p->status.nominated_node_name = "n1";
  q().Add(p);
  auto nominated = q().NominatedPodsForNode("n1");
  ASSERT_EQ(nominated.size(), 1u);
  EXPECT_EQ(nominated[0]->pod_ptr(), p);
  // An update in activeQ refreshes the pointer.
  auto p2 = WithLabel(*p, "k", "v");
  q().Update(p, p2);
  nominated = q().NominatedPodsForNode("n1");
  ASSERT_EQ(nominated.size(), 1u);
  EXPECT_EQ(nominated[0]->pod_ptr(), p2);
  // A nomination of a pod no longer queued keeps the whole pod, requests
  // included.
  framework::NominatingInfo override{framework::NominatingMode::kOverride, "n2"};
  auto gone = MakePod("gone");
  api::Container c;
  c.resources.requests["cpu"] = api::Quantity::MustParse("2");
  gone->spec.containers.push_back(c);
  q().AddNominatedPod(framework::PodInfo(gone), &override);
  nominated = q().NominatedPodsForNode("n2");
  ASSERT_EQ(nominated.size(), 1u);
  EXPECT_EQ(nominated[0]->pod_ptr(), gone);
  EXPECT_EQ(nominated[0]->requests().milli_cpu, 2000);
  q().DeleteNominatedPodIfExists(*gone);
  EXPECT_TRUE(q().NominatedPodsForNode("n2").empty());
  q().Delete(*p2);
  EXPECT_TRUE(q().NominatedPodsForNode("n1").empty());
}

TEST_F(PriorityQueueTest, NominatedPodKeptAcrossQueueMovesAndClearedWhenBound) {
  Build({true, true});
  auto p = MakePod("p");
  q().Add(p);
  auto popped = q().Pop();
  ASSERT_NE(popped, nullptr);
  // Being scheduled: the nominator answers with the pod itself (its
  // requests count on the node).
  framework::NominatingInfo override{framework::NominatingMode::kOverride, "n1"};
  q().AddNominatedPod(popped->pod_info, &override);
  ASSERT_EQ(q().NominatedPodsForNode("n1").size(), 1u);
  EXPECT_EQ(q().NominatedPodsForNode("n1")[0]->pod_ptr(), p);
  // Back to unschedulable, then to activeQ by an event: still nominated.
  popped->unschedulable_plugins.Insert("Fit");
  ASSERT_TRUE(q().AddUnschedulableIfNotPresent(popped, q().SchedulingCycle()).ok());
  ASSERT_EQ(q().NominatedPodsForNode("n1").size(), 1u);
  q().Activate({p});
  EXPECT_EQ(Where(*p), "active");
  ASSERT_EQ(q().NominatedPodsForNode("n1").size(), 1u);
  // Assumed (bound): the scheduler drops the nomination.
  popped = q().Pop();
  ASSERT_NE(popped, nullptr);
  q().DeleteNominatedPodIfExists(popped->pod());
  q().Done(p->metadata.uid);
  EXPECT_TRUE(q().NominatedPodsForNode("n1").empty());
}

// ------------------------------------------------------- AssignedPod (no hints)

TEST_F(PriorityQueueTest, AssignedPodAddedMovesCrossTopologyPods) {
  Build({false, true}, [](PriorityQueueOptions& o) {
    QueueingHintMap& m = o.queueing_hint_map.at(kProfile);
    m.Register(ClusterEvent(framework::resource::kPod, ActionType::kAll), "PodTopologySpread", nullptr);
    m.Register(ClusterEvent(framework::resource::kPod, ActionType::kAll), "InterPodAffinity", nullptr);
    o.namespace_labels = [](std::string_view ns) -> std::optional<api::StringMap> {
      if (ns == "team") return api::StringMap{{"team", "x"}};
      return std::nullopt;
    };
  });
  auto assigned = MakePod("web", 0, "team");
  assigned->spec.node_name = "n1";
  assigned->metadata.labels["app"] = "web";

  auto spread_same_ns = MakePod("s1", 0, "team");
  auto spread_other_ns = MakePod("s2", 0, "default");
  auto affinity = MakePod("aff", 0, "default");
  api::PodAffinityTerm term;
  term.label_selector = api::LabelSelector{{{"app", "web"}}, {}};
  term.namespace_selector = api::LabelSelector{{{"team", "x"}}, {}};
  term.topology_key = "zone";
  affinity->spec.affinity = api::Affinity{std::nullopt, api::PodAffinity{{term}, {}}, std::nullopt};
  auto no_match = MakePod("nomatch", 0, "default");
  api::PodAffinityTerm other = term;
  other.label_selector = api::LabelSelector{{{"app", "db"}}, {}};
  no_match->spec.affinity = api::Affinity{std::nullopt, api::PodAffinity{{other}, {}}, std::nullopt};
  auto own_ns_only = MakePod("ownns", 0, "default");
  api::PodAffinityTerm own = term;
  own.namespace_selector.reset();  // only its own namespace: "default"
  own_ns_only->spec.affinity = api::Affinity{std::nullopt, api::PodAffinity{{own}, {}}, std::nullopt};

  AddPopFail(spread_same_ns, {"PodTopologySpread"});
  AddPopFail(spread_other_ns, {"PodTopologySpread"});
  AddPopFail(affinity, {"InterPodAffinity"});
  AddPopFail(no_match, {"InterPodAffinity"});
  AddPopFail(own_ns_only, {"InterPodAffinity"});
  clock_->Step(2s);
  q().AssignedPodAdded(assigned);
  EXPECT_EQ(Where(*spread_same_ns), "active");
  EXPECT_EQ(Where(*spread_other_ns), "unschedulable");
  EXPECT_EQ(Where(*affinity), "active");
  EXPECT_EQ(Where(*no_match), "unschedulable");
  EXPECT_EQ(Where(*own_ns_only), "unschedulable");
  EXPECT_EQ(metrics_->IncomingPods(QueueName::kActive, "AssignedPodAdd"), 2);
}

TEST_F(PriorityQueueTest, AssignedPodUpdatedScaleDownMovesAllInterested) {
  Build({false, true}, [](PriorityQueueOptions& o) {
    o.queueing_hint_map.at(kProfile).Register(ClusterEvent(framework::resource::kPod, ActionType::kUpdatePodScaleDown),
                                              "NodeResourcesFit", nullptr);
  });
  auto fit = MakePod("fit");
  auto other = MakePod("other");
  AddPopFail(fit, {"NodeResourcesFit"});
  AddPopFail(other, {"Fit"});
  clock_->Step(2s);
  auto old_assigned = MakePod("x");
  old_assigned->spec.node_name = "n1";
  auto new_assigned = std::make_shared<api::Pod>(*old_assigned);
  const ClusterEvent scale_down(framework::resource::kAssignedPod, ActionType::kUpdatePodScaleDown);
  q().AssignedPodUpdated(old_assigned, new_assigned, scale_down);
  EXPECT_EQ(Where(*fit), "active");
  EXPECT_EQ(Where(*other), "unschedulable");
  // A label update only reaches cross-topology pods: none here.
  q().AssignedPodUpdated(old_assigned, new_assigned,
                         ClusterEvent(framework::resource::kAssignedPod, ActionType::kUpdatePodLabel));
  EXPECT_EQ(Where(*other), "unschedulable");
}

// ------------------------------------------------------------------ profiles

TEST_F(PriorityQueueTest, PodOfProfileWithoutHintMapMovesOnAnyInterestingEvent) {
  Build({true, true});
  auto p = MakePod("p");
  p->spec.scheduler_name = "other-profile";
  AddPopFail(p, {"Fit"});
  EXPECT_EQ(Where(*p), "unschedulable");
  clock_->Step(2s);
  MoveAll(kAssignedPodDelete);  // interesting to some profile
  EXPECT_EQ(Where(*p), "active");
}

}  // namespace
}  // namespace ksched::scheduler::queue
