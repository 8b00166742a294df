#include "pkg/api/shared_map.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace ksched::api {
namespace {

using Map = SharedMap<std::string, std::string>;

TEST(SharedMapTest, ReadsAsAMap) {
  Map empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.find("a"), empty.end());
  EXPECT_THROW((void)empty.at("a"), std::out_of_range);

  Map m = {{"b", "2"}, {"a", "1"}};
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.begin()->first, "a");  // key order, as std::map
  EXPECT_EQ(m.at("b"), "2");
  EXPECT_TRUE(m.contains("a"));
  EXPECT_EQ(m.count("c"), 0u);
  const std::map<std::string, std::string>& as_map = m;
  EXPECT_EQ(as_map.size(), 2u);
}

TEST(SharedMapTest, ACopySharesUntilOneIsWritten) {
  Map a = {{"app", "web"}};
  Map b = a;
  EXPECT_TRUE(b.SharesWith(a));
  EXPECT_EQ(b.erase("absent"), 0u);  // nothing to erase: still shared
  EXPECT_TRUE(b.SharesWith(a));
  b["app"] = "db";
  EXPECT_FALSE(b.SharesWith(a));
  EXPECT_EQ(a.at("app"), "web");
  EXPECT_EQ(b.at("app"), "db");
  Map c = {{"app", "web"}};
  EXPECT_TRUE(c == a);
  EXPECT_FALSE(c == b);
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(SharedMapTest, EqualInternedMapsAreOneAndWritingOneCopiesIt) {
  Map a = Map::Interned(7, {{"app", "web"}});
  Map b = Map::Interned(7, {{"app", "web"}});
  Map other = Map::Interned(7, {{"app", "db"}});  // same hash, other value
  EXPECT_TRUE(a.SharesWith(b));
  EXPECT_FALSE(a.SharesWith(other));
  EXPECT_TRUE(Map::Interned(7, {}).empty());
  // An interned map is copied before a write even by its only holder.
  Map sole = Map::Interned(8, {{"k", "v"}});
  Map again = Map::Interned(8, {{"k", "v"}});
  sole.emplace("k2", "v2");
  EXPECT_EQ(again.size(), 1u);
  EXPECT_EQ(sole.size(), 2u);
}

}  // namespace
}  // namespace ksched::api
