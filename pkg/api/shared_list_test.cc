#include "pkg/api/shared_list.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "pkg/util/heap_in_use.h"

namespace ksched::api {
namespace {

using Strings = SharedList<std::string>;

TEST(SharedListTest, ReadsAsAVector) {
  Strings empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.begin(), empty.end());

  Strings list = {"a", "b"};
  const std::vector<std::string>& items = list;
  EXPECT_EQ(items, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(list[1], "b");
  EXPECT_EQ(list.at(0), "a");
  EXPECT_EQ(list.front(), "a");
  EXPECT_EQ(list.back(), "b");
  EXPECT_THROW((void)list.at(2), std::out_of_range);
  std::string joined;
  for (const std::string& s : list) joined += s;
  EXPECT_EQ(joined, "ab");
  EXPECT_EQ(list, (std::vector<std::string>{"a", "b"}));
}

TEST(SharedListTest, ACopySharesUntilOneIsWritten) {
  Strings a = {"x"};
  Strings b = a;
  EXPECT_TRUE(b.SharesWith(a));
  b.push_back("y");
  EXPECT_FALSE(b.SharesWith(a));
  EXPECT_EQ(a, (std::vector<std::string>{"x"}));
  EXPECT_EQ(b, (std::vector<std::string>{"x", "y"}));
  b.Mutable()[0] = "z";
  EXPECT_EQ(a[0], "x");
  EXPECT_EQ(b[0], "z");
}

TEST(SharedListTest, ASoleOwnerWritesInPlace) {
  Strings a = {"x"};
  const std::string* first = &a[0];
  a.Mutable()[0] = "y";
  EXPECT_EQ(&a[0], first);
  a.emplace_back("z");
  Strings b = a;
  EXPECT_TRUE(b.SharesWith(a));
  EXPECT_EQ(a[0], "y");
  a.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b.size(), 2u);
}

TEST(SharedListTest, EqualListsInternToOneCopy) {
  Strings a = Strings::Interned(7, {"p", "q"});
  Strings b = Strings::Interned(7, {"p", "q"});
  EXPECT_TRUE(a.SharesWith(b));
  // The hash only narrows the search: unequal lists stay apart even when
  // their hashes collide.
  Strings c = Strings::Interned(7, {"p", "r"});
  EXPECT_FALSE(c.SharesWith(a));
  EXPECT_EQ(c[1], "r");
  EXPECT_TRUE(Strings::Interned(7, {}).empty());
}

TEST(SharedListTest, WritingAnInternedListLeavesTheInternedOneAlone) {
  Strings a = Strings::Interned(11, {"v1"});
  // `a` holds the only reference, but the table can still hand the list out.
  a.Mutable()[0] = "v2";
  Strings b = Strings::Interned(11, {"v1"});
  EXPECT_EQ(b[0], "v1");
  EXPECT_EQ(a[0], "v2");
  EXPECT_FALSE(a.SharesWith(b));
}

TEST(SharedListTest, AListNoObjectHoldsIsNotKept) {
  Strings a = Strings::Interned(13, {"gone"});
  a = Strings();
  Strings b = Strings::Interned(13, {"gone"});
  EXPECT_EQ(b[0], "gone");
}

TEST(SharedListTest, TheTableForgetsDroppedLists) {
  if (!util::kHeapBytesCounted) GTEST_SKIP() << "malloc is not glibc's under a sanitizer";
  auto intern_and_drop = [](int from, int count) {
    for (int i = from; i < from + count; ++i) {
      Strings::Interned(static_cast<size_t>(i), {std::to_string(i) + " a string past the small-string buffer"});
    }
  };
  intern_and_drop(0, 1000);  // the table's buckets reach their working size
  const size_t before = util::HeapBytesInUse();
  intern_and_drop(1000, 20000);
  const auto grown = static_cast<int64_t>(util::HeapBytesInUse()) - static_cast<int64_t>(before);
  // Kept entries would cost about 100 bytes each (2 MB); swept ones nothing.
  EXPECT_LT(grown, 200'000) << "expired entries are kept";
}

TEST(SharedListTest, ConcurrentInterningYieldsOneList) {
  constexpr int kThreads = 4;
  std::vector<Strings> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&got, t] {
      for (int i = 0; i < 200; ++i) got[t] = Strings::Interned(17, {"same", "list"});
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_TRUE(got[t].SharesWith(got[0]));
}

}  // namespace
}  // namespace ksched::api
