#include "pkg/informer/shared_informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <stdexcept>

#include "pkg/informer/fake_lister_watcher.h"
#include "pkg/informer/indexers.h"
#include "pkg/informer/test_objects.h"

namespace ksched::informer {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using testing::kNodeNameIndex;
using testing::NodeNameIndexFunc;
using testing::Page;
using testing::PodJson;
using testing::Recorder;

class SharedInformerTest : public ::testing::Test {
 protected:
  SharedInformerTest() {
    auto lw = std::make_unique<FakeListerWatcher>();
    lw_ = lw.get();
    SharedInformerOptions options;
    options.reflector.seed = 99;
    informer_ = std::make_unique<SharedInformer<api::Pod>>(std::move(lw), clock_, options, &metrics_);
  }

  util::FakeClock clock_;
  CountingReflectorMetrics metrics_;
  // Outlives the informer, whose delivery thread calls into it.
  Recorder recorder_;
  FakeListerWatcher* lw_ = nullptr;
  std::unique_ptr<SharedInformer<api::Pod>> informer_;
};

TEST_F(SharedInformerTest, DeliversInitialListThenWatchEvents) {
  auto registration = informer_->AddEventHandler(recorder_.PodHandler());
  EXPECT_FALSE(informer_->HasSynced());
  EXPECT_FALSE(registration->HasSynced());
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "10"));
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_TRUE(registration->HasSynced());
  // Synced means the first list reached the handler.
  EXPECT_THAT(recorder_.Calls(), UnorderedElementsAre("add ns/a 1 initial", "add ns/b 2 initial"));

  lw_->AddWatchEvent("ADDED", PodJson("ns", "c", "11"));
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "a", "12"));
  lw_->AddWatchEvent("DELETED", PodJson("ns", "b", "13"));
  std::vector<std::string> calls = recorder_.WaitFor(5);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 2, calls.end()),
              ElementsAre("add ns/c 11", "update ns/a 1->12", "delete ns/b 13"));
  EXPECT_THAT(informer_->GetStore().ListKeys(), UnorderedElementsAre("ns/a", "ns/c"));
  ASSERT_TRUE(lw_->WaitForWatchActionsConsumed());
  EXPECT_EQ(informer_->LastSyncResourceVersion(), "13");
  EXPECT_EQ(informer_->resource(), "pods");
  EXPECT_EQ(metrics_.Get("pods").lists, 1);
}

// Records the scheduling policy of the thread that lists.
class PolicyRecordingListerWatcher final : public ListerWatcher {
 public:
  explicit PolicyRecordingListerWatcher(FakeListerWatcher* inner) : inner_(inner) {}
  util::StatusOr<ListPageInfo> List(const ListOptions& options, const ListItemCallback& on_item,
                                    std::stop_token stop) override {
    list_policy = sched_getscheduler(0);
    return inner_->List(options, on_item, stop);
  }
  util::Status Watch(const WatchOptions& options, const WatchEventCallback& callback, std::stop_token stop) override {
    return inner_->Watch(options, callback, stop);
  }
  std::atomic<int> list_policy{-1};

 private:
  FakeListerWatcher* inner_;
};

TEST(SharedInformerThreadsTest, WaitForACpuWhenWokenAndLeaveTheStarterAsItWas) {
  util::FakeClock clock;
  CountingReflectorMetrics metrics;
  FakeListerWatcher fake;
  fake.AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  auto lw = std::make_unique<PolicyRecordingListerWatcher>(&fake);
  PolicyRecordingListerWatcher* recording = lw.get();
  std::atomic<int> handler_policy{-1};
  SharedInformer<api::Pod> informer(std::move(lw), clock, SharedInformerOptions{}, &metrics);
  informer.AddEventHandler({.on_add = [&](const auto&, bool) { handler_policy = sched_getscheduler(0); }});
  informer.Start();
  ASSERT_TRUE(informer.WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_EQ(recording->list_policy.load(), SCHED_BATCH);  // the reflector thread
  EXPECT_EQ(handler_policy.load(), SCHED_BATCH);          // the thread that delivered the list
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  informer.Stop();
}

std::string ThisThreadsName() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

// Records which thread delivered each added pod, for tests of who delivers.
class DeliveryLog {
 public:
  using Entry = std::pair<std::string, std::string>;  // (pod, thread)

  ResourceEventHandlerFuncs<api::Pod> Handler() {
    return {.on_add = [this](const auto& pod, bool) {
      std::lock_guard<std::mutex> lock(mu_);
      entries_.emplace_back(pod->metadata.name, ThisThreadsName());
      added_.notify_all();
    }};
  }
  std::vector<Entry> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_;
  }
  // Waits up to 10 s until at least `n` pods were delivered.
  bool WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return added_.wait_for(lock, std::chrono::seconds(10), [&] { return entries_.size() >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable added_;
  std::vector<Entry> entries_;
};

// An event with nothing more arrived behind it, finding no notification
// queued and no thread delivering, is delivered by the reflector thread;
// one with the next event behind it goes to the delivery thread. Order
// holds either way.
TEST_F(SharedInformerTest, LoneWatchEventsAreDeliveredByTheReflectorThread) {
  DeliveryLog log;
  informer_->AddEventHandler(log.Handler());
  lw_->AddListResponse(Page({}, "10"));
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));

  lw_->AddWatchEvent("ADDED", PodJson("ns", "a", "11"), /*more_arrived=*/true);
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "12"));
  ASSERT_TRUE(lw_->WaitForWatchActionsConsumed());
  // The delivery thread starts at this first hand-off: on a loaded
  // machine it may run only after the events below were read.
  ASSERT_TRUE(log.WaitFor(2));
  // The delivery thread may still hold its turn for a moment (the event
  // then goes to it): lone events until one finds it idle.
  int rv = 13;
  bool reflector_delivered = false;
  for (int i = 0; i < 100 && !reflector_delivered; ++i, ++rv) {
    lw_->AddWatchEvent("ADDED", PodJson("ns", "lone" + std::to_string(rv), std::to_string(rv)));
    ASSERT_TRUE(lw_->WaitForWatchActionsConsumed());
    for (const auto& [pod, thread] : log.Get()) reflector_delivered |= thread == "w/pods";
  }
  EXPECT_TRUE(reflector_delivered);
  std::vector<DeliveryLog::Entry> got = log.Get();
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_pair(std::string("a"), std::string("d/pods")));
  EXPECT_EQ(got[1].first, "b");  // by either thread: a may be delivered already
  for (size_t i = 2; i < got.size(); ++i) EXPECT_EQ(got[i].first, "lone" + std::to_string(11 + i)) << i;
}

// Threads of this process named `name`.
int ThreadsNamed(const std::string& name) {
  int n = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name) ++n;
  }
  return n;
}

// A short list finding no thread delivering is delivered by the reflector
// thread, so an informer of an empty collection has no delivery thread; the
// first hand-off (an event with more behind it, a long list) starts one.
TEST_F(SharedInformerTest, ADeliveryThreadStartsAtTheFirstHandOff) {
  DeliveryLog log;
  informer_->AddEventHandler(log.Handler());
  lw_->AddListResponse(Page({PodJson("ns", "listed", "1")}, "10"));
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
  ASSERT_TRUE(lw_->WaitForWatchActionsConsumed());
  std::vector<DeliveryLog::Entry> got = log.Get();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], std::make_pair(std::string("listed"), std::string("w/pods")));
  EXPECT_EQ(ThreadsNamed("d/pods"), 0);

  lw_->AddWatchEvent("ADDED", PodJson("ns", "a", "11"), /*more_arrived=*/true);
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "12"));
  ASSERT_TRUE(log.WaitFor(3));
  got = log.Get();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1], std::make_pair(std::string("a"), std::string("d/pods")));
  EXPECT_EQ(ThreadsNamed("d/pods"), 1);
}

TEST_F(SharedInformerTest, ALongListGoesToTheDeliveryThread) {
  std::vector<nlohmann::json> pods;
  for (int i = 0; i < 40; ++i) pods.push_back(PodJson("ns", "p" + std::to_string(i), std::to_string(i + 1)));
  lw_->AddListResponse(Page(pods, "100"));
  std::mutex mu;
  std::set<std::string> threads;
  informer_->AddEventHandler({.on_add = [&](const auto&, bool) {
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(ThisThreadsName());
  }});
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(threads, std::set<std::string>{"d/pods"});
}

TEST_F(SharedInformerTest, RelistTurnsVanishedObjectsIntoTombstones) {
  informer_->AddEventHandler(recorder_.PodHandler());
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "10"));
  lw_->EndWatch(util::Status(util::StatusCode::kGone, "too old resource version"));
  // b was deleted while the watch was down; a did not change.
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "c", "20")}, "21"));
  informer_->Start();
  std::vector<std::string> calls = recorder_.WaitFor(5);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 2, calls.end()),
              ElementsAre("update ns/a 1->1", "add ns/c 20", "delete ns/b 2 tombstone"));
  EXPECT_THAT(informer_->GetStore().ListKeys(), UnorderedElementsAre("ns/a", "ns/c"));
  ASSERT_TRUE(lw_->WaitForWatchCalls(2));  // the relist has been counted
  EXPECT_EQ(metrics_.Get("pods").relists, 1);
}

TEST_F(SharedInformerTest, ObjectRecreatedWhileTheWatchWasDownIsDeletedThenAdded) {
  informer_->AddEventHandler(recorder_.PodHandler());
  nlohmann::json recreated = PodJson("ns", "a", "20");
  recreated["metadata"]["uid"] = "uid-second";
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_->EndWatch(util::Status(util::StatusCode::kGone, "too old resource version"));
  lw_->AddListResponse(Page({recreated}, "21"));
  informer_->Start();
  EXPECT_THAT(recorder_.WaitFor(3), ElementsAre("add ns/a 1 initial", "delete ns/a 1 tombstone", "add ns/a 20"));
}

TEST_F(SharedInformerTest, HandlersRunInRegistrationOrderPerNotification) {
  informer_->AddEventHandler(recorder_.PodHandler("h1"));
  informer_->AddEventHandler(recorder_.PodHandler("h2"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "11"));
  lw_->AddWatchEvent("DELETED", PodJson("ns", "a", "12"));
  informer_->Start();
  EXPECT_THAT(recorder_.WaitFor(6), ElementsAre("h1 add ns/a 1 initial", "h2 add ns/a 1 initial", "h1 add ns/b 11",
                                                "h2 add ns/b 11", "h1 delete ns/a 12", "h2 delete ns/a 12"));
}

TEST_F(SharedInformerTest, FilterTransitionsBecomeAddsAndDeletes) {
  // Only unassigned pods pass; tombstones pass whatever their node.
  ResourceEventHandlerFuncs<api::Pod> handler = recorder_.PodHandler();
  handler.filter = [](const api::Pod& p) { return p.spec.node_name.empty(); };
  handler.tombstone_filter = [](const api::Pod&) { return true; };
  informer_->AddEventHandler(handler);
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "bound", "2", "node-1"),
                             PodJson("ns", "bound2", "3", "node-1")},
                            "10"));
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "a", "11", "node-1"));      // leaves the filter
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "bound", "12", "node-2"));  // stays out
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "a", "13"));                // comes back
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "a", "14"));                // stays in
  lw_->AddWatchEvent("DELETED", PodJson("ns", "bound", "15", "node-2"));   // filtered out
  lw_->EndWatch(util::Status(util::StatusCode::kGone, "expired"));
  lw_->AddListResponse(Page({}, "20"));  // a and bound2 vanish: tombstones
  informer_->Start();
  EXPECT_THAT(recorder_.WaitFor(6),
              ElementsAre("add ns/a 1 initial", "delete ns/a 1", "add ns/a 13", "update ns/a 13->14",
                          "delete ns/a 14 tombstone", "delete ns/bound2 3 tombstone"));
  EXPECT_EQ(informer_->GetStore().Size(), 0u);
}

TEST_F(SharedInformerTest, TombstonesUseTheFilterWithoutATombstoneFilter) {
  ResourceEventHandlerFuncs<api::Pod> handler = recorder_.PodHandler();
  handler.filter = [](const api::Pod& p) { return p.spec.node_name.empty(); };
  informer_->AddEventHandler(handler);
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "bound", "2", "node-1")}, "10"));
  lw_->EndWatch(util::Status(util::StatusCode::kGone, "expired"));
  lw_->AddListResponse(Page({}, "20"));
  lw_->AddWatchEvent("ADDED", PodJson("ns", "c", "21"));
  informer_->Start();
  // bound's tombstone fails the filter; c's add comes after it.
  EXPECT_THAT(recorder_.WaitFor(3), ElementsAre("add ns/a 1 initial", "delete ns/a 1 tombstone", "add ns/c 21"));
}

TEST_F(SharedInformerTest, LateHandlerGetsTheStoreThenChanges) {
  informer_->AddEventHandler(recorder_.PodHandler("early"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "11"));
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
  recorder_.WaitFor(2);
  auto late = informer_->AddEventHandler(recorder_.PodHandler("late"));
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "b", "12"));
  std::vector<std::string> calls = recorder_.WaitFor(6);
  ASSERT_EQ(calls.size(), 6u);
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 2, calls.begin() + 4),
              UnorderedElementsAre("late add ns/a 1 initial", "late add ns/b 11 initial"));
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 4, calls.end()),
              ElementsAre("early update ns/b 11->12", "late update ns/b 11->12"));
  EXPECT_TRUE(late->HasSynced());
}

TEST_F(SharedInformerTest, HandlerAddedBeforeTheFirstListSyncsWithIt) {
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  auto registration = informer_->AddEventHandler(recorder_.PodHandler());
  informer_->Start();
  ASSERT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
  EXPECT_TRUE(registration->HasSynced());
  EXPECT_THAT(recorder_.Calls(), ElementsAre("add ns/a 1 initial"));
}

TEST_F(SharedInformerTest, EmptyFirstListStillSyncs) {
  lw_->AddListResponse(Page({}, "10"));
  informer_->Start();
  EXPECT_TRUE(informer_->WaitForCacheSync(std::chrono::seconds(10)));
}

TEST_F(SharedInformerTest, WaitForCacheSyncTimesOutOnTheClock) {
  informer_->Start();  // the list never answers
  ASSERT_TRUE(lw_->WaitForListCalls(1));
  auto waiting = std::async(std::launch::async, [&] { return informer_->WaitForCacheSync(std::chrono::seconds(5)); });
  // The waiter reads the clock when it starts; step until it has given up.
  while (waiting.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
    clock_.Step(std::chrono::seconds(5));
  }
  EXPECT_FALSE(waiting.get());
  EXPECT_FALSE(informer_->HasSynced());
  informer_->Stop();  // aborts the pending list
}

// A handler that throws has missed a change. The informer logs it, relists
// after the reflector's backoff, and brings that handler from what it last
// saw to the listed state (here: the add it missed); the other handlers see
// the relist as usual.
TEST_F(SharedInformerTest, ThrowingAddHandlerRelistsAndCatchesUp) {
  ResourceEventHandlerFuncs<api::Pod> flaky = recorder_.PodHandler("flaky");
  auto add = flaky.on_add;
  auto throws = std::make_shared<std::atomic<int>>(1);
  flaky.on_add = [add, throws](const std::shared_ptr<const api::Pod>& pod, bool initial) {
    if (pod->metadata.name == "b" && throws->fetch_sub(1) > 0) throw std::runtime_error("boom");
    add(pod, initial);
  };
  informer_->AddEventHandler(flaky);
  informer_->AddEventHandler(recorder_.PodHandler("ok"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "11"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "12")}, "12"));
  informer_->Start();

  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, std::chrono::seconds(10));
  ASSERT_EQ(backoffs.size(), 1u);
  EXPECT_EQ(metrics_.Get("pods").forced_relists["handler_error"], 1);
  EXPECT_EQ(lw_->ListCalls().size(), 1u);
  clock_.Step(backoffs[0]);
  EXPECT_THAT(recorder_.WaitFor(7),
              ElementsAre("flaky add ns/a 1 initial", "ok add ns/a 1 initial", "ok add ns/b 11",
                          "flaky update ns/a 1->1", "ok update ns/a 1->1", "flaky add ns/b 12",
                          "ok update ns/b 11->12"));
  ASSERT_TRUE(lw_->WaitForWatchCalls(2));
  EXPECT_EQ(metrics_.Get("pods").relists, 1);
}

// A catch-up that throws again waits for the next relist; the key is not
// mistaken for one the list no longer has.
TEST_F(SharedInformerTest, ThrowingCatchUpWaitsForTheNextRelist) {
  ResourceEventHandlerFuncs<api::Pod> flaky = recorder_.PodHandler("flaky");
  auto add = flaky.on_add;
  auto throws = std::make_shared<std::atomic<int>>(2);
  flaky.on_add = [add, throws](const std::shared_ptr<const api::Pod>& pod, bool initial) {
    if (pod->metadata.name == "b" && throws->fetch_sub(1) > 0) throw std::runtime_error("boom");
    add(pod, initial);
  };
  informer_->AddEventHandler(flaky);
  lw_->AddListResponse(Page({PodJson("ns", "a", "1")}, "10"));
  lw_->AddWatchEvent("ADDED", PodJson("ns", "b", "11"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "12")}, "12"));
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "13")}, "13"));
  informer_->Start();
  for (size_t n = 1; n <= 2; ++n) {
    std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", n, std::chrono::seconds(10));
    ASSERT_EQ(backoffs.size(), n);
    clock_.Step(backoffs[n - 1]);
  }
  EXPECT_THAT(recorder_.WaitFor(4), ElementsAre("flaky add ns/a 1 initial", "flaky update ns/a 1->1",
                                                "flaky update ns/a 1->1", "flaky add ns/b 13"));
  EXPECT_EQ(metrics_.Get("pods").forced_relists["handler_error"], 2);
}

// A deletion the handler missed: the object is gone from the Store and from
// the list, so only the catch-up tells the handler.
TEST_F(SharedInformerTest, ThrowingDeleteHandlerRelistsAndCatchesUp) {
  ResourceEventHandlerFuncs<api::Pod> flaky = recorder_.PodHandler("flaky");
  auto throws = std::make_shared<std::atomic<int>>(1);
  auto remove = flaky.on_delete;
  flaky.on_delete = [remove, throws](const std::shared_ptr<const api::Pod>& pod, bool unknown) {
    if (throws->fetch_sub(1) > 0) throw std::runtime_error("boom");
    remove(pod, unknown);
  };
  informer_->AddEventHandler(flaky);
  lw_->AddListResponse(Page({PodJson("ns", "a", "1"), PodJson("ns", "b", "2")}, "10"));
  lw_->AddWatchEvent("DELETED", PodJson("ns", "a", "11"));
  lw_->AddListResponse(Page({PodJson("ns", "b", "2")}, "11"));
  informer_->Start();
  std::vector<util::Duration> backoffs = metrics_.WaitForBackoffs("pods", 1, std::chrono::seconds(10));
  ASSERT_EQ(backoffs.size(), 1u);
  clock_.Step(backoffs[0]);
  std::vector<std::string> calls = recorder_.WaitFor(4);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 2, calls.end()),
              ElementsAre("flaky update ns/b 2->2", "flaky delete ns/a 11 tombstone"));
  EXPECT_EQ(metrics_.Get("pods").forced_relists["handler_error"], 1);
}

TEST_F(SharedInformerTest, StoreIsReadableAndIndexed) {
  ASSERT_TRUE(informer_->AddIndexer(kNodeNameIndex, NodeNameIndexFunc).ok());
  informer_->AddEventHandler(recorder_.PodHandler());
  lw_->AddListResponse(Page({PodJson("ns", "a", "1", "n1"), PodJson("ns", "b", "2", "n2")}, "10"));
  lw_->AddWatchEvent("MODIFIED", PodJson("ns", "b", "11", "n1"));
  informer_->Start();
  recorder_.WaitFor(3);
  auto on_n1 = informer_->GetStore().ByIndex(kNodeNameIndex, "n1");
  ASSERT_TRUE(on_n1.ok());
  EXPECT_EQ(on_n1->size(), 2u);
  EXPECT_EQ(informer_->GetStore().Get("ns/b")->metadata.resource_version, "11");
}

TEST_F(SharedInformerTest, StopJoinsAndIsIdempotent) {
  lw_->AddListResponse(Page({}, "10"));
  informer_->Start();
  ASSERT_TRUE(lw_->WaitForWatchCalls(1));
  informer_->Stop();
  EXPECT_EQ(lw_->OpenWatches(), 0);
  informer_->Stop();
  informer_->Start();  // a stopped informer stays stopped
  EXPECT_EQ(lw_->WatchCalls().size(), 1u);
}

}  // namespace
}  // namespace ksched::informer
