#include "pkg/informer/reflector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "pkg/api/types.h"
#include "pkg/client/api_errors.h"
#include "pkg/informer/fake_lister_watcher.h"
#include "pkg/informer/test_objects.h"

namespace ksched::informer {
namespace {

using ::testing::ElementsAre;
using testing::BookmarkJson;
using testing::MalformedPodJson;
using testing::Page;
using testing::PodJson;
using std::chrono::milliseconds;

// kube-apiserver's Status for a resourceVersion it has not reached (its
// storage restored from an older etcd backup, or a restarted server).
nlohmann::json TooLargeResourceVersionJson() {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"status", "Failure"},
          {"message", "Timeout: Too large resource version: 10, current: 4"},
          {"reason", "Timeout"},
          {"details", {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                       {"retryAfterSeconds", 1}}},
          {"code", 504}};
}

// The same answer to an HTTP request, as RestListerWatcher reports it.
util::Status TooLargeResourceVersion() {
  return client::StatusFromHttpResponse("GET", "/api/v1/pods", 504, "Gateway Timeout",
                                        TooLargeResourceVersionJson().dump());
}

// Records what the reflector feeds, as strings.
class RecordingSink final : public ReflectorSink<api::Pod> {
 public:
  void OnReplace(std::vector<std::shared_ptr<const api::Pod>> objects, const std::string& rv) override {
    std::string line = "replace " + rv + ":";
    for (const auto& o : objects) line += " " + Describe(*o);
    Record(line);
  }
  // A change followed by an event that had already arrived ends in " (more)".
  void OnAdded(std::shared_ptr<const api::Pod> o, bool more) override {
    Record("added " + Describe(*o) + More(more));
  }
  void OnModified(std::shared_ptr<const api::Pod> o, bool more) override {
    Record("modified " + Describe(*o) + More(more));
  }
  void OnDeleted(const std::string& key, std::shared_ptr<const api::Pod> o, bool more) override {
    Record("deleted " + (o ? Describe(*o) : key + " unknown") + More(more));
  }

  std::vector<std::string> WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return ops_.size() >= n; });
    return ops_;
  }
  std::vector<std::string> Ops() {
    std::lock_guard<std::mutex> lock(mu_);
    return ops_;
  }

 private:
  static std::string More(bool more) { return more ? " (more)" : ""; }
  static std::string Describe(const api::Pod& p) {
    return api::KeyOf(p.metadata) + "@" + p.metadata.resource_version;
  }
  void Record(std::string line) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ops_.push_back(std::move(line));
    }
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> ops_;
};

class ReflectorTest : public ::testing::Test {
 protected:
  ReflectorTest() {
    options_.resource = "pods";
    options_.seed = 1234;
  }
  ~ReflectorTest() override { Stop(); }

  void Start() {
    reflector_ = std::make_unique<Reflector<api::Pod>>(lw_, sink_, clock_, options_, metrics_);
    thread_ = std::jthread([this](std::stop_token stop) { reflector_->Run(stop); });
  }
  void Stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }
  CountingReflectorMetrics::Totals Totals() const { return metrics_.Get("pods"); }

  util::FakeClock clock_;
  FakeListerWatcher lw_;
  RecordingSink sink_;
  CountingReflectorMetrics metrics_;
  ReflectorOptions options_;
  std::unique_ptr<Reflector<api::Pod>> reflector_;
  std::jthread thread_;
};

TEST_F(ReflectorTest, ListsThenWatchesFromTheListResourceVersion) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5"), PodJson("ns", "b", "7")}, "10"));
  lw_.AddWatchEvent("ADDED", PodJson("ns", "c", "11"));
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "12"));
  lw_.AddWatchEvent("DELETED", PodJson("ns", "b", "13"));
  Start();
  EXPECT_THAT(sink_.WaitFor(4), ElementsAre("replace 10: ns/a@5 ns/b@7", "added ns/c@11", "modified ns/a@12",
                                            "deleted ns/b@13"));
  ASSERT_TRUE(lw_.WaitForWatchActionsConsumed());
  EXPECT_EQ(reflector_->LastSyncResourceVersion(), "13");

  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].limit, 500);
  EXPECT_EQ(lists[0].resource_version, "0");  // the first list may come from the cache
  std::vector<WatchOptions> watches = lw_.WatchCalls();
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].resource_version, "10");
  EXPECT_TRUE(watches[0].allow_watch_bookmarks);
  ASSERT_TRUE(watches[0].timeout_seconds.has_value());
  EXPECT_GE(*watches[0].timeout_seconds, 300);
  EXPECT_LT(*watches[0].timeout_seconds, 600);

  CountingReflectorMetrics::Totals t = Totals();
  EXPECT_EQ(t.lists, 1);
  EXPECT_EQ(t.relists, 0);
  EXPECT_EQ(t.listed_items, 2);
  EXPECT_EQ(t.watches, 1);
  EXPECT_EQ(t.events["ADDED"], 1);
  EXPECT_EQ(t.events["MODIFIED"], 1);
  EXPECT_EQ(t.events["DELETED"], 1);
  EXPECT_EQ(t.last_resource_version, 13u);
}

TEST_F(ReflectorTest, WatchTimeoutsAreSpreadOverFiveToTenMinutes) {
  lw_.AddListResponse(Page({}, "1"));
  // Each watch delivers a bookmark and closes normally: re-watch at once.
  for (int i = 0; i < 20; ++i) {
    lw_.AddWatchEvent("BOOKMARK", BookmarkJson(std::to_string(2 + i)));
    lw_.EndWatch();
  }
  Start();
  ASSERT_TRUE(lw_.WaitForWatchCalls(21));
  std::set<int64_t> distinct;
  for (const WatchOptions& w : lw_.WatchCalls()) {
    ASSERT_TRUE(w.timeout_seconds.has_value());
    EXPECT_GE(*w.timeout_seconds, 300);
    EXPECT_LT(*w.timeout_seconds, 600);
    distinct.insert(*w.timeout_seconds);
  }
  EXPECT_GT(distinct.size(), 5u);
  EXPECT_EQ(lw_.ListCalls().size(), 1u);
  EXPECT_TRUE(Totals().backoffs.empty());
  EXPECT_EQ(Totals().watch_restarts, 20);
}

TEST_F(ReflectorTest, ListsPageByPage) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "9", "token-1"));
  lw_.AddListResponse(Page({PodJson("ns", "c", "3")}, "9"));
  Start();
  EXPECT_THAT(sink_.WaitFor(1), ElementsAre("replace 9: ns/a@1 ns/b@2 ns/c@3"));
  ASSERT_TRUE(lw_.WaitForWatchCalls(1));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1].limit, 500);
  EXPECT_EQ(lists[1].continue_token, "token-1");
  EXPECT_EQ(lists[1].resource_version, "");
  EXPECT_EQ(lw_.WatchCalls()[0].resource_version, "9");
}

TEST_F(ReflectorTest, ExpiredContinueTokenFallsBackToOneUnpaginatedList) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1")}, "9", "token-1"));
  lw_.AddListResponse(util::Status(util::StatusCode::kGone, "continue expired"));
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "12")}, "12"));
  Start();
  EXPECT_THAT(sink_.WaitFor(1), ElementsAre("replace 12: ns/a@1 ns/b@12"));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[2].limit, 0);
  EXPECT_EQ(lists[2].continue_token, "");
  EXPECT_EQ(lists[2].resource_version, "0");
}

TEST_F(ReflectorTest, BookmarkOnlyAdvancesTheResourceVersion) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_.AddWatchEvent("BOOKMARK", BookmarkJson("20"));
  lw_.EndWatch();  // normal close after an event: re-watch at once
  Start();
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "20");
  EXPECT_THAT(sink_.Ops(), ElementsAre("replace 10: ns/a@1"));
  EXPECT_EQ(Totals().events["BOOKMARK"], 1);
  EXPECT_EQ(Totals().watch_restarts, 1);
}

TEST_F(ReflectorTest, GoneRelistsAtTheLastResourceVersionThenAtLatest) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "10"));
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "12"));
  lw_.EndWatch(util::Status(util::StatusCode::kGone, "too old resource version"));
  // The relist at "12" is refused too: list the latest state, paginated.
  lw_.AddListResponse(util::Status(util::StatusCode::kGone, "too old resource version"));
  lw_.AddListResponse(Page({PodJson("ns", "a", "30")}, "31"));
  Start();
  EXPECT_THAT(sink_.WaitFor(3), ElementsAre("replace 10: ns/a@1 ns/b@2", "modified ns/a@12", "replace 31: ns/a@30"));
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[1].resource_version, "12");
  EXPECT_EQ(lists[1].limit, 0);  // servable from the watch cache
  EXPECT_EQ(lists[2].resource_version, "");
  EXPECT_EQ(lists[2].limit, 500);
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "31");
  EXPECT_TRUE(Totals().backoffs.empty());  // a 410 relists at once
  EXPECT_EQ(Totals().relists, 1);
}

TEST_F(ReflectorTest, ErrorEventWith410Relists) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.AddWatchEvent("ERROR", {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}, {"message", "too old"}});
  // Ignored: nothing counts after an ERROR event.
  lw_.AddWatchEvent("ADDED", PodJson("ns", "x", "11"));
  lw_.EndWatch();
  lw_.AddListResponse(Page({PodJson("ns", "y", "15")}, "15"));
  Start();
  EXPECT_THAT(sink_.WaitFor(2), ElementsAre("replace 10:", "replace 15: ns/y@15"));
  EXPECT_EQ(Totals().events["ERROR"], 1);
}

TEST_F(ReflectorTest, ConnectionLossRewatchesFromTheLastResourceVersionWithBackoff) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.AddWatchEvent("ADDED", PodJson("ns", "a", "11"));
  lw_.EndWatch(util::Status(util::StatusCode::kUnavailable, "connection lost"));
  Start();

  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_GE(backoffs[0], milliseconds(800));
  EXPECT_LT(backoffs[0], milliseconds(1600));
  clock_.Step(backoffs[0] - milliseconds(1));
  EXPECT_EQ(lw_.WatchCalls().size(), 1u);
  clock_.Step(milliseconds(1));
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "11");
  EXPECT_EQ(lw_.ListCalls().size(), 1u);  // no relist

  // A second failure without any event in between backs off longer.
  lw_.EndWatch(util::Status(util::StatusCode::kUnavailable, "connection refused"));
  backoffs = metrics_.WaitForBackoffs("pods", 2, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 2u);
  EXPECT_GE(backoffs[1], milliseconds(1600));
  EXPECT_LT(backoffs[1], milliseconds(3200));
  clock_.Step(backoffs[1]);
  ASSERT_TRUE(lw_.WaitForWatchCalls(3));
  EXPECT_EQ(lw_.WatchCalls()[2].resource_version, "11");
  EXPECT_EQ(Totals().watch_restarts, 2);
  EXPECT_EQ(Totals().relists, 0);
}

TEST_F(ReflectorTest, OtherWatchErrorsRelistAfterBackoff) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.EndWatch(util::Status(util::StatusCode::kInternal, "403 Forbidden"));
  lw_.AddListResponse(Page({}, "12"));
  Start();
  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_EQ(lw_.ListCalls().size(), 1u);
  clock_.Step(backoffs[0]);
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  EXPECT_EQ(lw_.ListCalls().size(), 2u);
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "12");
}

TEST_F(ReflectorTest, FailedListIsRetriedAfterBackoff) {
  lw_.AddListResponse(util::Status(util::StatusCode::kUnavailable, "503"));
  lw_.AddListResponse(Page({PodJson("ns", "a", "3")}, "3"));
  Start();
  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_EQ(Totals().list_errors, 1);
  clock_.Step(backoffs[0]);
  EXPECT_THAT(sink_.WaitFor(1), ElementsAre("replace 3: ns/a@3"));
  EXPECT_EQ(Totals().relists, 0);  // the first successful list
}

TEST_F(ReflectorTest, ShortWatchBacksOff) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.EndWatch();  // closed at once, no event, no time passed
  Start();
  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_EQ(Totals().short_watches, 1);
  clock_.Step(backoffs[0]);
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "10");
}

TEST_F(ReflectorTest, MalformedObjectsAreSkippedAndCounted) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), MalformedPodJson("ns", "bad", "2")}, "10"));
  lw_.AddWatchEvent("FROBNICATED", PodJson("ns", "z", "12"));
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "13"));
  // A deletion that does not decode still deletes by key: nothing is stale,
  // so no relist.
  lw_.AddWatchEvent("DELETED", MalformedPodJson("ns", "a", "14"));
  lw_.AddWatchEvent("ADDED", PodJson("ns", "c", "15"));
  Start();
  EXPECT_THAT(sink_.WaitFor(4),
              ElementsAre("replace 10: ns/a@1", "modified ns/a@13", "deleted ns/a unknown", "added ns/c@15"));
  ASSERT_TRUE(lw_.WaitForWatchActionsConsumed());
  EXPECT_EQ(Totals().decode_errors, 3);
  EXPECT_TRUE(Totals().forced_relists.empty());
  EXPECT_EQ(lw_.ListCalls().size(), 1u);
  EXPECT_EQ(reflector_->LastSyncResourceVersion(), "15");
}

// A changed object that does not decode leaves the stored one stale: the
// watch ends and, after a backoff, a relist brings the store up to date.
TEST_F(ReflectorTest, ModifiedObjectThatDoesNotDecodeRelistsAfterBackoff) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "10"));
  lw_.AddWatchEvent("MODIFIED", MalformedPodJson("ns", "a", "11"));
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "b", "12"));  // not delivered: the watch ended
  lw_.AddListResponse(Page({PodJson("ns", "a", "13"), PodJson("ns", "b", "12")}, "13"));
  Start();
  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, milliseconds(10000));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_EQ(Totals().forced_relists["decode_error"], 1);
  EXPECT_EQ(Totals().decode_errors, 1);
  EXPECT_EQ(lw_.ListCalls().size(), 1u);
  clock_.Step(backoffs[0]);
  EXPECT_THAT(sink_.WaitFor(2), ElementsAre("replace 10: ns/a@1 ns/b@2", "replace 13: ns/a@13 ns/b@12"));
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1].resource_version, "11");  // not older than the event that failed
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "13");
  EXPECT_EQ(Totals().relists, 1);
}

TEST_F(ReflectorTest, UnparseableWatchLinesRelistAfterBackoff) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_.AddWatchEventText("ADDED", "{\"metadata\":");
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "11")}, "11"));
  lw_.AddWatchDecodeError("line 3: syntax error");
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "11")}, "12"));
  lw_.AddWatchEventText("ADDED", "{\"metadata\":", /*unchecked=*/true);
  lw_.AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "11")}, "13"));
  Start();
  for (size_t n = 1; n <= 3; ++n) {
    std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", n, milliseconds(10000));
    ASSERT_EQ(backoffs.size(), n);
    clock_.Step(backoffs[n - 1]);
    ASSERT_TRUE(lw_.WaitForWatchCalls(n + 1));
  }
  EXPECT_THAT(sink_.Ops(), ElementsAre("replace 10: ns/a@1", "replace 11: ns/a@1 ns/b@11",
                                       "replace 12: ns/a@1 ns/b@11", "replace 13: ns/a@1 ns/b@11"));
  EXPECT_EQ(Totals().forced_relists["decode_error"], 3);
  EXPECT_EQ(Totals().decode_errors, 3);
}

TEST_F(ReflectorTest, EventsNotNewerThanTheLastAreDropped) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5")}, "10"));
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "9"));  // older than the list
  lw_.AddWatchEvent("ADDED", PodJson("ns", "b", "11"));
  lw_.AddWatchEvent("ADDED", PodJson("ns", "b", "11"));  // replayed
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "12"));
  Start();
  ASSERT_TRUE(lw_.WaitForWatchActionsConsumed());
  EXPECT_THAT(sink_.WaitFor(3), ElementsAre("replace 10: ns/a@5", "added ns/b@11", "modified ns/a@12"));
}

// Events whose objects arrive as text (as RestListerWatcher delivers them)
// are handled exactly like parsed ones: decoded, dropped when not newer,
// deletions by key even when malformed.
TEST_F(ReflectorTest, TextEventsBehaveAsParsedOnes) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5"), PodJson("ns", "b", "7")}, "10"));
  lw_.AddWatchEventText("MODIFIED", PodJson("ns", "a", "9").dump());  // older than the list
  lw_.AddWatchEventText("ADDED", PodJson("ns", "c", "11").dump());
  lw_.AddWatchEventText("BOOKMARK", BookmarkJson("13").dump());
  lw_.AddWatchEventText("MODIFIED", PodJson("ns", "a", "14").dump(2));
  lw_.AddWatchEventText("DELETED", MalformedPodJson("ns", "b", "15").dump());
  // Non-ASCII text: the tree decoder's way, same result.
  nlohmann::json accented = PodJson("ns", "d", "16");
  accented["metadata"]["labels"] = {{"who", "Ren\u00e9e"}};
  lw_.AddWatchEventText("ADDED", accented.dump());
  Start();
  EXPECT_THAT(sink_.WaitFor(5), ElementsAre("replace 10: ns/a@5 ns/b@7", "added ns/c@11", "modified ns/a@14",
                                            "deleted ns/b unknown", "added ns/d@16"));
  ASSERT_TRUE(lw_.WaitForWatchActionsConsumed());
  EXPECT_EQ(Totals().decode_errors, 1);
  EXPECT_EQ(reflector_->LastSyncResourceVersion(), "16");
}

// Whether the next event had already arrived reaches the sink with each
// change, the change of an object that does not decode included.
TEST_F(ReflectorTest, TellsTheSinkWhetherTheNextEventHadArrived) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5"), PodJson("ns", "b", "7")}, "10"));
  lw_.AddWatchEvent("ADDED", PodJson("ns", "c", "11"), /*more_arrived=*/true);
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "a", "12"), true);
  lw_.AddWatchEvent("DELETED", MalformedPodJson("ns", "b", "13"), true);
  lw_.AddWatchEvent("MODIFIED", PodJson("ns", "c", "14"));
  Start();
  EXPECT_THAT(sink_.WaitFor(5), ElementsAre("replace 10: ns/a@5 ns/b@7", "added ns/c@11 (more)",
                                            "modified ns/a@12 (more)", "deleted ns/b unknown (more)",
                                            "modified ns/c@14"));
}

// The rest of a watch line, unread (the API server's layout): the same
// events as checked text; an object followed by more members of the line
// is read from the line.
TEST_F(ReflectorTest, UncheckedTextEventsBehaveAsParsedOnes) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5"), PodJson("ns", "b", "7")}, "10"));
  lw_.AddWatchEventText("MODIFIED", PodJson("ns", "a", "9").dump(), true);  // older than the list
  lw_.AddWatchEventText("ADDED", PodJson("ns", "c", "11").dump() + R"( , "x": {"y": [1]})", true);
  lw_.AddWatchEventText("BOOKMARK", BookmarkJson("13").dump(), true);
  lw_.AddWatchEventText("MODIFIED", PodJson("ns", "a", "14").dump(2), true);
  lw_.AddWatchEventText("DELETED", MalformedPodJson("ns", "b", "15").dump(), true);
  Start();
  EXPECT_THAT(sink_.WaitFor(4), ElementsAre("replace 10: ns/a@5 ns/b@7", "added ns/c@11", "modified ns/a@14",
                                            "deleted ns/b unknown"));
  ASSERT_TRUE(lw_.WaitForWatchActionsConsumed());
  EXPECT_EQ(Totals().decode_errors, 1);
  EXPECT_EQ(reflector_->LastSyncResourceVersion(), "15");
}

// After an etcd restore (or against a restarted API server) the last
// resourceVersion may be newer than anything the server has: it answers 504
// "Too large resource version" to the watch and to a list at that version.
// Only a list from "" (the latest state) recovers.
TEST_F(ReflectorTest, TooLargeResourceVersionRelistsFromLatest) {
  lw_.AddListResponse(Page({PodJson("ns", "a", "5")}, "10"));
  lw_.EndWatch(TooLargeResourceVersion());
  lw_.AddListResponse(TooLargeResourceVersion());
  lw_.AddListResponse(Page({PodJson("ns", "a", "3")}, "4"));  // the restored, older state
  Start();
  EXPECT_THAT(sink_.WaitFor(2), ElementsAre("replace 10: ns/a@5", "replace 4: ns/a@3"));
  ASSERT_TRUE(lw_.WaitForWatchCalls(2));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[1].resource_version, "10");
  EXPECT_EQ(lists[2].resource_version, "");
  EXPECT_EQ(lists[2].limit, 500);
  EXPECT_EQ(lw_.WatchCalls()[1].resource_version, "4");
  EXPECT_EQ(reflector_->LastSyncResourceVersion(), "4");
}

TEST_F(ReflectorTest, TooLargeResourceVersionErrorEventRelistsFromLatest) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.AddWatchEvent("ERROR", TooLargeResourceVersionJson());
  lw_.EndWatch();
  lw_.AddListResponse(TooLargeResourceVersion());
  lw_.AddListResponse(Page({PodJson("ns", "y", "3")}, "4"));
  Start();
  EXPECT_THAT(sink_.WaitFor(2), ElementsAre("replace 10:", "replace 4: ns/y@3"));
  std::vector<ListOptions> lists = lw_.ListCalls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[2].resource_version, "");
}

TEST_F(ReflectorTest, StopInterruptsWatchAndBackoff) {
  lw_.AddListResponse(Page({}, "10"));
  lw_.EndWatch(util::Status(util::StatusCode::kUnavailable, "down"));
  Start();
  ASSERT_EQ(metrics_.WaitForBackoffs("pods", 1, milliseconds(10000)).size(), 1u);
  Stop();  // returns although the fake clock never reaches the deadline
  EXPECT_EQ(lw_.WatchCalls().size(), 1u);
}

TEST_F(ReflectorTest, StopInterruptsAnOpenWatch) {
  lw_.AddListResponse(Page({}, "10"));
  Start();
  ASSERT_TRUE(lw_.WaitForWatchCalls(1));
  Stop();
  EXPECT_EQ(lw_.OpenWatches(), 0);
}

TEST(ResourceVersionTest, ComparesNumericallyWhenBothParse) {
  EXPECT_TRUE(ResourceVersionIsNewer("11", "9"));
  EXPECT_FALSE(ResourceVersionIsNewer("9", "11"));
  EXPECT_FALSE(ResourceVersionIsNewer("11", "11"));
  EXPECT_TRUE(ResourceVersionIsNewer("5", ""));
  EXPECT_TRUE(ResourceVersionIsNewer("abc", "11"));
  EXPECT_TRUE(ResourceVersionIsNewer("11", "x7"));
}

}  // namespace
}  // namespace ksched::informer
