// Unicode classes and (?i) in Regex: the answers here are Go 1.26's
// regexp.MatchString and regexp.Compile on the same patterns (unicode.Version
// 15.0.0, the tables of unicode_tables.cc).
#include <gtest/gtest.h>

#include <string>

#include "pkg/cel/regex.h"
#include "pkg/cel/unicode_tables.h"

namespace ksched::cel {
namespace {

struct MatchCase {
  const char* pattern;
  const char* text;
  bool want;
};

TEST(RegexUnicodeTest, MatchesLikeGo) {
  const MatchCase cases[] = {
      {"^\\p{L}+$", "héllo", true},
      {"^\\pL+$", "héllo1", false},
      {"^\\p{Greek}+$", "αβγ", true},
      {"^\\p{Greek}+$", "αβc", false},
      {"^\\P{Greek}+$", "abc", true},
      {"^\\P{Greek}$", "α", false},
      {"^\\p{^Greek}$", "α", false},
      {"^\\P{^Greek}$", "α", true},
      {"^[\\p{Lu}]+$", "ÀB", true},
      {"^[\\p{Lu}]+$", "Àb", false},
      {"^[^\\p{Lu}]+$", "àb", true},
      {"^[\\P{Lu}\\d]+$", "à1", true},
      {"^\\p{greek}$", "α", true},
      {"^\\p{Cased_Letter}$", "a", true},
      {"^\\p{cased-letter}$", "a", true},
      {"^\\p{ L }$", "a", true},
      {"^\\p{Any}$", "\U0010ffff", true},
      {"^\\p{Assigned}$", "\u0378", false},
      {"^\\p{Assigned}$", "a", true},
      {"^\\p{ASCII}$", "\x7f", true},
      {"^\\p{ascii}$", "é", false},
      {"^\\p{Nd}+$", "٣3", true},
      {"^\\p{N}$", "½", true},
      {"^\\p{Han}+$", "日本", true},
      {"^\\p{Zs}$", "\u3000", true},
      {"(?i)^é$", "É", true},
      {"(?i)^σ$", "ς", true},
      {"(?i)^Σ$", "ς", true},
      {"(?i)^ǅ$", "ǆ", true},
      {"(?i)^ǅ$", "Ǆ", true},
      {"(?i)^k$", "\u212a", true},
      {"(?i)^\\x{212a}$", "k", true},
      {"(?i)^[à-ä]+$", "ÀÄ", true},
      {"(?i)^[^é]$", "É", false},
      {"(?i)^\\p{Lu}$", "a", true},
      {"(?i)^\\p{Lu}$", "\u0345", true},
      {"(?i)^\\p{L}$", "\u0345", true},
      {"(?i)^\\p{LC}$", "\u0345", false},
      {"(?i)^\\P{Lu}$", "a", false},
      {"(?i)^\\p{Greek}$", "\u0345", true},
      {"(?i)^\\p{Greek}$", "µ", true},
      {"(?i)^\\p{Latin}$", "\u212a", true},
      {"(?i)^\\W$", "\u212a", false},
      {"(?i)^\\W$", "k", false},
      {"^\\W$", "\u212a", true},
      {"(?i)^[\\W]$", "\u017f", false},
      {"(?i)^[^\\w]$", "\u017f", false},
      {"(?i)^[[:^alpha:]]$", "\u212a", false},
      {"(?i)^\\QÉ\\E$", "é", true},
      {"(?i)ΣΑΣ", "σας", true},
      {"(?i)^\\p{Ascii}$", "\u017f", true},
      {"(?i)^\\P{Ascii}$", "\u017f", false},
      {"(?i)^\\p{Any}$", "x", true},
      {"(?i)^ß$", "ẞ", true},
      {"(?i)^ß$", "SS", false},
      {"(?i)^ﬀ$", "ff", false},
      {"(?i)^ǰ$", "J", false},
      {"^\\pN\\PN$", "1a", true},
      {"^\\p{Braille}$", "⠁", true},
  };
  for (const auto& c : cases) {
    auto re = Regex::Compile(c.pattern);
    ASSERT_TRUE(re.ok()) << c.pattern << ": " << re.status().message();
    EXPECT_EQ(re->Search(c.text), c.want) << c.pattern << " on " << c.text;
  }
}

// A name Go does not resolve is Go's error, quoting the \\p text alone.
TEST(RegexUnicodeTest, ErrorsLikeGo) {
  const std::pair<const char*, const char*> cases[] = {
      {"\\p{Foo}", "error parsing regexp: invalid character class range: `\\p{Foo}`"},
      {"a\\p{Lu", "error parsing regexp: invalid character class range: `\\p{Lu`"},
      {"\\p", "error parsing regexp: invalid character class range: `\\p`"},
      {"[\\p{Foo}]", "error parsing regexp: invalid character class range: `\\p{Foo}`"},
      {"\\pX", "error parsing regexp: invalid character class range: `\\pX`"},
      {"\\p{}", "error parsing regexp: invalid character class range: `\\p{}`"},
      {"\\p{^}", "error parsing regexp: invalid character class range: `\\p{^}`"},
      {"\\p^L", "error parsing regexp: invalid character class range: `\\p^`"},
      {"\\pé", "error parsing regexp: invalid character class range: `\\pé`"},
      {"x\\P{Old_Italic}y", "error parsing regexp: invalid character class range: `\\P{Old_Italic}`"},
      {"\\p{L\\}", "error parsing regexp: invalid character class range: `\\p{L\\}`"},
      {"(?i)\\p{Zzz}", "error parsing regexp: invalid character class range: `\\p{Zzz}`"},
  };
  for (const auto& [pattern, want] : cases) {
    auto re = Regex::Compile(pattern);
    ASSERT_FALSE(re.ok()) << pattern;
    EXPECT_EQ(re.status().message(), want) << pattern;
  }
  // \\p is no escape inside a range; the error (quoting more than Go's `\\p`
  // here) is an error all the same.
  EXPECT_FALSE(Regex::Compile("[a-\\pL]").ok());
}

TEST(RegexUnicodeTest, TablesAreGos) {
  EXPECT_STREQ(unicode_tables::kUnicodeVersion, "15.0.0");
  // Every class a \\p name reaches compiles, plain, negated and under (?i).
  for (const auto& cls : unicode_tables::Classes()) {
    for (const char* form : {"\\p{%}", "\\P{%}", "(?i)\\p{%}", "(?i)[^\\p{^%}]"}) {
      std::string pattern = form;
      pattern.replace(pattern.find("%"), 1, cls.name);
      EXPECT_TRUE(Regex::Compile(pattern).ok()) << pattern;
    }
  }
  EXPECT_GT(unicode_tables::Classes().size(), 190u);
}

TEST(RegexUnicodeTest, FoldOrbitsAreWhole) {
  // (?i) on any letter of an orbit matches all of it: K k and the Kelvin sign.
  for (const char* p : {"(?i)^K$", "(?i)^k$", "(?i)^\u212a$", "(?i)^[K]$", "(?i)^[\u212a-\u212a]$"}) {
    auto re = Regex::Compile(p);
    ASSERT_TRUE(re.ok()) << p;
    for (const char* t : {"K", "k", "\u212a"}) EXPECT_TRUE(re->Search(t)) << p << " " << t;
    EXPECT_FALSE(re->Search("j")) << p;
  }
  // Ranges wider than every orbit, and complements of them.
  auto all = Regex::Compile("(?i)^[\\x{0}-\\x{10FFFF}]$");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Search("\u212a"));
  auto none = Regex::Compile("(?i)[^\\x{0}-\\x{10FFFF}]");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->Search("aK\u212a\U0010FFFF"));
  auto from_b = Regex::Compile("(?i)^[b-\\x{10FFFF}]+$");  // B by b's orbit, K by k's; no a, no A
  ASSERT_TRUE(from_b.ok());
  EXPECT_TRUE(from_b->Search("BK\u212a"));
  EXPECT_FALSE(from_b->Search("A"));
}

// As on Go's parse stack, a repetition takes the last code point of
// \\Q...\\E, and skips back over a flag group to what precedes it.
TEST(RegexUnicodeTest, RepetitionTakesWhatWasParsedLast) {
  const MatchCase cases[] = {
      {"^\\Qab\\E*$", "abbb", true}, {"^\\Qab\\E*$", "abab", false}, {"^\\Qab\\E*$", "a", true},
      {"^a(?i)*$", "", true},          {"^a(?i)*$", "aaa", true},       {"^a\\Q\\E+$", "aa", true},
      {"^(?i)\\QΣσ\\E{2}$", "σςΣ", true}, {"a*(?i)*", "", true},
  };
  for (const auto& c : cases) {
    auto re = Regex::Compile(c.pattern);
    ASSERT_TRUE(re.ok()) << c.pattern << ": " << re.status().message();
    EXPECT_EQ(re->Search(c.text), c.want) << c.pattern << " on " << c.text;
  }
  for (const char* bad : {"\\Q\\E*", "(?i)*", "a**", "(?i)\\Q\\E?"}) {
    auto re = Regex::Compile(bad);
    ASSERT_FALSE(re.ok()) << bad;
    EXPECT_NE(re.status().message().find("repetition operator"), std::string::npos) << re.status().message();
  }
}

}  // namespace
}  // namespace ksched::cel
