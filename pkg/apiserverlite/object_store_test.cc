#include "pkg/apiserverlite/object_store.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "pkg/apiserverlite/test_sink.h"

namespace ksched::apiserver {
namespace {

using nlohmann::json;

json Pod(const std::string& ns, const std::string& name, const std::string& node = "") {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec", {{"containers", {{{"name", "c"}}}}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

uint64_t Rv(const ObjectPtr& p) { return std::stoull(p->object["metadata"]["resourceVersion"].get<std::string>()); }

class ObjectStoreTest : public ::testing::Test {
 protected:
  ResourceVersionClock clock_;
  ObjectStore store_{"pods", clock_, 100};
};

TEST_F(ObjectStoreTest, CreateAssignsIncreasingResourceVersions) {
  auto a = store_.Create(Pod("ns", "a"));
  auto b = store_.Create(Pod("ns", "b"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Rv(a.value()), 1u);
  EXPECT_EQ(Rv(b.value()), 2u);
  EXPECT_EQ(a.value()->key, "ns/a");
  EXPECT_EQ(a.value()->serialized, a.value()->object.dump());
  EXPECT_EQ(store_.Get("ns/a"), a.value());
  EXPECT_EQ(store_.Get("ns/zz"), nullptr);
}

TEST_F(ObjectStoreTest, CreateTwiceIsAlreadyExists) {
  ASSERT_TRUE(store_.Create(Pod("ns", "a")).ok());
  auto again = store_.Create(Pod("ns", "a"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, 409);
  EXPECT_EQ(again.error().reason, "AlreadyExists");
  EXPECT_EQ(again.error().message, "pods \"a\" already exists");
}

TEST_F(ObjectStoreTest, UpdateBumpsResourceVersionAndNoOpDoesNot) {
  auto a = store_.Create(Pod("ns", "a"));
  auto updated = store_.Update("ns/a", [](const json& cur) -> ApiResult<json> {
    json next = cur;
    next["spec"]["nodeName"] = "n1";
    return next;
  });
  ASSERT_TRUE(updated.ok());
  EXPECT_GT(Rv(updated.value()), Rv(a.value()));
  EXPECT_EQ(updated.value()->object["spec"]["nodeName"], "n1");
  auto same = store_.Update("ns/a", [](const json& cur) -> ApiResult<json> { return cur; });
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same.value(), updated.value());
  EXPECT_EQ(clock_.Current(), Rv(updated.value()));
}

TEST_F(ObjectStoreTest, UpdateErrorsPropagateAndMissingIsNotFound) {
  store_.Create(Pod("ns", "a"));
  auto refused = store_.Update("ns/a", [](const json&) -> ApiResult<json> {
    return ConflictError("pods", "a", "nope");
  });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 409);
  auto missing = store_.Update("ns/b", [](const json& c) -> ApiResult<json> { return c; });
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 404);
  EXPECT_EQ(missing.error().message, "pods \"b\" not found");
}

TEST_F(ObjectStoreTest, DeleteRemovesAndFinalizersDefer) {
  store_.Create(Pod("ns", "a"));
  json fin = Pod("ns", "f");
  fin["metadata"]["finalizers"] = {"example.com/keep"};
  store_.Create(fin);

  auto del = store_.Delete("ns/a", nullptr, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(del.value().deleted);
  EXPECT_EQ(store_.Get("ns/a"), nullptr);

  auto deferred = store_.Delete("ns/f", nullptr, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(deferred.ok());
  EXPECT_FALSE(deferred.value().deleted);
  EXPECT_EQ(deferred.value().object->object["metadata"]["deletionTimestamp"],
            "2026-01-01T00:00:00Z");
  ASSERT_NE(store_.Get("ns/f"), nullptr);

  auto cleared = store_.Update("ns/f", [](const json& cur) -> ApiResult<json> {
    json next = cur;
    next["metadata"]["finalizers"] = json::array();
    return next;
  });
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(store_.Get("ns/f"), nullptr);

  auto missing = store_.Delete("ns/a", nullptr, "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 404);
}

TEST_F(ObjectStoreTest, DeleteCheckCanRefuse) {
  store_.Create(Pod("ns", "a"));
  auto refused = store_.Delete(
      "ns/a", [](const json&) { return std::optional<ApiError>(ConflictError("pods", "a", "x")); },
      "");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(store_.Get("ns/a"), nullptr);
}

TEST_F(ObjectStoreTest, ListFiltersByPrefixAndPredicateInKeyOrder) {
  store_.Create(Pod("b", "x"));
  store_.Create(Pod("a", "y", "n1"));
  store_.Create(Pod("a", "x"));
  store_.Create(Pod("ab", "z"));
  auto all = store_.List("", nullptr);
  ASSERT_EQ(all.items.size(), 4u);
  EXPECT_EQ(all.items[0]->key, "a/x");
  EXPECT_EQ(all.items[1]->key, "a/y");
  EXPECT_EQ(all.items[2]->key, "ab/z");
  EXPECT_EQ(all.resource_version, clock_.Current());
  auto in_a = store_.List("a/", nullptr);
  ASSERT_EQ(in_a.items.size(), 2u);
  auto bound = store_.List("", [](const json& p) { return p["spec"].contains("nodeName"); });
  ASSERT_EQ(bound.items.size(), 1u);
  EXPECT_EQ(bound.items[0]->key, "a/y");
}

TEST_F(ObjectStoreTest, WatchFromZeroSendsCurrentStateThenEvents) {
  store_.Create(Pod("ns", "a"));
  auto sink = std::make_shared<CollectingSink>();
  auto id = store_.Watch(WatchOptions{}, sink);
  ASSERT_TRUE(id.ok());
  store_.Create(Pod("ns", "b"));
  store_.Delete("ns/a", nullptr, "");
  EXPECT_EQ(sink->types(), (std::vector<std::string>{"ADDED", "ADDED", "DELETED"}));
  auto lines = sink->lines();
  EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(lines[2]["object"]["metadata"]["name"], "a");
  // The DELETED object carries the deletion's resourceVersion.
  EXPECT_EQ(lines[2]["object"]["metadata"]["resourceVersion"], std::to_string(clock_.Current()));
  for (const auto& raw : sink->raw()) EXPECT_EQ(raw.back(), '\n');
  store_.StopWatch(id.value());
  EXPECT_TRUE(sink->closed());
  EXPECT_EQ(store_.watcher_count(), 0u);
}

TEST_F(ObjectStoreTest, WatchFromResourceVersionReplaysOnlyLaterEvents) {
  store_.Create(Pod("ns", "a"));
  uint64_t rv = clock_.Current();
  store_.Create(Pod("ns", "b"));
  store_.Create(Pod("ns", "c"));
  auto sink = std::make_shared<CollectingSink>();
  WatchOptions opts;
  opts.resource_version = rv;
  ASSERT_TRUE(store_.Watch(opts, sink).ok());
  auto lines = sink->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["object"]["metadata"]["name"], "b");
  EXPECT_EQ(lines[1]["object"]["metadata"]["name"], "c");
}

TEST_F(ObjectStoreTest, WatchOlderThanHistoryIsExpired) {
  ObjectStore small("pods", clock_, 3);
  for (int i = 0; i < 6; ++i) small.Create(Pod("ns", "p" + std::to_string(i)));
  EXPECT_EQ(small.history_floor(), 3u);
  WatchOptions old;
  old.resource_version = 2;
  auto expired = small.Watch(old, std::make_shared<CollectingSink>());
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code, 410);
  EXPECT_EQ(expired.error().reason, "Expired");
  EXPECT_EQ(expired.error().message, "too old resource version: 2 (4)");
  WatchOptions at_floor;
  at_floor.resource_version = 3;
  auto sink = std::make_shared<CollectingSink>();
  ASSERT_TRUE(small.Watch(at_floor, sink).ok());
  EXPECT_EQ(sink->lines().size(), 3u);
}

TEST_F(ObjectStoreTest, CompactForcesExpired) {
  store_.Create(Pod("ns", "a"));
  uint64_t rv = clock_.Current();
  store_.Create(Pod("ns", "b"));
  store_.Compact();
  WatchOptions opts;
  opts.resource_version = rv;
  auto expired = store_.Watch(opts, std::make_shared<CollectingSink>());
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code, 410);
  opts.resource_version = clock_.Current();
  EXPECT_TRUE(store_.Watch(opts, std::make_shared<CollectingSink>()).ok());
}

TEST_F(ObjectStoreTest, SelectorTransitionsBecomeAddedAndDeleted) {
  store_.Create(Pod("ns", "a"));
  auto sink = std::make_shared<CollectingSink>();
  WatchOptions opts;
  opts.resource_version = clock_.Current();
  opts.predicate = [](const json& p) {
    return p["spec"].value("nodeName", "") == "n1";
  };
  ASSERT_TRUE(store_.Watch(opts, sink).ok());
  auto set_node = [&](const std::string& node) {
    store_.Update("ns/a", [&](const json& cur) -> ApiResult<json> {
      json next = cur;
      next["spec"]["nodeName"] = node;
      next["metadata"]["labels"] = {{"n", node}};
      return next;
    });
  };
  set_node("n1");  // starts matching: ADDED
  set_node("n1");  // no-op: nothing
  store_.Update("ns/a", [](const json& cur) -> ApiResult<json> {
    json next = cur;
    next["metadata"]["annotations"] = {{"x", "y"}};
    return next;
  });               // still matching: MODIFIED
  set_node("n2");  // stops matching: DELETED with the previous content
  set_node("n3");  // neither: nothing
  EXPECT_EQ(sink->types(), (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  json deleted = sink->lines()[2]["object"];
  EXPECT_EQ(deleted["spec"]["nodeName"], "n1");
  EXPECT_EQ(std::stoull(deleted["metadata"]["resourceVersion"].get<std::string>()),
            clock_.Current() - 1);
}

TEST_F(ObjectStoreTest, ViewConvertsObjectsPerWatcher) {
  auto sink = std::make_shared<CollectingSink>();
  WatchOptions opts;
  opts.view = [](const json& obj) {
    json v = obj;
    v["kind"] = "Viewed";
    return v;
  };
  // The predicate sees the stored object, the sink the converted one.
  opts.predicate = [](const json& obj) { return obj["kind"] == "Pod"; };
  ASSERT_TRUE(store_.Watch(opts, sink).ok());
  store_.Create(Pod("ns", "a"));
  store_.Update("ns/a", [](const json& cur) -> ApiResult<json> {
    json next = cur;
    next["kind"] = "Other";
    return next;
  });
  ASSERT_EQ(sink->types(), (std::vector<std::string>{"ADDED", "DELETED"}));
  EXPECT_EQ(sink->lines()[0]["object"]["kind"], "Viewed");
  EXPECT_EQ(sink->lines()[1]["object"]["kind"], "Viewed");
}

TEST_F(ObjectStoreTest, RefusingSinkIsDroppedWithoutBlockingWriters) {
  auto slow = std::make_shared<CollectingSink>(2);
  auto fast = std::make_shared<CollectingSink>();
  ASSERT_TRUE(store_.Watch(WatchOptions{}, slow).ok());
  ASSERT_TRUE(store_.Watch(WatchOptions{}, fast).ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store_.Create(Pod("ns", "p" + std::to_string(i))).ok());
  EXPECT_TRUE(slow->closed());
  EXPECT_EQ(slow->lines().size(), 2u);
  EXPECT_EQ(fast->lines().size(), 5u);
  EXPECT_EQ(store_.watcher_count(), 1u);
}

TEST_F(ObjectStoreTest, BookmarksCarryTheCurrentResourceVersion) {
  auto with = std::make_shared<CollectingSink>();
  auto without = std::make_shared<CollectingSink>();
  WatchOptions opts;
  opts.resource_version = clock_.Current();
  opts.bookmarks = true;
  opts.api_version = "v1";
  opts.kind = "Pod";
  ASSERT_TRUE(store_.Watch(opts, with).ok());
  opts.bookmarks = false;
  ASSERT_TRUE(store_.Watch(opts, without).ok());
  clock_.Next();  // another resource's write moves the global clock
  store_.SendBookmarks();
  ASSERT_EQ(with->lines().size(), 1u);
  json b = with->lines()[0];
  EXPECT_EQ(b["type"], "BOOKMARK");
  EXPECT_EQ(b["object"]["kind"], "Pod");
  EXPECT_EQ(b["object"]["apiVersion"], "v1");
  EXPECT_EQ(b["object"]["metadata"]["resourceVersion"], std::to_string(clock_.Current()));
  EXPECT_TRUE(without->lines().empty());
}

TEST_F(ObjectStoreTest, InitialEventsEndBookmark) {
  store_.Create(Pod("ns", "a"));
  auto sink = std::make_shared<CollectingSink>();
  WatchOptions opts;
  opts.bookmarks = true;
  opts.initial_events_end_bookmark = true;
  opts.kind = "Pod";
  opts.api_version = "v1";
  ASSERT_TRUE(store_.Watch(opts, sink).ok());
  EXPECT_EQ(sink->types(), (std::vector<std::string>{"ADDED", "BOOKMARK"}));
  EXPECT_EQ(sink->lines()[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
            "true");
}

TEST_F(ObjectStoreTest, CloseWatchersEndsEveryStream) {
  auto a = std::make_shared<CollectingSink>();
  auto b = std::make_shared<CollectingSink>();
  store_.Watch(WatchOptions{}, a);
  store_.Watch(WatchOptions{}, b);
  store_.CloseWatchers();
  EXPECT_TRUE(a->closed());
  EXPECT_TRUE(b->closed());
  EXPECT_EQ(store_.watcher_count(), 0u);
}

TEST_F(ObjectStoreTest, ObserversSeeEveryEventInOrder) {
  std::vector<std::pair<EventType, uint64_t>> seen;
  store_.AddObserver([&](const EventPtr& e) { seen.emplace_back(e->type(), e->resource_version()); });
  store_.Create(Pod("ns", "a"));
  store_.Update("ns/a", [](const json& c) -> ApiResult<json> {
    json n = c;
    n["spec"]["nodeName"] = "x";
    return n;
  });
  store_.Delete("ns/a", nullptr, "");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, EventType::kAdded);
  EXPECT_EQ(seen[1].first, EventType::kModified);
  EXPECT_EQ(seen[2].first, EventType::kDeleted);
  EXPECT_LT(seen[0].second, seen[1].second);
  EXPECT_LT(seen[1].second, seen[2].second);
}

TEST_F(ObjectStoreTest, ConcurrentWritersProduceOneOrderedStream) {
  auto sink = std::make_shared<CollectingSink>();
  ASSERT_TRUE(store_.Watch(WatchOptions{}, sink).ok());
  ResourceVersionClock& clock = clock_;
  ObjectStore other("nodes", clock, 100);  // shares the RV clock
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        store_.Create(Pod("ns", "t" + std::to_string(t) + "-" + std::to_string(i)));
        other.Create({{"metadata", {{"name", "n" + std::to_string(t) + "-" + std::to_string(i)}}}});
      }
    });
  }
  for (auto& th : threads) th.join();
  auto lines = sink->lines();
  ASSERT_EQ(lines.size(), 200u);
  uint64_t last = 0;
  std::set<std::string> names;
  for (const auto& l : lines) {
    uint64_t rv = std::stoull(l["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(rv, last);
    last = rv;
    names.insert(l["object"]["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(names.size(), 200u);
  EXPECT_EQ(clock_.Current(), 400u);
}

}  // namespace
}  // namespace ksched::apiserver
