// Counted repetitions in Regex: which nestings compile, as Go 1.26's
// regexp.Compile answers for the same patterns.
#include <gtest/gtest.h>

#include <utility>

#include "pkg/cel/regex.h"

namespace ksched::cel {
namespace {

TEST(RegexRepeatTest, NestedCountsLikeGo) {
  const std::pair<const char*, bool> cases[] = {
      {"(a{1000}){50}", false},   {"(a{100}){20}", false},       {"(a{10}){100}", true},
      {"(a{10}){100}*", false},   {"(a{100}){10}", true},        {"(a{1000})*", true},
      {"(a{1000})+", true},       {"(a{1000})?", true},          {"(a{1000}){0,1}", true},
      {"(a{1000}){0}", true},     {"((a{2}){0}){1000}", true},   {"(a*){1000}", true},
      {"(a+){1000}", true},       {"(a{2,}){500}", true},        {"(a{2,}){501}", false},
      {"(a{0,2}){501}", false},   {"(a|b{2}){501}", false},      {"(\\p{L}{10}){100}", true},
      {"(\\Qab\\E{10}){100}", true}, {"(\\Qab\\E{10}){101}", false},
  };
  for (const auto& [pattern, ok] : cases) {
    auto re = Regex::Compile(pattern);
    EXPECT_EQ(re.ok(), ok) << pattern << ": " << re.status().message();
    if (!ok && !re.ok()) {
      // "invalid repeat count", or for a count followed by * "invalid nested
      // repetition operator", as Go says.
      EXPECT_NE(re.status().message().find("invalid "), std::string::npos) << pattern;
    }
  }
}

}  // namespace
}  // namespace ksched::cel
