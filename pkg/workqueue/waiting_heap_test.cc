#include "pkg/workqueue/waiting_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ksched::workqueue {
namespace {

using namespace std::chrono_literals;

util::TimePoint At(util::Duration d) { return util::TimePoint(d); }

TEST(WaitingHeapTest, PopsByReadyTimeThenInsertionOrder) {
  WaitingHeap<std::string> h;
  h.Insert("c", At(3s));
  h.Insert("a", At(1s));
  h.Insert("b2", At(2s));
  h.Insert("b1", At(2s));
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h.Pop().item, "a");
  EXPECT_EQ(h.Pop().item, "b2");  // same time: first inserted first
  EXPECT_EQ(h.Pop().item, "b1");
  EXPECT_EQ(h.Pop().item, "c");
  EXPECT_TRUE(h.empty());
}

TEST(WaitingHeapTest, ReinsertKeepsTheEarlierTime) {
  WaitingHeap<std::string> h;
  EXPECT_TRUE(h.Insert("a", At(10s)));
  EXPECT_TRUE(h.Insert("b", At(5s)));
  EXPECT_FALSE(h.Insert("a", At(20s)));  // later: ignored
  EXPECT_EQ(h.size(), 2u);
  EXPECT_TRUE(h.Insert("a", At(1s)));  // earlier: moves to the head
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.Top().item, "a");
  EXPECT_EQ(h.Top().ready_at, At(1s));
  EXPECT_EQ(h.Pop().item, "a");
  EXPECT_FALSE(h.Contains("a"));
  EXPECT_EQ(h.Pop().item, "b");
}

TEST(WaitingHeapTest, MatchesASortedModelUnderRandomOperations) {
  std::mt19937 rng(42);
  WaitingHeap<int> h;
  std::map<int, util::TimePoint> model;
  for (int step = 0; step < 20000; ++step) {
    if (rng() % 3 != 0 || model.empty()) {
      int item = static_cast<int>(rng() % 500);
      util::TimePoint t = At(std::chrono::milliseconds(rng() % 100000));
      h.Insert(item, t);
      auto [it, inserted] = model.emplace(item, t);
      if (!inserted) it->second = std::min(it->second, t);
    } else {
      auto best = std::min_element(model.begin(), model.end(), [](const auto& x, const auto& y) {
        return x.second < y.second;
      });
      auto e = h.Pop();
      ASSERT_EQ(e.ready_at, best->second);
      ASSERT_EQ(model.at(e.item), e.ready_at);
      model.erase(e.item);
    }
    ASSERT_EQ(h.size(), model.size());
  }
}

}  // namespace
}  // namespace ksched::workqueue
