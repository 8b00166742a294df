#include "pkg/util/short_string_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace ksched::util {
namespace {

TEST(ShortStringHashTest, EqualStringsHashEqualWhereverTheyLie) {
  const std::string a = "xx" + std::string("kubernetes.io/hostname");
  const std::string b = "kubernetes.io/hostname";
  EXPECT_EQ(ShortStringHash(std::string_view(a).substr(2)), ShortStringHash(b));
}

// Every length up to 40, each byte position, and the prefixes of one string
// (the tail reads overlap): all distinct, in both halves of the hash.
TEST(ShortStringHashTest, StringsThatDifferAnywhereHashApart) {
  std::unordered_set<uint64_t> full;
  std::unordered_set<uint32_t> high;
  std::vector<std::string> inputs;
  const std::string base = "node-0123456789-abcdefghijklmnopqrstuvw";
  for (size_t len = 0; len <= base.size(); ++len) {
    inputs.push_back(base.substr(0, len));
    for (size_t i = 0; i < len; ++i) {
      std::string changed = base.substr(0, len);
      changed[i] ^= 1;
      inputs.push_back(changed);
    }
  }
  for (const std::string& s : inputs) {
    full.insert(ShortStringHash(s));
    high.insert(static_cast<uint32_t>(ShortStringHash(s) >> 32));
  }
  EXPECT_EQ(full.size(), inputs.size());
  EXPECT_EQ(high.size(), inputs.size());
}

// Node names numbered in sequence fill the buckets of a power-of-two table
// evenly through the hash's low bits: no bucket gets more than twice its
// share.
TEST(ShortStringHashTest, SequentialNamesSpreadOverTheLowBits) {
  constexpr size_t kBuckets = 1024;
  constexpr size_t kNames = 64 * kBuckets;
  std::vector<size_t> counts(kBuckets);
  std::unordered_set<uint64_t> distinct;
  for (size_t i = 0; i < kNames; ++i) {
    const std::string name = "scheduler-perf-node-" + std::to_string(i);
    const uint64_t h = ShortStringHash(name);
    ++counts[h & (kBuckets - 1)];
    distinct.insert(h);
  }
  EXPECT_EQ(distinct.size(), kNames);
  for (size_t b = 0; b < kBuckets; ++b) EXPECT_LT(counts[b], 2 * kNames / kBuckets) << b;
}

}  // namespace
}  // namespace ksched::util
