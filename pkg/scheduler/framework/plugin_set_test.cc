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

}  // namespace
}  // namespace ksched::scheduler::framework
