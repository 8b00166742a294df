#include "pkg/scheduler/plugins/interpodaffinity/pair_counts.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

TEST(PairIndexTest, InternFindAndCopy) {
  PairIndex idx;
  EXPECT_EQ(idx.Find("zone", "z1"), -1);
  EXPECT_EQ(idx.Intern("zone", "z1"), 0);
  EXPECT_EQ(idx.Intern("host", "a"), 1);
  EXPECT_EQ(idx.Intern("zone", "z2"), 2);
  EXPECT_EQ(idx.Intern("zone", "z1"), 0);
  EXPECT_EQ(idx.Find("zone", "z2"), 2);
  EXPECT_EQ(idx.Find("host", "z2"), -1);
  EXPECT_EQ(idx.num_keys(), 2u);
  EXPECT_EQ(idx.key(1), "host");
  EXPECT_EQ(idx.value(2), "z2");
  PairIndex copy(idx);
  EXPECT_EQ(copy.Intern("host", "b"), 3);
  EXPECT_EQ(copy.value(0), "z1");
  EXPECT_EQ(copy.key(3), "host");
  EXPECT_EQ(idx.size(), 3);
  EXPECT_EQ(idx.Find("host", "b"), -1);
  // Many keys and values: pointers stay valid as the index grows.
  for (int k = 0; k < 20; ++k) {
    for (int v = 0; v < 50; ++v) copy.Intern("k" + std::to_string(k), "v" + std::to_string(v));
  }
  EXPECT_EQ(copy.value(copy.Find("k7", "v33")), "v33");
  EXPECT_EQ(copy.key(copy.Find("k7", "v33")), "k7");
  EXPECT_EQ(copy.value(0), "z1");
}

TEST(PairCountsTest, CountsAndNodeLookups) {
  auto idx = std::make_shared<PairIndex>();
  idx->Intern("zone", "z1");
  idx->Intern("zone", "z2");
  idx->Intern("host", "a");
  PairCounts c(idx, {3, 0, -1});
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.Get("zone", "z1"), 3);
  EXPECT_EQ(c.Get("zone", "z9"), 0);
  EXPECT_EQ(c.SumForNode({{"zone", "z1"}, {"host", "a"}}), 2);
  EXPECT_EQ(c.SumForNode({{"zone", "z2"}}), 0);
  EXPECT_EQ(c.SumForNode({}), 0);
  EXPECT_EQ(c.index().num_keys(), 2u);

  // Add: existing pair, new pair (private index copy), back to zero.
  PairCounts d = c;
  d.Add("zone", "z2", 1);
  d.Add("rack", "r1", 2);
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d.Get("rack", "r1"), 2);
  EXPECT_EQ(idx->Find("rack", "r1"), -1) << "the shared index is untouched";
  EXPECT_EQ(c.Get("zone", "z2"), 0) << "the source is untouched";
  d.Add("zone", "z1", -3);
  d.Add("host", "a", 1);
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(d.Entries(), (std::map<std::pair<std::string, std::string>, int64_t>{{{"rack", "r1"}, 2},
                                                                                  {{"zone", "z2"}, 1}}));
  PairCounts empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.SumForNode({{"zone", "z1"}}), 0);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
