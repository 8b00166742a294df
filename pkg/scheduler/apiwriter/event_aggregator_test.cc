#include "pkg/scheduler/apiwriter/event_aggregator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "pkg/util/heap_in_use.h"

namespace ksched::scheduler::apiwriter {
namespace {

using namespace std::chrono_literals;

const util::TimePoint kT0 = util::TimePoint(1000h);
const api::Time kWall0 = api::Time(std::chrono::seconds(1767225600));

api::Event MakeEvent(std::string note = "0/3 nodes are available", std::string pod = "p") {
  api::Event e;
  e.metadata.namespace_ = "ns";
  e.metadata.name = pod + ".abc";
  e.event_time = kWall0;
  e.reporting_controller = "ksched";
  e.reporting_instance = "ksched-host";
  e.action = "Scheduling";
  e.reason = "FailedScheduling";
  e.type = "Warning";
  e.note = std::move(note);
  e.regarding.kind = "Pod";
  e.regarding.namespace_ = "ns";
  e.regarding.name = std::move(pod);
  e.regarding.uid = "uid";
  e.regarding.resource_version = "1";
  return e;
}

TEST(EventAggregatorTest, IdentityIncludesNoteButNotResourceVersion) {
  api::Event a = MakeEvent();
  api::Event b = a;
  b.regarding.resource_version = "2";
  b.metadata.name = "other";
  b.event_time = kWall0 + 1min;
  EXPECT_EQ(EventAggregator::AggregationKey(a), EventAggregator::AggregationKey(b));

  api::Event c = a;
  c.note = "0/4 nodes are available";
  EXPECT_NE(EventAggregator::AggregationKey(a), EventAggregator::AggregationKey(c));
  api::Event d = a;
  d.related = a.regarding;
  EXPECT_NE(EventAggregator::AggregationKey(a), EventAggregator::AggregationKey(d));
  api::Event e = a;
  e.reason = "Scheduled";
  EXPECT_NE(EventAggregator::AggregationKey(a), EventAggregator::AggregationKey(e));
  api::Event f = a;
  f.regarding.uid = "uid2";
  EXPECT_NE(EventAggregator::AggregationKey(a), EventAggregator::AggregationKey(f));
}

TEST(EventAggregatorTest, WritesTheEventAsRecorded) {
  // Field values that look like the key's own framing.
  api::Event e = MakeEvent("12:3:note: with 4:colons", "p:1");
  e.regarding.api_version = "v1";
  e.regarding.field_path = "spec.containers{c}";
  e.related = api::ObjectReference{"Node", "", "node-1", "uid-n", "v1", "77", ""};
  EventAggregator agg;
  auto r = agg.Record(e, kT0);
  auto w = agg.NextWrite(r.id);
  ASSERT_TRUE(w);
  const api::Event& got = w->event;
  EXPECT_EQ(got.metadata.name, e.metadata.name);
  EXPECT_EQ(got.metadata.namespace_, e.metadata.namespace_);
  EXPECT_EQ(got.event_time, e.event_time);
  EXPECT_EQ(got.type, e.type);
  EXPECT_EQ(got.reason, e.reason);
  EXPECT_EQ(got.action, e.action);
  EXPECT_EQ(got.reporting_controller, e.reporting_controller);
  EXPECT_EQ(got.reporting_instance, e.reporting_instance);
  EXPECT_EQ(got.regarding.kind, e.regarding.kind);
  EXPECT_EQ(got.regarding.api_version, e.regarding.api_version);
  EXPECT_EQ(got.regarding.namespace_, e.regarding.namespace_);
  EXPECT_EQ(got.regarding.name, e.regarding.name);
  EXPECT_EQ(got.regarding.uid, e.regarding.uid);
  EXPECT_EQ(got.regarding.resource_version, e.regarding.resource_version);
  EXPECT_EQ(got.regarding.field_path, e.regarding.field_path);
  ASSERT_TRUE(got.related);
  EXPECT_EQ(got.related->kind, "Node");
  EXPECT_EQ(got.related->name, "node-1");
  EXPECT_EQ(got.related->uid, "uid-n");
  EXPECT_EQ(got.related->api_version, "v1");
  EXPECT_EQ(got.related->resource_version, "77");
  EXPECT_FALSE(got.series);

  // Without a related object, none is made up.
  api::Event plain = MakeEvent();
  auto r2 = agg.Record(plain, kT0);
  auto w2 = agg.NextWrite(r2.id);
  ASSERT_TRUE(w2);
  EXPECT_FALSE(w2->event.related);
  EXPECT_EQ(w2->event.note, plain.note);
}

TEST(EventAggregatorTest, FirstTwoOccurrencesWriteThenCountsAccumulate) {
  EventAggregator agg;
  auto r1 = agg.Record(MakeEvent(), kT0);
  EXPECT_TRUE(r1.write_now);
  auto w1 = agg.NextWrite(r1.id);
  ASSERT_TRUE(w1);
  EXPECT_TRUE(w1->create);
  EXPECT_EQ(w1->count, 1);
  EXPECT_FALSE(w1->event.series);
  EXPECT_EQ(w1->event.metadata.name, "p.abc");
  agg.Written(r1.id, *w1);
  EXPECT_FALSE(agg.NextWrite(r1.id));

  api::Event second = MakeEvent();
  second.event_time = kWall0 + 1s;
  auto r2 = agg.Record(second, kT0 + 1s);
  EXPECT_EQ(r2.id, r1.id);
  EXPECT_TRUE(r2.write_now);
  auto w2 = agg.NextWrite(r1.id);
  ASSERT_TRUE(w2);
  EXPECT_FALSE(w2->create);
  EXPECT_EQ(w2->count, 2);
  ASSERT_TRUE(w2->event.series);
  EXPECT_EQ(w2->event.series->count, 2);
  EXPECT_EQ(w2->event.series->last_observed_time, kWall0 + 1s);
  EXPECT_EQ(w2->event.metadata.name, "p.abc");  // patches go to the created Event
  // The rest of the Event, which the first write's entry kept no key for,
  // as first recorded (a patch the server answers NotFound creates it).
  EXPECT_EQ(w2->event.event_time, kWall0);
  EXPECT_EQ(w2->event.note, "0/3 nodes are available");
  EXPECT_EQ(w2->event.reason, "FailedScheduling");
  EXPECT_EQ(w2->event.regarding.name, "p");
  EXPECT_EQ(w2->event.regarding.uid, "uid");
  agg.Written(r1.id, *w2);

  for (int i = 0; i < 998; ++i) {
    auto r = agg.Record(MakeEvent(), kT0 + 2s);
    EXPECT_FALSE(r.write_now);
  }
  auto w3 = agg.NextWrite(r1.id);
  ASSERT_TRUE(w3);
  EXPECT_EQ(w3->count, 1000);
  EXPECT_EQ(agg.size(), 1u);
  EXPECT_EQ(agg.Unwritten(), std::vector<uint64_t>({r1.id}));
}

TEST(EventAggregatorTest, FinishSeriesWritesOnceMoreThenForgets) {
  EventAggregator agg(6min);
  auto r = agg.Record(MakeEvent(), kT0);
  agg.Written(r.id, *agg.NextWrite(r.id));
  agg.Record(MakeEvent(), kT0);
  agg.Written(r.id, *agg.NextWrite(r.id));
  agg.Record(MakeEvent(), kT0 + 1min);  // count 3, unwritten

  EXPECT_TRUE(agg.FinishSeries(kT0 + 7min).empty());  // quiet only 6 min: not yet
  EXPECT_EQ(agg.FinishSeries(kT0 + 7min + 1s), std::vector<uint64_t>({r.id}));
  auto w = agg.NextWrite(r.id);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->count, 3);
  agg.Written(r.id, *w);
  EXPECT_EQ(agg.size(), 0u);  // finished and written: forgotten

  // The next occurrence starts a new Event.
  auto again = agg.Record(MakeEvent(), kT0 + 8min);
  EXPECT_NE(again.id, r.id);
  EXPECT_TRUE(agg.NextWrite(again.id)->create);
}

TEST(EventAggregatorTest, FinishForgetsWrittenSeriesAndOldSingles) {
  EventAggregator agg(6min);
  auto series = agg.Record(MakeEvent("a"), kT0);
  agg.Written(series.id, *agg.NextWrite(series.id));
  agg.Record(MakeEvent("a"), kT0);
  agg.Written(series.id, *agg.NextWrite(series.id));
  auto single = agg.Record(MakeEvent("b"), kT0);
  agg.Written(single.id, *agg.NextWrite(single.id));
  auto young = agg.Record(MakeEvent("c"), kT0 + 5min);
  EXPECT_TRUE(agg.FinishSeries(kT0 + 7min).empty());
  EXPECT_EQ(agg.size(), 1u);
  EXPECT_TRUE(agg.NextWrite(young.id));
}

TEST(EventAggregatorTest, OccurrenceRevivesAFinishingSeries) {
  EventAggregator agg(6min);
  auto r = agg.Record(MakeEvent(), kT0);
  agg.Written(r.id, *agg.NextWrite(r.id));
  agg.Record(MakeEvent(), kT0);
  agg.Record(MakeEvent(), kT0);  // count 3, only 1 written
  ASSERT_EQ(agg.FinishSeries(kT0 + 7min), std::vector<uint64_t>({r.id}));
  auto w = agg.NextWrite(r.id);
  agg.Record(MakeEvent(), kT0 + 7min);  // count 4 while the final write is in flight
  agg.Written(r.id, *w);
  EXPECT_EQ(agg.size(), 1u);  // still occurring: kept
  EXPECT_EQ(agg.NextWrite(r.id)->count, 4);
}

TEST(EventAggregatorTest, RefreshRewritesEverySeries) {
  EventAggregator agg;
  auto s = agg.Record(MakeEvent("a"), kT0);
  agg.Written(s.id, *agg.NextWrite(s.id));
  agg.Record(MakeEvent("a"), kT0);
  agg.Written(s.id, *agg.NextWrite(s.id));
  auto single = agg.Record(MakeEvent("b"), kT0);
  agg.Written(single.id, *agg.NextWrite(single.id));
  EXPECT_FALSE(agg.NextWrite(s.id));

  EXPECT_EQ(agg.RefreshSeries(), std::vector<uint64_t>({s.id}));
  auto w = agg.NextWrite(s.id);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->count, 2);
  agg.Written(s.id, *w);
  EXPECT_FALSE(agg.NextWrite(s.id));
  EXPECT_FALSE(agg.NextWrite(single.id));
}

TEST(EventAggregatorTest, DropForgetsTheEntry) {
  EventAggregator agg;
  auto r = agg.Record(MakeEvent(), kT0);
  agg.Drop(r.id);
  EXPECT_EQ(agg.size(), 0u);
  EXPECT_FALSE(agg.NextWrite(r.id));
  agg.Written(r.id, EventAggregator::Write{MakeEvent(), true, 1});  // late: ignored
  EXPECT_EQ(agg.size(), 0u);
  auto again = agg.Record(MakeEvent(), kT0);
  EXPECT_NE(again.id, r.id);
  EXPECT_TRUE(again.write_now);
}

// A scheduler records an Event per pod it binds, nearly all of them
// single: once the server has one, its entry keeps no aggregation key.
TEST(EventAggregatorTest, AWrittenSingleEventKeepsNoKey) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "the sanitizer's allocator owns the heap";
  constexpr int kEvents = 2000;
  const std::string long_note(400, 'n');
  EventAggregator agg;
  std::vector<uint64_t> ids;
  for (int i = 0; i < kEvents; ++i) ids.push_back(agg.Record(MakeEvent(long_note, "p" + std::to_string(i)), kT0).id);
  const size_t before = util::HeapBytesInUse();
  for (uint64_t id : ids) {
    auto w = agg.NextWrite(id);
    ASSERT_TRUE(w);
    agg.Written(id, *w);
  }
  const size_t after = util::HeapBytesInUse();
  ASSERT_LT(after, before);
  EXPECT_GE(before - after, size_t{kEvents} * long_note.size());
  EXPECT_EQ(agg.size(), size_t{kEvents});
  EXPECT_TRUE(agg.Unwritten().empty());
}

// What a single written Event costs once its key and resourceVersions are
// gone: its entry, both maps' nodes and buckets, and its name's allocation.
TEST(EventAggregatorTest, AWrittenSingleEventTakesUnder256Bytes) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "the sanitizer's allocator owns the heap";
  constexpr int kEvents = 4000;
  const size_t before = util::HeapBytesInUse();
  {
    EventAggregator agg;
    for (int i = 0; i < kEvents; ++i) {
      api::Event e = MakeEvent("Successfully assigned", "scheduler-perf-pod-" + std::to_string(i));
      e.metadata.name = e.regarding.name + ".188c2a4f3d5e6a7b";
      const uint64_t id = agg.Record(e, kT0).id;
      auto w = agg.NextWrite(id);
      ASSERT_TRUE(w);
      agg.Written(id, *w);
    }
    const size_t per_event = (util::HeapBytesInUse() - before) / kEvents;
    EXPECT_LE(per_event, 256u);  // 401 with every field in the entry
    std::printf("bytes per written single Event: %zu\n", per_event);
  }
}

}  // namespace
}  // namespace ksched::scheduler::apiwriter
