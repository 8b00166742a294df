#include "pkg/scheduler/framework/cycle_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::framework {
namespace {

struct Counter final : StateData {
  explicit Counter(int v) : value(v) {}
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<Counter>(value); }
  int value;
};

struct Other final : StateData {
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<Other>(); }
};

TEST(CycleStateTest, ReadWriteDelete) {
  CycleState state;
  util::StatusOr<std::shared_ptr<StateData>> missing = state.Read("k");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), util::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "not found");

  state.Write("k", std::make_shared<Counter>(1));
  ASSERT_TRUE(state.Read("k").ok());
  ASSERT_NE(state.Get<Counter>("k"), nullptr);
  EXPECT_EQ(state.Get<Counter>("k")->value, 1);
  EXPECT_EQ(state.Get<Other>("k"), nullptr);  // wrong type

  state.Write("k", std::make_shared<Counter>(2));  // overwrite
  EXPECT_EQ(state.Get<Counter>("k")->value, 2);
  state.Delete("k");
  EXPECT_EQ(state.Get<Counter>("k"), nullptr);
}

TEST(CycleStateTest, CloneIsDeep) {
  CycleState state;
  state.Write("k", std::make_shared<Counter>(1));
  state.SetSkipFilterPlugins(PluginSet{"A"});
  state.SetSkipScorePlugins(PluginSet{"B"});
  state.SetRecordPluginMetrics(true);

  std::unique_ptr<CycleState> clone = state.Clone();
  clone->Get<Counter>("k")->value = 42;
  clone->Write("new", std::make_shared<Counter>(7));
  EXPECT_EQ(state.Get<Counter>("k")->value, 1);
  EXPECT_EQ(state.Get<Counter>("new"), nullptr);
  EXPECT_TRUE(clone->SkipFilterPlugins().Has("A"));
  EXPECT_TRUE(clone->SkipScorePlugins().Has("B"));
  EXPECT_TRUE(clone->ShouldRecordPluginMetrics());
}

TEST(CycleStateTest, PodsToActivateIsSharedByClones) {
  CycleState state;
  auto pta = std::make_shared<PodsToActivate>();
  state.Write(kPodsToActivateKey, pta);
  std::unique_ptr<CycleState> clone = state.Clone();
  clone->Get<PodsToActivate>(kPodsToActivateKey)->Add(testing::MakePod("b", "ns").Obj());
  clone->Get<PodsToActivate>(kPodsToActivateKey)->Add(testing::MakePod("a", "ns").Obj());
  clone->Get<PodsToActivate>(kPodsToActivateKey)->Add(testing::MakePod("a", "ns").Obj());  // same key
  EXPECT_EQ(pta->size(), 2u);
  std::vector<std::shared_ptr<const api::Pod>> pods = pta->TakeAll();
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0]->metadata.name, "a");
  EXPECT_EQ(pods[1]->metadata.name, "b");
  EXPECT_EQ(pta->size(), 0u);
}

TEST(CycleStateTest, ConcurrentReadersAndWriter) {
  CycleState state;
  state.Write("shared", std::make_shared<Counter>(5));
  std::atomic<int> found{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (auto c = state.Get<Counter>("shared"); c && c->value == 5) found.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 2000; ++i) state.Write("k" + std::to_string(i % 10), std::make_shared<Counter>(i));
  for (auto& t : readers) t.join();
  EXPECT_EQ(found.load(), 4 * 2000);
}

}  // namespace
}  // namespace ksched::scheduler::framework
