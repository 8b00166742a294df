#include "pkg/api/json_reader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ksched::api {
namespace {

// The byte-at-a-time answer PlainStringEnd must give.
size_t FirstStop(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
  }
  return s.size();
}

// Every byte value at every position of runs up to three words long, with
// and without a second stop after it (a borrow from the first must not hide
// or move it), matches the byte-at-a-time scan.
TEST(JsonReaderTest, PlainStringEndFindsTheFirstStopAtEveryPosition) {
  for (size_t len = 0; len <= 24; ++len) {
    for (size_t pos = 0; pos < len; ++pos) {
      for (int b = 0; b < 256; ++b) {
        for (const char after : {'a', '\0', '"', '\x1f', '\x20', '\x21', '\x7f', '\x80'}) {
          std::string s(len, 'x');
          s[pos] = static_cast<char>(b);
          if (pos + 1 < len) s[pos + 1] = after;
          const char* end = s.data() + s.size();
          ASSERT_EQ(static_cast<size_t>(PlainStringEnd(s.data(), end) - s.data()), FirstStop(s))
              << "len " << len << " pos " << pos << " byte " << b << " after " << int(after);
        }
      }
    }
  }
}

TEST(JsonReaderTest, ReadStringAcrossWordBoundaries) {
  for (size_t len = 0; len <= 20; ++len) {
    const std::string body(len, 'k');
    std::string scratch;
    std::string_view out;
    // Plain: a view into the text.
    const std::string plain = "\"" + body + "\"";
    JsonReader r(plain);
    ASSERT_TRUE(r.ReadString(&out, &scratch));
    EXPECT_EQ(out, body);
    EXPECT_EQ(out.data(), plain.data() + 1);
    EXPECT_TRUE(r.AtEnd());
    // An escape at the end: unescaped into scratch.
    const std::string escaped = "\"" + body + "\\n\"";
    JsonReader e(escaped);
    ASSERT_TRUE(e.ReadString(&out, &scratch));
    EXPECT_EQ(out, body + "\n");
    // Unterminated, a raw control character, a non-ASCII byte: not here.
    for (const std::string& bad : {"\"" + body, "\"" + body + "\t\"", "\"" + body + "\xc3\xa9\""}) {
      JsonReader b(bad);
      EXPECT_FALSE(b.ReadString(&out, &scratch)) << bad;
    }
  }
}

// Skipping checks the grammar: what it accepts nlohmann parses, and what
// the decoder meets in API objects (managedFields' escaped keys, nesting,
// whitespace anywhere) it accepts; a false answer leaves the text to the
// slow path.
TEST(JsonReaderTest, SkipValueAcceptsOnlyValidJson) {
  const std::vector<std::string> good = {
      R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{}}})",
      R"( [ 1 , -2.5e3 , "a\"b" , true , false , null , { } , [ ] , {"k" : [ {"x" : 0} ] } ] )",
      R"("\/\b\f\n\r\t\\")", "{}", "[]", "0", R"({"a":{"b":{"c":[[[]]]}}})"};
  const std::vector<std::string> bad = {
      "[1,]", R"({"a":1,})", R"({"a" 1})", R"({"a":1 "b":2})", "[1 2]", "{1:2}", R"({"a":})", "[", "{",
      R"({"a":1)", R"("abc)", R"("\x")", R"("\u0041")", "\"tab\there\"", "tru", "-", "01", "1.", "[,1]",
      R"({,"a":1})", "\"\\"};
  for (const std::string& text : good) {
    JsonReader r(text);
    EXPECT_TRUE(r.SkipValue() && r.AtEnd()) << text;
    EXPECT_TRUE(nlohmann::json::accept(text)) << text;
  }
  for (const std::string& text : bad) {
    JsonReader r(text);
    EXPECT_FALSE(r.SkipValue() && r.AtEnd()) << text;
  }
}

}  // namespace
}  // namespace ksched::api
