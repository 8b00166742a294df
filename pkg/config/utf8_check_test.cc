#include "pkg/config/utf8_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::config {
namespace {

TEST(Utf8CheckTest, AcceptsWellFormedUtf8) {
  for (const std::string& s : std::vector<std::string>{"", "plain ascii", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                              "\xed\x9f\xbf", "\xee\x80\x80", "\xf4\x8f\xbf\xbf", std::string("nul\0in", 6)}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
  }
}

TEST(Utf8CheckTest, RejectsWhatNlohmannRejects) {
  for (const std::string& s : std::vector<std::string>{"\xff", "\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80",
                              "\xf0\x80\x80\xaf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xc3", "ab\xe2\x82",
                              "\xe2\x28\xa1"}) {
    EXPECT_FALSE(IsValidUtf8(s)) << testing::PrintToString(s);
  }
}

TEST(Utf8CheckTest, FindsTheFirstBadKeyOrScalarOnce) {
  YAML::Node doc = YAML::Load("a: ok\nb:\n  - fine\n  - \"x\xffy\"\nk\xfe: 1\n");
  std::optional<YAML::Mark> bad = FindInvalidUtf8(doc);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->line, 3);
  EXPECT_EQ(bad->column, 4);
  EXPECT_FALSE(FindInvalidUtf8(YAML::Load("a: [1, {b: c}]\n")).has_value());

  // Aliases repeat a node many times over; it is checked once.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'z'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    laughs += "]\n";
  }
  EXPECT_FALSE(FindInvalidUtf8(YAML::Load(laughs)).has_value());
}

}  // namespace
}  // namespace ksched::config
