#include "pkg/scheduler/plugins/podtopologyspread/node_slots.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

std::vector<std::unique_ptr<framework::NodeInfo>> MakeInfos(size_t n) {
  std::vector<std::unique_ptr<framework::NodeInfo>> out;
  for (size_t i = 0; i < n; ++i) out.push_back(std::make_unique<framework::NodeInfo>());
  return out;
}

TEST(NodeSlotsTest, EmptyFindsNothing) {
  NodeSlots slots(2);
  framework::NodeInfo ni;
  EXPECT_EQ(slots.Find(&ni), -1);
  slots.Rebuild();
  EXPECT_EQ(slots.Find(&ni), -1);
  EXPECT_EQ(slots.num_slots(), 0u);
}

TEST(NodeSlotsTest, FindsEveryNodeAtItsSlot) {
  auto infos = MakeInfos(5000);
  NodeSlots slots(1);
  slots.Resize(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) slots.SetNode(i, infos[i].get());
  EXPECT_EQ(slots.Find(infos[0].get()), -1) << "not visible before Rebuild";
  slots.Rebuild();
  for (size_t i = 0; i < infos.size(); ++i) ASSERT_EQ(slots.Find(infos[i].get()), static_cast<int32_t>(i));
  auto others = MakeInfos(100);
  for (const auto& ni : others) EXPECT_EQ(slots.Find(ni.get()), -1);
}

TEST(NodeSlotsTest, FindAfterAnyHint) {
  auto infos = MakeInfos(10);
  NodeSlots slots(1);
  slots.Resize(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) slots.SetNode(i, infos[i].get());
  slots.Rebuild();
  framework::NodeInfo stranger;
  // Right guesses (including the wrap from the last slot to the first),
  // wrong ones, and hints out of range all find the same slot.
  for (int32_t hint : {-1, 0, 3, 8, 9, 10, 1000}) {
    SCOPED_TRACE(hint);
    for (size_t i = 0; i < infos.size(); ++i) EXPECT_EQ(slots.FindAfter(infos[i].get(), hint), static_cast<int32_t>(i));
    EXPECT_EQ(slots.FindAfter(&stranger, hint), -1);
  }
  NodeSlots empty(1);
  EXPECT_EQ(empty.FindAfter(infos[0].get(), -1), -1);
  EXPECT_EQ(empty.FindAfter(infos[0].get(), 5), -1);
}

TEST(NodeSlotsTest, ValuesDefaultToNoValueAndAreKeptPerConstraint) {
  auto infos = MakeInfos(3);
  NodeSlots slots(2);
  slots.Resize(3);
  EXPECT_EQ(slots.value(2, 1), NodeSlots::kNoValue);
  slots.SetValue(1, 0, 7);
  slots.SetValue(1, 1, NodeSlots::kNotInterned);
  EXPECT_EQ(slots.value(1, 0), 7);
  EXPECT_EQ(slots.value(1, 1), NodeSlots::kNotInterned);
  EXPECT_EQ(slots.value(0, 0), NodeSlots::kNoValue);
  // Shrinking drops the last slots; growing adds empty ones.
  slots.Resize(2);
  slots.Resize(4);
  EXPECT_EQ(slots.value(3, 0), NodeSlots::kNoValue);
  EXPECT_EQ(slots.value(1, 0), 7);
}

TEST(NodeSlotsTest, MovedAndDuplicatedNodes) {
  auto infos = MakeInfos(4);
  NodeSlots slots(1);
  slots.Resize(3);
  for (size_t i = 0; i < 3; ++i) slots.SetNode(i, infos[i].get());
  slots.Rebuild();
  // Slot 1 now holds another NodeInfo; slot 2 repeats slot 0's.
  slots.SetNode(1, infos[3].get());
  slots.SetNode(2, infos[0].get());
  slots.Rebuild();
  EXPECT_EQ(slots.Find(infos[1].get()), -1);
  EXPECT_EQ(slots.Find(infos[3].get()), 1);
  EXPECT_EQ(slots.Find(infos[0].get()), 0) << "the first slot wins";
  EXPECT_EQ(slots.Find(infos[2].get()), -1);
}

TEST(NodeSlotsTest, CopiesAreIndependent) {
  auto infos = MakeInfos(2);
  NodeSlots slots(1);
  slots.Resize(2);
  slots.SetNode(0, infos[0].get());
  slots.SetValue(0, 0, 3);
  slots.Rebuild();
  NodeSlots copy(slots);
  copy.SetNode(1, infos[1].get());
  copy.SetValue(0, 0, 4);
  copy.Rebuild();
  EXPECT_EQ(copy.Find(infos[1].get()), 1);
  EXPECT_EQ(slots.Find(infos[1].get()), -1);
  EXPECT_EQ(slots.value(0, 0), 3);
  EXPECT_EQ(copy.value(0, 0), 4);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
