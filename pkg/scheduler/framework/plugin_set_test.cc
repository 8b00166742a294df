#include "pkg/scheduler/framework/plugin_set.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::framework {
namespace {

TEST(PluginSetTest, InsertIsSortedAndUnique) {
  PluginSet s;
  s.Insert("b");
  s.Insert("a");
  s.Insert("b");
  EXPECT_EQ(s.names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(s.Has("a"));
  EXPECT_FALSE(s.Has("c"));
  s.Erase("a");
  EXPECT_EQ(s.size(), 1u);
  s.Clear();
  EXPECT_TRUE(s.empty());
}

TEST(PluginSetTest, HasMatchesWholeNamesOnly) {
  const PluginSet s{"NodeAffinity", "NodeResourcesFit", "TaintToleration"};
  for (std::string_view name : s) EXPECT_TRUE(s.Has(name)) << name;
  EXPECT_FALSE(s.Has("NodeResourcesFi"));
  EXPECT_FALSE(s.Has("NodeResourcesFitX"));
  EXPECT_FALSE(s.Has("NodeResourcesFiT"));
  EXPECT_FALSE(s.Has(""));
  EXPECT_FALSE(PluginSet().Has("NodeAffinity"));
}

TEST(PluginSetTest, Union) {
  PluginSet a{"x", "z"};
  PluginSet b{"y", "z"};
  EXPECT_EQ(a.Union(b), (PluginSet{"x", "y", "z"}));
  EXPECT_EQ(PluginSet().Union(b), b);
}

TEST(PluginSetTest, CopiesShareNamesUntilOneChanges) {
  const PluginSet original{"a", "c"};
  PluginSet copy = original;
  EXPECT_EQ(&copy.names(), &original.names());
  copy.Insert("b");
  copy.Erase("a");
  EXPECT_EQ(original.names(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(copy.names(), (std::vector<std::string>{"b", "c"}));
  PluginSet cleared = original;
  cleared.Clear();
  EXPECT_TRUE(cleared.empty());
  EXPECT_EQ(original.size(), 2u);
  // Nothing to change: still shared.
  PluginSet same = original;
  same.Insert("a");
  same.Erase("x");
  EXPECT_EQ(&same.names(), &original.names());
  EXPECT_EQ(original.Union(PluginSet()), original);
}

}  // namespace
}  // namespace ksched::scheduler::framework
