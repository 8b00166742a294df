#include "pkg/scheduler/apiwriter/api_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pkg/scheduler/apiwriter/fake_api_writer_client.h"
#include "pkg/workqueue/fake_metrics_provider.h"

namespace ksched::scheduler::apiwriter {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::FakeApiWriterClient;
using Kind = FakeApiWriterClient::Kind;

api::Pod MakePod(std::string name, std::string uid = "") {
  api::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.name = name;
  pod.metadata.uid = uid.empty() ? "uid-" + name : uid;
  return pod;
}

PodStatusUpdate Unschedulable(std::string message, std::optional<std::string> nnn = std::nullopt) {
  return PodStatusUpdate{PodScheduledCondition{kConditionFalse, kReasonUnschedulable,
                                               std::move(message), std::nullopt},
                         std::move(nnn)};
}

// Spins until the writer has parked a retry in the delay heap: the retry's
// ready time is fixed then, so the test may step the clock.
// Fails (instead of hanging) if no retry is ever parked.
void WaitForRetryParked(const ApiWriter& w) {
  auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (w.NumWaitingRetries() == 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), limit) << "no retry was scheduled";
    std::this_thread::yield();
  }
}

class ApiWriterTest : public ::testing::Test {
 protected:
  ApiWriterOptions Options(int workers = 1) {
    ApiWriterOptions o;
    o.workers = workers;
    o.hostname = "host";
    return o;
  }

  util::FakeClock clock_;
  FakeApiWriterClient client_{clock_};
};

TEST_F(ApiWriterTest, PatchesPodScheduledConditionAndNominatedNode) {
  ApiWriter w(client_, clock_, Options());
  w.UpdatePodStatus(MakePod("p"), Unschedulable("0/3 nodes are available", "node-1"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, Kind::kPatchPodStatus);
  EXPECT_EQ(calls[0].ns, "ns");
  EXPECT_EQ(calls[0].name, "p");
  EXPECT_EQ(calls[0].patch, json::parse(R"({"status": {
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "0/3 nodes are available",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}],
      "nominatedNodeName": "node-1"}})"));
}

TEST_F(ApiWriterTest, NoRequestWhenNothingChanges) {
  ApiWriter w(client_, clock_, Options());
  api::Pod pod = MakePod("p");
  pod.status.conditions.push_back(
      api::PodCondition{"PodScheduled", "False", "Unschedulable", "same", {}, {}, {}});
  w.UpdatePodStatus(pod, Unschedulable("same"));  // as the pod already says
  w.UpdatePodStatus(MakePod("q"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  w.UpdatePodStatus(MakePod("q"), Unschedulable("m"));  // as already written
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "q");
}

TEST_F(ApiWriterTest, QueuedUpdatesForAPodAreCoalesced) {
  ApiWriter w(client_, clock_, Options(/*workers=*/1));
  client_.Hold();
  w.UpdatePodStatus(MakePod("blocker"), Unschedulable("x"));
  ASSERT_TRUE(client_.WaitForHeldCalls(1));  // the only worker is busy
  w.UpdatePodStatus(MakePod("p"), Unschedulable("first", "node-1"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("second"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("third"));
  client_.Release();
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].name, "p");
  EXPECT_EQ(calls[1].patch["status"]["conditions"][0]["message"], "third");
  EXPECT_EQ(calls[1].patch["status"]["nominatedNodeName"], "node-1");
}

TEST_F(ApiWriterTest, UpdateDuringAWriteIsSentAfterIt) {
  ApiWriter w(client_, clock_, Options(/*workers=*/2));
  client_.Hold();
  w.UpdatePodStatus(MakePod("p"), Unschedulable("first"));
  ASSERT_TRUE(client_.WaitForHeldCalls(1));
  clock_.Step(1min);
  w.UpdatePodStatus(MakePod("p"), Unschedulable("second", "node-2"));
  client_.Release();
  ASSERT_TRUE(client_.WaitForCalls(2));
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);  // never two writes of one pod at once, none lost
  EXPECT_EQ(calls[0].patch["status"]["conditions"][0]["message"], "first");
  EXPECT_EQ(calls[1].patch, json::parse(R"({"status": {
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "message": "second", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
      "nominatedNodeName": "node-2"}})"));
}

// A binding thread settles the pod before binding it: SettlePod returns
// only once the patch in flight has ended, and what was queued after it is
// never sent (the binding makes it moot, and it could land after it).
TEST_F(ApiWriterTest, SettlePodWaitsForThePatchInFlightAndDropsTheRest) {
  ApiWriter w(client_, clock_, Options(/*workers=*/2));
  client_.Hold();
  w.UpdatePodStatus(MakePod("p"), Unschedulable("first"));
  ASSERT_TRUE(client_.WaitForHeldCalls(1));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("second"));  // queued behind it
  std::atomic<bool> returned{false};
  size_t patched_at_return = 0;
  std::thread binder([&] {
    w.SettlePod("ns", "p");
    patched_at_return = client_.CallsOf(Kind::kPatchPodStatus).size();
    returned = true;
  });
  // The held patch keeps SettlePod waiting (a SettlePod that does not wait
  // returns instead, and the assertion below fails).
  while (w.NumSettling() == 0 && !returned) std::this_thread::yield();
  EXPECT_EQ(w.NumSettling(), 1u);
  client_.Release();
  binder.join();
  EXPECT_EQ(patched_at_return, 1u);  // the patch in flight had landed
  w.UpdatePodStatus(MakePod("other"), Unschedulable("x"));
  ASSERT_TRUE(client_.WaitForCalls(2));
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].patch["status"]["conditions"][0]["message"], "first");
  EXPECT_EQ(calls[1].name, "other");  // "second" was dropped
}

// With nothing in flight SettlePod returns at once and drops what is queued.
TEST_F(ApiWriterTest, SettlePodWithNothingInFlightDropsThePendingWrite) {
  ApiWriter w(client_, clock_, Options(/*workers=*/1));
  client_.Hold();
  w.UpdatePodStatus(MakePod("blocker"), Unschedulable("x"));
  ASSERT_TRUE(client_.WaitForHeldCalls(1));  // the only worker is busy
  w.UpdatePodStatus(MakePod("p"), Unschedulable("stale"));
  w.SettlePod("ns", "p");
  client_.Release();
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].name, "blocker");
}

TEST_F(ApiWriterTest, RetriesTransientErrorsWithGrowingBackoff) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kPatchPodStatus, 3, util::Status(util::StatusCode::kUnavailable, "down"));
  const util::TimePoint t0 = clock_.Now();
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  // DefaultControllerRateLimiter: 5 ms, 10 ms, 20 ms.
  for (int attempt = 1; attempt <= 3; ++attempt) {
    ASSERT_TRUE(client_.WaitForCalls(attempt));
    WaitForRetryParked(w);
    clock_.Step(5ms * (1 << (attempt - 1)));
  }
  ASSERT_TRUE(client_.WaitForCalls(4));
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 4u);
  std::vector<util::Duration> at;
  for (const auto& c : calls) at.push_back(c.at - t0);
  EXPECT_EQ(at, (std::vector<util::Duration>{0ms, 5ms, 15ms, 35ms}));
  EXPECT_FALSE(calls[2].result.ok());
  EXPECT_TRUE(calls[3].result.ok());
  for (const auto& c : calls) EXPECT_EQ(c.patch, calls[0].patch);

  // Success reset the backoff: the next failure waits 5 ms again.
  client_.FailNext(Kind::kPatchPodStatus, 1, util::Status(util::StatusCode::kConflict, "rv"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m2"));
  ASSERT_TRUE(client_.WaitForCalls(5));
  WaitForRetryParked(w);
  const util::TimePoint t5 = clock_.Now();
  clock_.Step(5ms);
  ASSERT_TRUE(client_.WaitForCalls(6));
  EXPECT_EQ(client_.Calls()[5].at - t5, 5ms);
  EXPECT_TRUE(client_.Calls()[5].result.ok());
}

TEST_F(ApiWriterTest, NotFoundDropsThePodWithoutRetry) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kPatchPodStatus, 1, util::NotFound("pods \"p\" not found"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  w.Stop();  // would give a parked retry one more attempt
  EXPECT_EQ(client_.Calls().size(), 1u);
  EXPECT_EQ(w.NumWaitingRetries(), 0u);
}

TEST_F(ApiWriterTest, InvalidRequestIsNotRetried) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kPatchPodStatus, 1, util::InvalidArgument("bad patch"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  w.Stop();
  EXPECT_EQ(client_.Calls().size(), 1u);
}

TEST_F(ApiWriterTest, ANewPodUnderTheSameNameStartsAfresh) {
  ApiWriter w(client_, clock_, Options());
  w.UpdatePodStatus(MakePod("p", "uid-1"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  // Same name, new uid: what was written for the old pod says nothing.
  w.UpdatePodStatus(MakePod("p", "uid-2"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(2));
  // ForgetPod drops the memory of writes too.
  w.ForgetPod("ns", "p");
  w.UpdatePodStatus(MakePod("p", "uid-2"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(3));
  w.Stop();
  EXPECT_EQ(client_.Calls().size(), 3u);
}

TEST_F(ApiWriterTest, StopGivesBackedOffWritesOneMoreAttempt) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kPatchPodStatus, 1, util::Status(util::StatusCode::kUnavailable, "down"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  WaitForRetryParked(w);
  w.Stop();  // the clock never moved: the retry was still waiting
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[1].result.ok());
  w.UpdatePodStatus(MakePod("p2"), Unschedulable("m"));  // after Stop: ignored
  w.RecordEvent(FailedSchedulingEvent(MakePod("p2"), "ksched", "m"));
  w.Stop();
  EXPECT_EQ(client_.Calls().size(), 2u);
}

// A status patch whose call is under way when Stop begins, and fails, gets
// Stop's one more attempt like a patch waiting out a backoff.
TEST_F(ApiWriterTest, StopGivesAPatchThatFailsDuringStopOneMoreAttempt) {
  ApiWriter w(client_, clock_, Options());
  client_.Hold();
  client_.FailNext(Kind::kPatchPodStatus, 1, util::Status(util::StatusCode::kUnavailable, "down"));
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForHeldCalls(1));
  std::thread stopper([&] { w.Stop(); });
  while (!w.Stopping()) std::this_thread::yield();
  client_.Release();
  stopper.join();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_FALSE(calls[0].result.ok());
  EXPECT_TRUE(calls[1].result.ok());
  EXPECT_EQ(w.DroppedAtStop().pod_status_patches, 0u);
}

// The daemon cancels its writer's calls at SIGTERM: each pending write's
// last attempt then fails at once (kCancelled), nothing is retried, and the
// drops are counted by kind; the clock never moves.
TEST_F(ApiWriterTest, StopDropsWritesWhoseLastAttemptIsCancelledAndCountsThem) {
  ApiWriter w(client_, clock_, Options(2));
  // Every write fails transiently once: each then waits out a backoff.
  client_.FailNext(Kind::kPatchPodStatus, 2, util::Status(util::StatusCode::kUnavailable, "down"));
  client_.FailNext(Kind::kCreateEvent, 1, util::Status(util::StatusCode::kUnavailable, "down"));
  w.UpdatePodStatus(MakePod("p1"), Unschedulable("m"));
  w.UpdatePodStatus(MakePod("p2"), Unschedulable("m"));
  w.RecordEvent(FailedSchedulingEvent(MakePod("p1"), "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(3));
  while (w.NumWaitingRetries() < 3) std::this_thread::yield();
  // SIGTERM: from now on every call is cancelled.
  const util::Status cancelled(util::StatusCode::kCancelled, "cancelled");
  client_.FailNext(Kind::kPatchPodStatus, 2, cancelled);
  client_.FailNext(Kind::kCreateEvent, 1, cancelled);
  const util::TimePoint before = clock_.Now();
  w.Stop();
  EXPECT_EQ(clock_.Now(), before);
  EXPECT_EQ(client_.Calls().size(), 6u);  // one last attempt each, no retry
  const ApiWriter::Dropped dropped = w.DroppedAtStop();
  EXPECT_EQ(dropped.pod_status_patches, 2u);
  EXPECT_EQ(dropped.events, 1u);
  EXPECT_EQ(dropped.victim_deletions, 0u);
  EXPECT_EQ(w.NumCachedEvents(), 0u);
}

TEST_F(ApiWriterTest, StopDropsAVictimDeletionWhoseLastAttemptFails) {
  ApiWriter w(client_, clock_, Options());
  // The DisruptionTarget patch fails, then fails again at Stop.
  client_.FailNext(Kind::kPatchPodStatus, 2, util::Status(util::StatusCode::kUnavailable, "down"));
  w.DeleteVictim(MakePod("victim"), "preempted");
  WaitForRetryParked(w);
  w.Stop();
  EXPECT_EQ(client_.CallsOf(Kind::kPatchPodStatus).size(), 2u);
  EXPECT_TRUE(client_.CallsOf(Kind::kDeletePod).empty());
  EXPECT_EQ(w.DroppedAtStop().victim_deletions, 1u);
}

TEST_F(ApiWriterTest, CreatesEventsWithSchedulerFields) {
  ApiWriter w(client_, clock_, Options());
  api::Pod victim = MakePod("victim");
  api::Pod preemptor = MakePod("big");
  w.RecordEvent(FailedSchedulingEvent(preemptor, "ksched", "0/3 nodes are available"));
  w.RecordEvent(PreemptedEvent(victim, preemptor, "ksched", "node-1"));
  w.RecordEvent(ScheduledEvent(preemptor, "ksched", "node-1"));
  w.Stop();
  auto creates = client_.CallsOf(Kind::kCreateEvent);
  ASSERT_EQ(creates.size(), 3u);
  const api::Event& failed = creates[0].event;
  EXPECT_EQ(failed.metadata.namespace_, "ns");
  // client-go's name: the object's, a dot, the wall clock's nanoseconds in lower-case hex.
  const auto wall_ns = static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.WallNow().time_since_epoch()).count());
  EXPECT_EQ(failed.metadata.name, fmt::format("big.{:x}", wall_ns));
  EXPECT_EQ(failed.event_time, clock_.WallNow());
  EXPECT_EQ(failed.reporting_controller, "ksched");
  EXPECT_EQ(failed.reporting_instance, "ksched-host");
  EXPECT_EQ(failed.type, "Warning");
  EXPECT_EQ(failed.reason, "FailedScheduling");
  EXPECT_EQ(failed.action, "Scheduling");
  EXPECT_EQ(failed.note, "0/3 nodes are available");
  EXPECT_FALSE(failed.series);
  EXPECT_EQ(creates[1].event.reason, "Preempted");
  EXPECT_EQ(creates[1].event.regarding.name, "victim");
  ASSERT_TRUE(creates[1].event.related);
  EXPECT_EQ(creates[1].event.related->name, "big");
  EXPECT_EQ(creates[2].event.reason, "Scheduled");
  EXPECT_EQ(creates[2].event.note, "Successfully assigned ns/big to node-1");
  // The clock stood still, yet every Event got its own name.
  EXPECT_NE(creates[0].event.metadata.name, creates[2].event.metadata.name);
  EXPECT_EQ(client_.StoredEvents().size(), 3u);
}

TEST_F(ApiWriterTest, RepeatedFailuresBecomeOneEventSeries) {
  ApiWriter w(client_, clock_, Options());
  api::Pod pod = MakePod("p");
  auto fail = [&] {
    w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "0/3 nodes are available"));
  };
  fail();
  ASSERT_TRUE(client_.WaitForCalls(1));  // the Event is created at once
  fail();
  ASSERT_TRUE(client_.WaitForCalls(2));  // the series starts at once: count 2
  for (int i = 0; i < 998; ++i) fail();  // only counted in the cache
  EXPECT_EQ(w.NumCachedEvents(), 1u);
  // Quiet for longer than 6 min: the finishing pass writes the final count.
  clock_.Step(12min);
  ASSERT_TRUE(client_.WaitForCalls(3));
  w.Stop();
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].kind, Kind::kCreateEvent);
  EXPECT_FALSE(calls[0].event.series);
  EXPECT_EQ(calls[1].kind, Kind::kPatchEvent);
  EXPECT_EQ(calls[1].name, calls[0].event.metadata.name);
  EXPECT_EQ(calls[1].patch, json::parse(R"({"series": {"count": 2,
      "lastObservedTime": "2026-01-01T00:00:00.000000Z"}})"));
  EXPECT_EQ(calls[2].kind, Kind::kPatchEvent);
  EXPECT_EQ(calls[2].patch["series"]["count"], 1000);
  auto stored = client_.StoredEvents();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored.begin()->second.series->count, 1000);
  EXPECT_EQ(w.NumCachedEvents(), 0u);  // finished and forgotten
}

TEST_F(ApiWriterTest, ActiveSeriesIsRefreshedEvery30Minutes) {
  ApiWriter w(client_, clock_, Options());
  api::Pod pod = MakePod("p");
  w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(2));
  size_t before = client_.CallsOf(Kind::kPatchEvent).size();
  // One occurrence a minute keeps the series from finishing.
  for (int minute = 1; minute < 30; ++minute) {
    clock_.Step(1min);
    w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  }
  EXPECT_EQ(client_.CallsOf(Kind::kPatchEvent).size(), before);
  clock_.Step(1min);  // 30 min: refresh
  ASSERT_TRUE(client_.WaitForCalls(client_.Calls().size() + 1));
  auto patches = client_.CallsOf(Kind::kPatchEvent);
  EXPECT_EQ(patches.back().patch["series"]["count"], 2 + 29);
  EXPECT_EQ(patches.back().patch["series"]["lastObservedTime"], "2026-01-01T00:29:00.000000Z");
  w.Stop();
}

TEST_F(ApiWriterTest, LostSeriesEventIsCreatedAgain) {
  ApiWriter w(client_, clock_, Options());
  api::Pod pod = MakePod("p");
  w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  const std::string name = client_.Calls()[0].event.metadata.name;
  w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(2));
  client_.DeleteEvent("ns", name);
  w.RecordEvent(FailedSchedulingEvent(pod, "ksched", "m"));
  w.Stop();  // flushes the unwritten count 3
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[2].kind, Kind::kPatchEvent);
  EXPECT_EQ(calls[2].result.code(), util::StatusCode::kNotFound);
  EXPECT_EQ(calls[3].kind, Kind::kCreateEvent);
  EXPECT_EQ(calls[3].event.metadata.name, name);
  ASSERT_TRUE(calls[3].event.series);
  EXPECT_EQ(calls[3].event.series->count, 3);
}

TEST_F(ApiWriterTest, EventWritesRetryThenGiveUp) {
  ApiWriterOptions o = Options();
  o.max_event_attempts = 3;
  ApiWriter w(client_, clock_, o);
  client_.FailNext(Kind::kCreateEvent, 2, util::Status(util::StatusCode::kUnavailable, "down"));
  w.RecordEvent(FailedSchedulingEvent(MakePod("a"), "ksched", "m"));
  for (int attempt = 1; attempt <= 2; ++attempt) {
    ASSERT_TRUE(client_.WaitForCalls(attempt));
    WaitForRetryParked(w);
    clock_.Step(5ms * (1 << (attempt - 1)));
  }
  ASSERT_TRUE(client_.WaitForCalls(3));
  EXPECT_TRUE(client_.Calls()[2].result.ok());

  // Three failures in a row exhaust max_event_attempts: dropped.
  client_.FailNext(Kind::kCreateEvent, 3, util::Status(util::StatusCode::kUnavailable, "down"));
  w.RecordEvent(FailedSchedulingEvent(MakePod("b"), "ksched", "m"));
  for (int attempt = 1; attempt <= 2; ++attempt) {
    ASSERT_TRUE(client_.WaitForCalls(3 + attempt));
    WaitForRetryParked(w);
    clock_.Step(5ms * (1 << (attempt - 1)));
  }
  ASSERT_TRUE(client_.WaitForCalls(6));
  w.Stop();
  EXPECT_EQ(client_.Calls().size(), 6u);
  EXPECT_EQ(client_.StoredEvents().size(), 1u);
  EXPECT_EQ(w.NumCachedEvents(), 1u);  // "a" only; "b" was dropped
}

TEST_F(ApiWriterTest, RejectedEventIsDroppedAndNextOccurrenceStartsOver) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kCreateEvent, 1, util::InvalidArgument("note too long"));
  w.RecordEvent(FailedSchedulingEvent(MakePod("a"), "ksched", "m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  while (w.NumCachedEvents() != 0) std::this_thread::yield();
  w.RecordEvent(FailedSchedulingEvent(MakePod("a"), "ksched", "m"));
  w.Stop();
  auto creates = client_.CallsOf(Kind::kCreateEvent);
  ASSERT_EQ(creates.size(), 2u);
  EXPECT_FALSE(creates[1].event.series);  // a fresh Event, not a series
  EXPECT_TRUE(creates[1].result.ok());
}

TEST_F(ApiWriterTest, QueueMetricsUseTheWriterName) {
  workqueue::testing::FakeMetricsProvider metrics;
  ApiWriterOptions o = Options();
  o.metrics_provider = &metrics;
  ApiWriter w(client_, clock_, o);
  w.UpdatePodStatus(MakePod("p"), Unschedulable("m"));
  ASSERT_TRUE(client_.WaitForCalls(1));
  w.Stop();
  EXPECT_EQ(metrics.Values("scheduler_api_writer").adds, 1);
  EXPECT_EQ(metrics.Values("scheduler_api_writer").depth, 0);
  EXPECT_EQ(metrics.Values("scheduler_api_writer").work_durations.size(), 1u);
}

TEST_F(ApiWriterTest, ManyThreadsWritingManyPodsAllArrive) {
  ApiWriter w(client_, clock_, Options(/*workers=*/4));
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        std::string name = "p" + std::to_string(i);
        w.UpdatePodStatus(MakePod(name), Unschedulable("attempt by " + std::to_string(t)));
        w.RecordEvent(FailedSchedulingEvent(MakePod(name), "ksched", "m"));
      }
    });
  }
  for (auto& t : callers) t.join();
  w.Stop();
  // Every pod got at least one status patch and exactly one Event object.
  std::set<std::string> patched;
  for (const auto& c : client_.CallsOf(Kind::kPatchPodStatus)) patched.insert(c.name);
  EXPECT_EQ(patched.size(), 50u);
  EXPECT_EQ(client_.CallsOf(Kind::kCreateEvent).size(), 50u);
  int total = 0;
  for (const auto& [key, ev] : client_.StoredEvents()) total += ev.series ? ev.series->count : 1;
  EXPECT_EQ(total, 200);  // Stop flushed every count
}

TEST_F(ApiWriterTest, DeleteVictimPatchesDisruptionTargetThenDeletes) {
  ApiWriter w(client_, clock_, Options());
  w.DeleteVictim(MakePod("v"), "ksched: preempting to accommodate a higher priority pod");
  ASSERT_TRUE(client_.WaitForCalls(2));
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].kind, Kind::kPatchPodStatus);
  EXPECT_EQ(calls[0].name, "v");
  EXPECT_EQ(calls[0].patch, json::parse(R"({"status": {"conditions": [{"type": "DisruptionTarget",
      "status": "True", "reason": "PreemptionByScheduler",
      "message": "ksched: preempting to accommodate a higher priority pod",
      "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})"));
  EXPECT_EQ(calls[1].kind, Kind::kDeletePod);
  EXPECT_EQ(calls[1].ns, "ns");
  EXPECT_EQ(calls[1].name, "v");
  EXPECT_EQ(calls[1].uid, "uid-v");
}

TEST_F(ApiWriterTest, DeleteVictimSkipsAnExistingConditionAndRetriesTransientErrors) {
  ApiWriter w(client_, clock_, Options());
  api::Pod pod = MakePod("v");
  pod.status.conditions.push_back(
      api::PodCondition{"DisruptionTarget", "True", "PreemptionByScheduler", "msg", {}, {}, {}});
  client_.FailNext(Kind::kDeletePod, 1, util::Status(util::StatusCode::kUnavailable, "down"));
  w.DeleteVictim(pod, "msg");
  ASSERT_TRUE(client_.WaitForCalls(1));
  WaitForRetryParked(w);
  clock_.Step(1s);
  ASSERT_TRUE(client_.WaitForCalls(2));
  auto calls = client_.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].kind, Kind::kDeletePod);
  EXPECT_FALSE(calls[0].result.ok());
  EXPECT_EQ(calls[1].kind, Kind::kDeletePod);
  EXPECT_TRUE(calls[1].result.ok());
}

TEST_F(ApiWriterTest, DeleteVictimStopsWhenThePodIsGoneOrTheConditionIsRefused) {
  ApiWriter w(client_, clock_, Options());
  client_.FailNext(Kind::kPatchPodStatus, 1, util::NotFound("pods \"v\" not found"));
  w.DeleteVictim(MakePod("v"), "msg");
  ASSERT_TRUE(client_.WaitForCalls(1));
  client_.FailNext(Kind::kPatchPodStatus, 1, util::InvalidArgument("rejected"));
  w.DeleteVictim(MakePod("x"), "msg");
  ASSERT_TRUE(client_.WaitForCalls(2));
  w.Stop();
  // Neither was deleted: one is gone, the other's condition was refused.
  EXPECT_TRUE(client_.CallsOf(Kind::kDeletePod).empty());
  EXPECT_EQ(client_.Calls().size(), 2u);
}

// A completion a test can wait on (called on a writer thread).
class DoneLatch {
 public:
  ApiWriter::VictimDone Callback() {
    return [this](util::Status s) {
      std::lock_guard<std::mutex> l(mu_);
      results_.push_back(std::move(s));
      cv_.notify_all();
    };
  }
  std::vector<util::Status> Wait(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, std::chrono::seconds(30), [&] { return results_.size() >= n; });
    return results_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<util::Status> results_;
};

TEST_F(ApiWriterTest, DeleteVictimWithDoneReportsTheDeletion) {
  ApiWriter w(client_, clock_, Options());
  DoneLatch latch;
  w.DeleteVictim(MakePod("v"), "msg", latch.Callback());
  auto results = latch.Wait(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_EQ(client_.CallsOf(Kind::kDeletePod).size(), 1u);
  // A victim already gone is a success too.
  client_.FailNext(Kind::kPatchPodStatus, 1, util::NotFound("gone"));
  w.DeleteVictim(MakePod("x"), "msg", latch.Callback());
  results = latch.Wait(2);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[1].ok()) << results[1].ToString();
}

TEST_F(ApiWriterTest, DeleteVictimWithDoneIsNotRetried) {
  ApiWriter w(client_, clock_, Options());
  DoneLatch latch;
  client_.FailNext(Kind::kDeletePod, 1, util::Status(util::StatusCode::kUnavailable, "down"));
  w.DeleteVictim(MakePod("v"), "msg", latch.Callback());
  auto results = latch.Wait(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(w.NumWaitingRetries(), 0u);
  w.Stop();
  EXPECT_EQ(client_.CallsOf(Kind::kDeletePod).size(), 1u);
}

TEST_F(ApiWriterTest, DeleteVictimWithDoneAfterStopIsCancelled) {
  ApiWriter w(client_, clock_, Options());
  w.Stop();
  DoneLatch latch;
  w.DeleteVictim(MakePod("v"), "msg", latch.Callback());
  auto results = latch.Wait(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].code(), util::StatusCode::kCancelled);
  EXPECT_TRUE(client_.Calls().empty());
}

}  // namespace
}  // namespace ksched::scheduler::apiwriter
