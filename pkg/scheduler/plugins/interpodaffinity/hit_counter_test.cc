#include "pkg/scheduler/plugins/interpodaffinity/hit_counter.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/interpodaffinity/test_util.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

using testing::MakeNode;
using testing::PodBuilder;
using Entries = std::map<std::pair<std::string, std::string>, int64_t>;

// Table 0: one hit per pod labelled app=x, on the node's zone. Table 1: one
// per pod labelled app=y, on the node's host.
void Count(const framework::NodeInfo& ni, std::vector<Hit>& out) {
  static const std::string kZone = "zone";
  static const std::string kHost = "host";
  const api::StringMap& labels = ni.node()->metadata.labels;
  for (const auto& p : ni.pods()) {
    auto app = p->pod().metadata.labels.find("app");
    if (app == p->pod().metadata.labels.end()) continue;
    const std::string& key = app->second == "x" ? kZone : kHost;
    auto v = labels.find(key);
    if (v != labels.end()) out.push_back(Hit{&key, &v->second, app->second == "x" ? 0 : 1});
  }
}

Entries FromScratch(const framework::NodeInfoList& nodes, int table) {
  PairCounts c;
  std::vector<Hit> hits;
  for (const framework::NodeInfo* ni : nodes) Count(*ni, hits);
  for (const Hit& h : hits) {
    if (h.table == table) c.Add(*h.key, *h.value, 1);
  }
  return c.Entries();
}

class HitCounterTest : public ::testing::Test {
 protected:
  HitCounterTest() : parallelizer_(2) {}
  framework::NodeInfoList List() const {
    framework::NodeInfoList out;
    for (const auto& ni : infos_) out.push_back(ni.get());
    return out;
  }
  void ExpectConsistent(const HitCounter& counter) {
    EXPECT_EQ(counter.Table(0).Entries(), FromScratch(List(), 0));
    EXPECT_EQ(counter.Table(1).Entries(), FromScratch(List(), 1));
  }

  util::Parallelizer parallelizer_;
  std::vector<std::unique_ptr<framework::NodeInfo>> infos_;
};

TEST_F(HitCounterTest, IncrementalSyncMatchesRecount) {
  for (int i = 0; i < 200; ++i) {
    std::string name = "n" + std::to_string(i);
    infos_.push_back(std::make_unique<framework::NodeInfo>(
        MakeNode(name, {{"zone", "z" + std::to_string(i % 4)}, {"host", name}})));
    for (int k = 0; k < i % 3; ++k) {
      infos_.back()->AddPod(PodBuilder(name + "-" + std::to_string(k)).Node(name).Label("app", k ? "y" : "x").Obj());
    }
  }
  HitCounter counter(2);
  counter.Sync(List(), parallelizer_, Count);
  EXPECT_EQ(counter.last_recounted(), 200u);
  ExpectConsistent(counter);
  PairCounts held = counter.Table(0);
  const Entries held_entries = held.Entries();

  counter.Sync(List(), parallelizer_, Count);
  EXPECT_EQ(counter.last_recounted(), 0u);

  infos_[3]->AddPod(PodBuilder("new").Node("n3").Label("app", "x").Obj());
  ASSERT_TRUE(infos_[5]->RemovePod(infos_[5]->pods()[0]->pod()).ok());
  counter.Sync(List(), parallelizer_, Count);
  EXPECT_EQ(counter.last_recounted(), 2u);
  ExpectConsistent(counter);

  // Relabelled into a new zone, removed from the middle, list shrunk.
  infos_[8]->SetNode(MakeNode("n8", {{"zone", "z-new"}, {"host", "n8"}}));
  infos_.erase(infos_.begin() + 10, infos_.begin() + 15);
  counter.Sync(List(), parallelizer_, Count);
  ExpectConsistent(counter);
  infos_.resize(40);
  counter.Sync(List(), parallelizer_, Count);
  ExpectConsistent(counter);

  // A table handed out earlier did not change.
  EXPECT_EQ(held.Entries(), held_entries);
}

TEST_F(HitCounterTest, NeedsRebuildAfterNodeChurn) {
  auto add = [&](const std::string& name) {
    infos_.push_back(std::make_unique<framework::NodeInfo>(MakeNode(name, {{"zone", "z"}, {"host", name}})));
    infos_.back()->AddPod(PodBuilder(name + "-p").Node(name).Label("app", "y").Obj());
  };
  for (int i = 0; i < 1500; ++i) add("old" + std::to_string(i));
  HitCounterCache cache(2);
  HitCounter* counter = &cache.Get("s", 2);
  counter->Sync(List(), parallelizer_, Count);
  EXPECT_FALSE(counter->NeedsRebuild());
  // Every node replaced: the old hostnames stay interned but are dead.
  std::vector<std::unique_ptr<framework::NodeInfo>> old = std::move(infos_);
  infos_.clear();
  for (int i = 0; i < 100; ++i) add("new" + std::to_string(i));
  counter->Sync(List(), parallelizer_, Count);
  ExpectConsistent(*counter);
  EXPECT_TRUE(counter->NeedsRebuild());
  // The cache starts such a counter afresh on its next use.
  HitCounter& fresh = cache.Get("s", 2);
  EXPECT_EQ(fresh.total_hits(), 0);
  EXPECT_FALSE(fresh.NeedsRebuild());
  fresh.Sync(List(), parallelizer_, Count);
  EXPECT_EQ(fresh.last_recounted(), 100u);
  ExpectConsistent(fresh);
}

TEST(HitCounterCacheTest, EvictsLeastRecentlyUsed) {
  HitCounterCache cache(2);
  HitCounter* a = &cache.Get("a", 1);
  HitCounter* b = &cache.Get("b", 1);
  EXPECT_EQ(&cache.Get("a", 1), a);
  cache.Get("c", 1);  // evicts b, the least recently used
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(&cache.Get("a", 1), a);
  (void)b;
  HitCounter& b2 = cache.Get("b", 1);  // a fresh counter, evicting c
  EXPECT_EQ(b2.Table(0).size(), 0u);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
