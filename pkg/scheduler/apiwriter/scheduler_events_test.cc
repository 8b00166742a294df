#include "pkg/scheduler/apiwriter/scheduler_events.h"

#include <gtest/gtest.h>


namespace ksched::scheduler::apiwriter {
namespace {

api::Pod MakePod(std::string ns, std::string name, std::string uid) {
  api::Pod pod;
  pod.metadata.namespace_ = std::move(ns);
  pod.metadata.name = std::move(name);
  pod.metadata.uid = std::move(uid);
  pod.metadata.resource_version = "42";
  return pod;
}

TEST(TruncateMessageTest, ShortMessagesAreKept) {
  EXPECT_EQ(TruncateMessage("0/3 nodes are available"), "0/3 nodes are available");
  std::string exact(kNoteLengthLimit, 'x');
  EXPECT_EQ(TruncateMessage(exact), exact);
}

TEST(TruncateMessageTest, LongMessagesAreCutTo1024EndingWithEllipsis) {
  std::string long_message(kNoteLengthLimit + 1, 'x');
  std::string t = TruncateMessage(long_message);
  EXPECT_EQ(t.size(), 1024u);
  EXPECT_EQ(t.substr(1020), " ...");
  EXPECT_EQ(t.substr(0, 1020), std::string(1020, 'x'));
}

TEST(TruncateMessageTest, NeverSplitsAUtf8Character) {
  // 1019 ASCII bytes, then "é" (2 bytes) straddling the cut at 1020.
  std::string m = std::string(1019, 'a') + "\xC3\xA9" + std::string(100, 'b');
  std::string t = TruncateMessage(m);
  EXPECT_EQ(t, std::string(1019, 'a') + " ...");
  // A character ending exactly at the cut is kept whole.
  std::string m2 = std::string(1018, 'a') + "\xC3\xA9" + std::string(100, 'b');
  EXPECT_EQ(TruncateMessage(m2), std::string(1018, 'a') + "\xC3\xA9" + " ...");
}

TEST(SchedulerEventsTest, FailedScheduling) {
  EventRecord r =
      FailedSchedulingEvent(MakePod("ns", "p", "uid-1"), "ksched", std::string(2000, 'm'));
  EXPECT_EQ(r.type, "Warning");
  EXPECT_EQ(r.reason, "FailedScheduling");
  EXPECT_EQ(r.action, "Scheduling");
  EXPECT_EQ(r.reporting_controller, "ksched");
  EXPECT_EQ(r.note.size(), 1024u);
  EXPECT_EQ(r.regarding.kind, "Pod");
  EXPECT_EQ(r.regarding.api_version, "v1");
  EXPECT_EQ(r.regarding.namespace_, "ns");
  EXPECT_EQ(r.regarding.name, "p");
  EXPECT_EQ(r.regarding.uid, "uid-1");
  EXPECT_EQ(r.regarding.resource_version, "42");
  EXPECT_FALSE(r.related);
}

TEST(SchedulerEventsTest, Scheduled) {
  EventRecord r = ScheduledEvent(MakePod("ns", "p", "u"), "ksched", "node-3");
  EXPECT_EQ(r.type, "Normal");
  EXPECT_EQ(r.reason, "Scheduled");
  EXPECT_EQ(r.action, "Binding");
  EXPECT_EQ(r.note, "Successfully assigned ns/p to node-3");
}

TEST(SchedulerEventsTest, Preempted) {
  EventRecord r =
      PreemptedEvent(MakePod("ns", "victim", "u-v"), MakePod("ns", "big", "u-big"), "ksched", "n1");
  EXPECT_EQ(r.type, "Normal");
  EXPECT_EQ(r.reason, "Preempted");
  EXPECT_EQ(r.action, "Preempting");
  EXPECT_EQ(r.note, "Preempted by pod u-big on node n1");
  EXPECT_EQ(PreemptedEvent(MakePod("ns", "victim", "u-v"), MakePod("ns", "big", "u-big"), "ksched", "n1", true).note,
            "Preempted by pod u-big on node n1 (in kube-scheduler memory).");
  EXPECT_EQ(r.regarding.name, "victim");
  ASSERT_TRUE(r.related);
  EXPECT_EQ(r.related->name, "big");
}

}  // namespace
}  // namespace ksched::scheduler::apiwriter
