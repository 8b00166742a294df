#include "pkg/api/json_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

namespace ksched::api {
namespace {

std::string Quoted(std::string_view s) {
  std::string out;
  JsonWriter::AppendQuoted(s, &out);
  return out;
}

TEST(JsonWriterTest, EscapesWhatJsonRequiresAndPassesUtf8Through) {
  EXPECT_EQ(Quoted("plain"), "\"plain\"");
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("\b\f\n\r\t"), R"("\u0008\u000c\n\r\t")");
  EXPECT_EQ(Quoted(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(Quoted(std::string(1, '\0')), R"("\u0000")");
  EXPECT_EQ(Quoted("gpu \xc3\xa9\xe2\x82\xac"), "\"gpu \xc3\xa9\xe2\x82\xac\"");
  // What nlohmann reads back is the string written.
  const std::string nasty = std::string("q\"\\\x7f\x01 \xf0\x9f\x98\x80\n", 12);
  EXPECT_EQ(nlohmann::json::parse(Quoted(nasty)).get<std::string>(), nasty);
}

TEST(JsonWriterTest, PlacesCommasAndColonsAtEveryDepth) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(-1);
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.Null();
  w.Bool(true);
  w.EndArray();
  w.Key("b");
  w.BeginObject();
  w.Key("c");
  w.String("d");
  w.Key("e");
  w.Raw(R"({"f":[1,2]})");
  w.EndObject();
  w.Key("g");
  w.Int(9223372036854775807);
  w.EndObject();
  EXPECT_EQ(out, R"({"a":[-1,{},[],null,true],"b":{"c":"d","e":{"f":[1,2]}},"g":9223372036854775807})");
}

TEST(JsonWriterTest, FirstMembersOpenTheOutermostObjectOnly) {
  std::string out;
  JsonWriter w(&out, R"("kind":"Pod")");
  w.BeginObject();
  w.Key("spec");
  w.BeginObject();
  w.EndObject();
  w.EndObject();
  EXPECT_EQ(out, R"({"kind":"Pod","spec":{}})");

  std::string empty;
  JsonWriter e(&empty, R"("kind":"Pod")");
  e.BeginObject();
  e.EndObject();
  EXPECT_EQ(empty, R"({"kind":"Pod"})");
}

}  // namespace
}  // namespace ksched::api
