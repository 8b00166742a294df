#include "pkg/scheduler/queue/heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ksched::scheduler::queue {
namespace {

struct IntLess {
  bool operator()(int a, int b) const { return a < b; }
};

TEST(HeapTest, AddPopInOrder) {
  Heap<int, IntLess> h;
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.Peek(), nullptr);
  EXPECT_TRUE(h.AddOrUpdate("c", 3));
  EXPECT_TRUE(h.AddOrUpdate("a", 1));
  EXPECT_TRUE(h.AddOrUpdate("b", 2));
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(*h.Peek(), 1);
  EXPECT_EQ(h.PeekKey(), "a");
  std::string k1;
  size_t hash1 = 0;
  EXPECT_EQ(h.Pop(&k1, &hash1), 1);
  EXPECT_EQ(k1, "a");
  EXPECT_EQ(hash1, StringHash{}("a"));
  EXPECT_EQ(h.Pop(), 2);
  EXPECT_EQ(h.Pop(), 3);
  EXPECT_TRUE(h.empty());
}

TEST(HeapTest, UpdateReordersAndKeepsKey) {
  Heap<int, IntLess> h;
  h.AddOrUpdate("a", 1);
  h.AddOrUpdate("b", 2);
  EXPECT_FALSE(h.AddOrUpdate("a", 5));
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.PeekKey(), "b");
  EXPECT_FALSE(h.AddOrUpdate("a", 0));
  EXPECT_EQ(h.PeekKey(), "a");
  *h.Get("a") = 10;
  h.Fix("a");
  EXPECT_EQ(h.PeekKey(), "b");
}

TEST(HeapTest, OwnedKeys) {
  Heap<int, IntLess> h;
  std::string owned = "a-rather-long-key-beyond-sso";
  EXPECT_TRUE(h.AddOrUpdateOwned(std::move(owned), 2));
  EXPECT_FALSE(h.AddOrUpdateOwned(std::string("a-rather-long-key-beyond-sso"), 1));
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(*h.Peek(), 1);
  std::string k;
  h.Pop(&k);
  EXPECT_EQ(k, "a-rather-long-key-beyond-sso");
}

TEST(HeapTest, DeleteGetHas) {
  Heap<int, IntLess> h;
  h.AddOrUpdate("a", 1);
  h.AddOrUpdate("b", 2);
  h.AddOrUpdate("c", 3);
  EXPECT_TRUE(h.Has("b"));
  ASSERT_NE(h.Get("b"), nullptr);
  EXPECT_EQ(*h.Get("b"), 2);
  EXPECT_EQ(h.Delete("b"), std::optional<int>(2));
  EXPECT_FALSE(h.Has("b"));
  EXPECT_EQ(h.Get("b"), nullptr);
  EXPECT_EQ(h.Delete("b"), std::nullopt);
  EXPECT_EQ(h.Delete("a"), std::optional<int>(1));
  EXPECT_EQ(h.PeekKey(), "c");
  int seen = 0;
  h.ForEach([&](const std::string& k, int v) {
    EXPECT_EQ(k, "c");
    seen += v;
  });
  EXPECT_EQ(seen, 3);
  h.Clear();
  EXPECT_TRUE(h.empty());
}

// Random operations checked against a std::map after every step.
void RandomizedAgainstMap(const std::string& prefix, uint32_t key_space) {
  std::mt19937 rng(42);
  Heap<int, IntLess> h;
  std::map<std::string, int> model;
  for (int step = 0; step < 20000; ++step) {
    int op = rng() % 5;
    std::string key = prefix + std::to_string(rng() % key_space);
    int value = static_cast<int>(rng() % 1000);
    if (op == 0) {
      if (step % 2 == 0) {
        h.AddOrUpdate(key, value);
      } else {
        h.AddOrUpdate(key, StringHash{}(key), value);
      }
      model[key] = value;
    } else if (op == 1) {
      EXPECT_EQ(h.AddOrUpdateOwned(std::string(key), value), model.count(key) == 0);
      model[key] = value;
    } else if (op == 4) {
      int* v = h.Get(key);
      ASSERT_EQ(v != nullptr, model.count(key) == 1);
      if (v != nullptr) {
        *v = value;  // changed in place, then re-ordered
        h.Fix(key);
        model[key] = value;
      }
    } else if (op == 2) {
      auto got = h.Delete(key);
      auto it = model.find(key);
      ASSERT_EQ(got.has_value(), it != model.end());
      if (it != model.end()) {
        EXPECT_EQ(*got, it->second);
        model.erase(it);
      }
    } else if (!model.empty()) {
      int min = std::min_element(model.begin(), model.end(), [](auto& a, auto& b) { return a.second < b.second; })
                    ->second;
      std::string k;
      const int v = h.Pop(&k);
      EXPECT_EQ(v, min);
      EXPECT_EQ(model.at(k), v);
      model.erase(k);
    }
    ASSERT_EQ(h.size(), model.size());
  }
  std::map<std::string, int> seen;
  h.ForEach([&](const std::string& k, int v) { seen[k] = v; });
  EXPECT_EQ(seen, model);
}

// Short keys (in-string storage) and long ones (heap-allocated, moved in by
// AddOrUpdateOwned); deletes and pops recycle element handles and exercise
// the index's backward-shift deletion.
TEST(HeapTest, RandomizedAgainstMultimap) {
  RandomizedAgainstMap("k", 200);
  RandomizedAgainstMap("namespace-with-a-long-name/pod-", 200);
  // Enough keys for long probe runs, table growth and wrap-around.
  RandomizedAgainstMap("k", 5000);
}

}  // namespace
}  // namespace ksched::scheduler::queue

namespace ksched::scheduler::queue {
namespace {

struct Item {
  int prio;
  int id;
};
struct ItemLess {
  bool operator()(const Item& a, const Item& b) const { return a.prio < b.prio; }
};

// PredictedAfterNext is a prefetch hint, so it may be wrong, but Pops in a
// row (nothing added in between) should find it right nearly always, ties
// included: the hint replays the sift's tie-breaking.
TEST(HeapTest, PredictedAfterNextIsTheHeadTwoPopsLater) {
  for (int levels : {3, 20, 1000}) {
    Heap<Item, ItemLess> h;
    std::mt19937 rng(levels);
    const int n = 3000;
    for (int i = 0; i < n; ++i) h.AddOrUpdate("k" + std::to_string(i), Item{static_cast<int>(rng() % levels), i});
    std::vector<int> predicted;  // after the Pop with this index: the id predicted for Pop index + 2
    std::vector<int> popped;
    while (!h.empty()) {
      popped.push_back(h.Pop().id);
      const Item* p = h.PredictedAfterNext();
      predicted.push_back(p == nullptr ? -1 : p->id);
    }
    int right = 0;
    int total = 0;
    for (size_t i = 0; i + 2 < popped.size(); ++i) {
      ++total;
      if (predicted[i] == popped[i + 2]) ++right;
    }
    EXPECT_GE(right, total * 95 / 100) << "levels " << levels << ": " << right << " of " << total;
  }
}

}  // namespace
}  // namespace ksched::scheduler::queue
