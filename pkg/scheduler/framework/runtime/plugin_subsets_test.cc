#include "pkg/scheduler/framework/runtime/plugin_subsets.h"

#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <thread>
#include <vector>

namespace ksched::scheduler::framework::runtime {
namespace {

TEST(PluginSubsetsTest, NamesThePositionsOfTheSetBitsOnceAndSharesThem) {
  const PluginSubsets subsets({"Zeta", "Alpha", "Mid"});
  EXPECT_TRUE(subsets.Of(0).empty());
  const PluginSet first = subsets.Of(0b101);
  EXPECT_EQ(first, (PluginSet{"Zeta", "Mid"}));
  const PluginSet again = subsets.Of(0b101);
  EXPECT_EQ(&again.names(), &first.names());  // built once
  EXPECT_EQ(subsets.Of(0b010), PluginSet{"Alpha"});
  // A copy that changes leaves the shared subset as it was.
  PluginSet changed = subsets.Of(0b101);
  changed.Insert("Extra");
  EXPECT_EQ(subsets.Of(0b101), (PluginSet{"Zeta", "Mid"}));
  // Bits past the list name nothing.
  EXPECT_EQ(subsets.Of(0b1001), PluginSet{"Zeta"});
}

TEST(PluginSubsetsTest, SkippedPluginsPast64AreNamedByThemselves) {
  std::vector<std::string> names;
  for (int i = 0; i < 70; ++i) names.push_back("P" + std::to_string(i));
  const PluginSubsets subsets(names);
  SkippedPlugins skipped;
  skipped.Add(3, names[3]);
  skipped.Add(66, names[66]);
  EXPECT_EQ(skipped.bits(), uint64_t{1} << 3);
  EXPECT_EQ(skipped.beyond(), PluginSet{"P66"});
  EXPECT_EQ(skipped.Set(subsets), (PluginSet{"P3", "P66"}));
  EXPECT_TRUE(SkippedPlugins().Set(subsets).empty());
}

TEST(PluginSubsetsTest, ThreadsAgreeOnEverySubset) {
  const PluginSubsets subsets({"A", "B", "C", "D"});
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t bits = 0; bits < 16; ++bits) {
        PluginSet set = subsets.Of(bits);
        if (set.size() != static_cast<size_t>(std::popcount(bits))) ++wrong[t];
        set.Insert("E");  // a writer of its own copy
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace ksched::scheduler::framework::runtime
