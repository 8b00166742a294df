#include "pkg/scheduler/framework/node_memo.h"

#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(NodeMemoTest, AnswersOnlyUnderItsKey) {
  NodeMemo memo;
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 1), 0);
  memo.Set(NodeMemo::kNodeResourcesFit, 1, 0x85);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 1), 0x85);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 2), 0);
  // Slots are independent.
  EXPECT_EQ(memo.Get(NodeMemo::kBalancedAllocation, 1), 0);
  memo.Set(NodeMemo::kBalancedAllocation, NodeMemo::kMaxKey, 0xff);
  EXPECT_EQ(memo.Get(NodeMemo::kBalancedAllocation, NodeMemo::kMaxKey), 0xff);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 1), 0x85);
  // A new key replaces the slot's answer.
  memo.Set(NodeMemo::kNodeResourcesFit, 3, 0x01);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 1), 0);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 3), 0x01);

  NodeMemo copy = memo;
  EXPECT_EQ(copy.Get(NodeMemo::kNodeResourcesFit, 3), 0x01);
  memo.Clear();
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 3), 0);
  EXPECT_EQ(memo.Get(NodeMemo::kBalancedAllocation, NodeMemo::kMaxKey), 0);
  EXPECT_EQ(copy.Get(NodeMemo::kBalancedAllocation, NodeMemo::kMaxKey), 0xff);

  NodeMemoRef ref{NodeMemo::kNodeResourcesFit, 3};
  EXPECT_TRUE(ref.Answers(copy));
  EXPECT_FALSE(ref.Answers(memo));
  EXPECT_FALSE(NodeMemoRef{}.Answers(copy));  // key 0 answers nowhere
  EXPECT_EQ(ref.Read(copy), 0x01);
  ref.Write(memo, 0x42);
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 3), 0x42);
  NodeMemoRef{}.Write(memo, 0x43);  // key 0 stores nothing
  EXPECT_EQ(memo.Get(NodeMemo::kNodeResourcesFit, 3), 0x42);
  EXPECT_EQ(NodeMemoRef{}.Read(memo), 0);
}

TEST(NodeMemoKeysTest, OneKeyPerFingerprintNeverShared) {
  NodeMemoKeys keys;
  NodeMemoKeys other;
  const std::vector<int64_t> a = {1000, 2048};
  const std::vector<int64_t> b = {1000, 2049};
  const uint64_t ka = keys.KeyFor(a);
  const uint64_t kb = keys.KeyFor(b);
  EXPECT_NE(ka, 0u);
  EXPECT_NE(kb, 0u);
  EXPECT_NE(ka, kb);
  EXPECT_EQ(keys.KeyFor(a), ka);
  EXPECT_EQ(keys.KeyFor(b), kb);
  // Another instance (another plugin or profile) never gets these keys.
  const uint64_t other_a = other.KeyFor(a);
  EXPECT_NE(other_a, ka);
  EXPECT_NE(other_a, kb);
  // Prefixes are other fingerprints.
  EXPECT_NE(keys.KeyFor(std::vector<int64_t>{1000}), ka);
}

TEST(NodeMemoKeysTest, StartsAfreshWhenFullWithNewKeys) {
  NodeMemoKeys keys;
  const uint64_t first = keys.KeyFor(std::vector<int64_t>{-1});
  uint64_t last = first;
  for (int64_t i = 0; i < static_cast<int64_t>(NodeMemoKeys::kCapacity); ++i) {
    const uint64_t k = keys.KeyFor(std::vector<int64_t>{i});
    EXPECT_GT(k, last);
    last = k;
  }
  // Forgotten: a key never given before.
  const uint64_t again = keys.KeyFor(std::vector<int64_t>{-1});
  EXPECT_GT(again, last);
  EXPECT_EQ(keys.KeyFor(std::vector<int64_t>{-1}), again);
}

TEST(NodeMemoKeysTest, ThreadsAgreeOnAFingerprintsKey) {
  NodeMemoKeys keys;
  std::vector<uint64_t> seen(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&keys, &seen, t] {
      for (int64_t i = 0; i < 100; ++i) keys.KeyFor(std::vector<int64_t>{i, static_cast<int64_t>(t)});
      seen[t] = keys.KeyFor(std::vector<int64_t>{42});
    });
  }
  for (std::thread& th : threads) th.join();
  for (uint64_t k : seen) EXPECT_EQ(k, seen[0]);
}

}  // namespace
}  // namespace ksched::scheduler::framework
