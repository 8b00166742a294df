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

// What only the scheduling cycle reads.
struct FilterOnly final : StateData {
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<FilterOnly>(); }
  bool ReadAfterSchedulingCycle() const override { return false; }
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


struct SubCounter final : StateData {
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<SubCounter>(); }
};
struct Base : StateData {
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<Base>(); }
  int base_value = 3;
};
struct Derived final : Base {
  std::shared_ptr<StateData> Clone() const override { return std::make_shared<Derived>(); }
};

TEST(StateKeyTest, SameNameSameSlotDifferentNamesDifferentSlots) {
  StateKey a("state-key-test/a");
  StateKey a2("state-key-test/a");
  StateKey b("state-key-test/b");
  EXPECT_EQ(a.slot(), a2.slot());
  EXPECT_NE(a.slot(), b.slot());
  EXPECT_EQ(a.name(), "state-key-test/a");
  ASSERT_TRUE(StateKey::Find("state-key-test/b").has_value());
  EXPECT_EQ(*StateKey::Find("state-key-test/b"), b.slot());
  EXPECT_FALSE(StateKey::Find("state-key-test/never-interned").has_value());
}

TEST(CycleStateTest, KeyAndStringAccessSeeTheSameValue) {
  StateKey key("state-key-test/shared");
  CycleState state;
  state.Write(key, std::make_shared<Counter>(1));
  ASSERT_NE(state.Get<Counter>("state-key-test/shared"), nullptr);
  EXPECT_EQ(state.Get<Counter>("state-key-test/shared")->value, 1);
  state.Write("state-key-test/shared", std::make_shared<Counter>(2));
  ASSERT_NE(state.Lookup<Counter>(key), nullptr);
  EXPECT_EQ(state.Lookup<Counter>(key)->value, 2);
  EXPECT_EQ(state.Get<Counter>(key)->value, 2);
  ASSERT_TRUE(state.Read(key).ok());
  state.Delete("state-key-test/shared");
  EXPECT_EQ(state.Lookup<Counter>(key), nullptr);
  EXPECT_FALSE(state.Read(key).ok());
  // Deleting or reading a name nobody interned is harmless.
  state.Delete("state-key-test/unknown-delete");
  EXPECT_FALSE(state.Read("state-key-test/unknown-read").ok());
}

TEST(CycleStateTest, LookupChecksTheType) {
  StateKey key("state-key-test/typed");
  CycleState state;
  EXPECT_EQ(state.Lookup<Counter>(key), nullptr);  // absent
  state.Write(key, std::make_shared<Counter>(4));
  EXPECT_EQ(state.Lookup<Other>(key), nullptr);       // another type
  EXPECT_EQ(state.Lookup<SubCounter>(key), nullptr);  // another type
  ASSERT_NE(state.Lookup<Counter>(key), nullptr);
  state.Write(key, std::make_shared<Derived>());
  // A subclass is found through its base, as with Get.
  ASSERT_NE(state.Lookup<Base>(key), nullptr);
  EXPECT_EQ(state.Lookup<Base>(key)->base_value, 3);
  EXPECT_NE(state.Lookup<Derived>(key), nullptr);
  EXPECT_EQ(state.Lookup<Counter>(key), nullptr);
  state.Write(key, nullptr);
  EXPECT_EQ(state.Lookup<Base>(key), nullptr);
  EXPECT_FALSE(state.Read(key).ok());
}

TEST(CycleStateTest, LookedUpPointerOutlivesOverwriteAndDelete) {
  StateKey key("state-key-test/retired");
  CycleState state;
  auto first = std::make_shared<Counter>(1);
  std::weak_ptr<Counter> watch = first;
  state.Write(key, std::move(first));
  Counter* raw = state.Lookup<Counter>(key);
  ASSERT_NE(raw, nullptr);
  state.Write(key, std::make_shared<Counter>(2));
  state.Delete(key);
  // Still owned by the state, so a reader that looked it up may use it.
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(raw->value, 1);
  EXPECT_EQ(state.Lookup<Counter>(key), nullptr);
}

TEST(CycleStateTest, ReleaseSchedulingCycleOnlyFreesWhatTheBindingCycleDoesNotRead) {
  StateKey kept("state-key-test/kept");
  StateKey released("state-key-test/released");
  StateKey replaced("state-key-test/replaced");
  CycleState state;
  state.Write(kept, std::make_shared<Counter>(1));
  auto filter_only = std::make_shared<FilterOnly>();
  std::weak_ptr<FilterOnly> watch_live = filter_only;
  state.Write(released, std::move(filter_only));
  auto retired = std::make_shared<FilterOnly>();
  std::weak_ptr<FilterOnly> watch_retired = retired;
  state.Write(replaced, std::move(retired));
  state.Write(replaced, std::make_shared<Counter>(2));  // retires the FilterOnly
  ASSERT_FALSE(watch_retired.expired());

  state.ReleaseSchedulingCycleOnly();
  EXPECT_TRUE(watch_live.expired());
  EXPECT_TRUE(watch_retired.expired());
  EXPECT_EQ(state.Lookup<FilterOnly>(released), nullptr);
  EXPECT_FALSE(state.Read(released).ok());
  ASSERT_NE(state.Lookup<Counter>(kept), nullptr);
  EXPECT_EQ(state.Lookup<Counter>(kept)->value, 1);
  ASSERT_NE(state.Lookup<Counter>(replaced), nullptr);
  EXPECT_EQ(state.Lookup<Counter>(replaced)->value, 2);
  // The slot works as before.
  state.Write(released, std::make_shared<FilterOnly>());
  EXPECT_NE(state.Lookup<FilterOnly>(released), nullptr);
}

TEST(CycleStateTest, SlotsBeyondTheInlineOnesWork) {
  // Intern more keys than the inline slots so that some land above them.
  std::vector<StateKey> keys;
  for (uint32_t i = 0; i < CycleState::kInlineSlots + 8; ++i) {
    keys.emplace_back("state-key-test/many-" + std::to_string(i));
  }
  ASSERT_GE(keys.back().slot(), CycleState::kInlineSlots);
  CycleState state;
  for (size_t i = 0; i < keys.size(); ++i) state.Write(keys[i], std::make_shared<Counter>(static_cast<int>(i)));
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_NE(state.Lookup<Counter>(keys[i]), nullptr) << i;
    EXPECT_EQ(state.Lookup<Counter>(keys[i])->value, static_cast<int>(i));
  }
  std::unique_ptr<CycleState> clone = state.Clone();
  clone->Lookup<Counter>(keys.back())->value = -1;
  EXPECT_EQ(state.Lookup<Counter>(keys.back())->value, static_cast<int>(keys.size() - 1));
  EXPECT_EQ(clone->Lookup<Counter>(keys.front())->value, 0);
  state.Delete(keys.back());
  EXPECT_EQ(state.Lookup<Counter>(keys.back()), nullptr);
  EXPECT_NE(clone->Lookup<Counter>(keys.back()), nullptr);
}

TEST(CycleStateTest, SkipFilterMaskBelongsToItsOwnerAndFollowsTheNames) {
  int owner_a = 0;
  int owner_b = 0;
  CycleState state;
  EXPECT_FALSE(state.SkipFilterMask(&owner_a).has_value());
  state.SetSkipFilterPlugins(PluginSet{"A"});
  state.SetSkipFilterMask(&owner_a, 0b101);
  ASSERT_TRUE(state.SkipFilterMask(&owner_a).has_value());
  EXPECT_EQ(*state.SkipFilterMask(&owner_a), 0b101u);
  EXPECT_FALSE(state.SkipFilterMask(&owner_b).has_value());
  EXPECT_FALSE(state.SkipFilterMask(nullptr).has_value());
  std::unique_ptr<CycleState> clone = state.Clone();
  ASSERT_TRUE(clone->SkipFilterMask(&owner_a).has_value());
  EXPECT_EQ(*clone->SkipFilterMask(&owner_a), 0b101u);
  // New names invalidate the mask: it could no longer match them.
  state.SetSkipFilterPlugins(PluginSet{"B"});
  EXPECT_FALSE(state.SkipFilterMask(&owner_a).has_value());
}

TEST(CycleStateTest, ConcurrentLookupsWhileWriting) {
  StateKey key("state-key-test/concurrent");
  CycleState state;
  state.Write(key, std::make_shared<Counter>(0));
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        Counter* c = state.Lookup<Counter>(key);
        // Values only grow, and a looked-up value stays readable.
        if (c == nullptr || c->value < 0) bad.fetch_add(1);
      }
    });
  }
  for (int i = 1; i <= 500; ++i) state.Write(key, std::make_shared<Counter>(i));
  stop.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(state.Lookup<Counter>(key)->value, 500);
}

}  // namespace
}  // namespace ksched::scheduler::framework
