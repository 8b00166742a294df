#include "pkg/config/yaml_reader.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ksched::config {
namespace {

ResolvedScalar Resolve(const std::string& yaml) { return ResolveScalar(YAML::Load("v: " + yaml)["v"]); }

TEST(ResolveScalarTest, TypesPlainScalarsLikeGoYaml) {
  EXPECT_EQ(Resolve("abc").kind, ScalarKind::kString);
  EXPECT_EQ(Resolve("\"5\"").kind, ScalarKind::kString);
  EXPECT_EQ(Resolve("'true'").kind, ScalarKind::kString);
  EXPECT_EQ(Resolve("!!str 5").kind, ScalarKind::kString);
  EXPECT_EQ(Resolve("~").kind, ScalarKind::kNull);
  EXPECT_EQ(Resolve("null").kind, ScalarKind::kNull);
  EXPECT_EQ(Resolve("").kind, ScalarKind::kNull);
  for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "on", "ON", "y"}) {
    ResolvedScalar r = Resolve(t);
    EXPECT_EQ(r.kind, ScalarKind::kBool) << t;
    EXPECT_TRUE(r.bool_value) << t;
  }
  for (const char* f : {"false", "no", "Off", "N"}) {
    ResolvedScalar r = Resolve(f);
    EXPECT_EQ(r.kind, ScalarKind::kBool) << f;
    EXPECT_FALSE(r.bool_value) << f;
  }
  const std::pair<const char*, int64_t> ints[] = {
      {"0", 0},
      {"42", 42},
      {"-7", -7},
      {"+3", 3},
      {"1_000", 1000},
      {"0x1F", 31},
      {"0o17", 15},
      {"017", 15},
      {"0b101", 5},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
  };
  for (const auto& [text, want] : ints) {
    ResolvedScalar r = Resolve(text);
    EXPECT_EQ(r.kind, ScalarKind::kInt) << text;
    EXPECT_EQ(r.int_value, want) << text;
  }
  EXPECT_EQ(Resolve("1.5").kind, ScalarKind::kFloat);
  EXPECT_DOUBLE_EQ(Resolve("1.5").float_value, 1.5);
  EXPECT_DOUBLE_EQ(Resolve("-2e3").float_value, -2000);
  EXPECT_TRUE(std::isinf(Resolve(".inf").float_value));
  EXPECT_EQ(Resolve("9223372036854775808").kind, ScalarKind::kFloat);  // too big for int64
  EXPECT_EQ(Resolve("1.2.3").kind, ScalarKind::kString);
  for (const char* f : {"1e5", ".5", "5.", "+.5e-3", "-0.0", "1_0.5", "08"}) {
    EXPECT_EQ(Resolve(f).kind, ScalarKind::kFloat) << f;
  }
  for (const char* s : {"1e", "e5", "1.5e+", "--1", "1.5f", "0x1G"})
    EXPECT_EQ(Resolve(s).kind, ScalarKind::kString) << s;
  EXPECT_DOUBLE_EQ(Resolve("08").float_value, 8);  // not octal, so go-yaml reads a float
  EXPECT_EQ(Resolve("15s").kind, ScalarKind::kString);
  EXPECT_EQ(Resolve("-x").kind, ScalarKind::kString);
}

TEST(NodeToJsonTest, ConvertsWithTyping) {
  nlohmann::json j = NodeToJson(YAML::Load("a: [1, \"2\", yes, ~, 1.5]\nb: {c: d}\n"));
  EXPECT_EQ(j.dump(), R"({"a":[1,"2",true,null,1.5],"b":{"c":"d"}})");
}

class ReaderTest : public ::testing::Test {
 protected:
  Value Doc(const std::string& yaml) {
    doc_ = YAML::Load(yaml);
    return reader_.Root(doc_);
  }
  ConfigSource source_{"f.yaml"};
  ErrorList errors_;
  YamlReader reader_{&source_, &errors_};
  YAML::Node doc_;
};

TEST_F(ReaderTest, MapReaderGetsFieldsAndReportsUnknownAndDuplicate) {
  MapReader m(&reader_, Doc("name: a\nweight: 3\nwieght: 4\nname: b\nnull_field:\n"));
  ASSERT_TRUE(m.is_map());
  std::optional<Value> name = m.Get("name");
  ASSERT_TRUE(name);
  EXPECT_EQ(reader_.String(*name), "a");
  EXPECT_EQ(name->path, "name");
  EXPECT_EQ(name->pos.line, 1);
  EXPECT_EQ(name->pos.column, 7);
  std::optional<Value> weight = m.Get("weight");
  ASSERT_TRUE(weight);
  EXPECT_EQ(reader_.Int32(*weight), 3);
  EXPECT_FALSE(m.Get("null_field"));
  EXPECT_TRUE(m.Has("null_field"));
  EXPECT_FALSE(m.Get("absent"));
  m.Finish();
  ASSERT_EQ(errors_.size(), 2u);
  EXPECT_EQ(errors_[0].type, ErrorType::kDuplicateField);
  EXPECT_EQ(errors_[0].ToString(), "f.yaml:4:1: name: duplicate field \"name\" (first set at line 1)");
  EXPECT_EQ(errors_[1].type, ErrorType::kUnknownField);
  EXPECT_EQ(errors_[1].ToString(),
            "f.yaml:3:1: wieght: strict decoding error: unknown field \"wieght\" (did you mean \"weight\"?)");
  // A null value is located at its key, not where yaml-cpp marks it.
  EXPECT_EQ(source_.Lookup("null_field").line, 5);
  EXPECT_EQ(source_.Lookup("null_field").column, 1);
}

TEST_F(ReaderTest, TypeErrorsSayWhatWasExpectedAndFound) {
  MapReader m(&reader_, Doc("a: high\nb: \"5\"\nc: [1]\nd: 1.5\ne: 5.0\nf: 3000000000\ng: 5\nh: {x: 1}\ni: yes\n"));
  EXPECT_FALSE(reader_.Int32(*m.Get("a")));
  EXPECT_FALSE(reader_.Int32(*m.Get("b")));
  EXPECT_FALSE(reader_.Int32(*m.Get("c")));
  EXPECT_FALSE(reader_.Int32(*m.Get("d")));
  EXPECT_EQ(reader_.Int32(*m.Get("e")), 5);  // integral floats fit, as in kube
  EXPECT_FALSE(reader_.Int32(*m.Get("f")));
  EXPECT_FALSE(reader_.String(*m.Get("g")));
  EXPECT_FALSE(reader_.Bool(*m.Get("h")));
  EXPECT_EQ(reader_.Bool(*m.Get("i")), true);
  m.Finish();
  std::vector<std::string> got;
  for (const FieldError& e : errors_) got.push_back(e.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "f.yaml:1:4: a: expected an integer, got \"high\"",
                     "f.yaml:2:4: b: expected an integer, got \"5\"",
                     "f.yaml:3:4: c: expected an integer, got a list",
                     "f.yaml:4:4: d: expected an integer, got 1.5",
                     "f.yaml:6:4: f: value 3000000000 is out of range [-2147483648, 2147483647]",
                     "f.yaml:7:4: g: expected a string, got 5",
                     "f.yaml:8:4: h: expected a boolean, got a mapping",
                 }));
}

TEST_F(ReaderTest, DurationsAreGoDurationStrings) {
  MapReader m(&reader_, Doc("a: 1m30s\nb: 15\nc: 15x\n"));
  EXPECT_EQ(reader_.Duration(*m.Get("a")), std::chrono::seconds(90));
  EXPECT_FALSE(reader_.Duration(*m.Get("b")));
  EXPECT_FALSE(reader_.Duration(*m.Get("c")));
  ASSERT_EQ(errors_.size(), 2u);
  EXPECT_EQ(errors_[0].ToString(), "f.yaml:2:4: b: expected a duration string such as \"15s\", got 15");
  EXPECT_EQ(errors_[1].ToString(), "f.yaml:3:4: c: time: unknown unit \"x\" in duration \"15x\"");
}

TEST_F(ReaderTest, ListsAndStringMaps) {
  MapReader m(&reader_, Doc("l:\n- a\n- 2\nm:\n  k: v\n  n: 1\nx: notalist\n"));
  EXPECT_EQ(reader_.StringList(*m.Get("l")), (std::vector<std::string>{"a", ""}));
  std::map<std::string, std::string> sm = reader_.StringMap(*m.Get("m"));
  EXPECT_EQ(sm.at("k"), "v");
  EXPECT_TRUE(reader_.Items(*m.Get("x")).empty());
  ASSERT_EQ(errors_.size(), 3u);
  EXPECT_EQ(errors_[0].ToString(), "f.yaml:3:3: l[1]: expected a string, got 2");
  EXPECT_EQ(errors_[1].ToString(), "f.yaml:6:6: m[n]: expected a string, got 1");
  EXPECT_EQ(errors_[2].ToString(), "f.yaml:7:4: x: expected a list, got \"notalist\"");
  EXPECT_EQ(source_.Lookup("l[0]").line, 2);
}

TEST_F(ReaderTest, NonMapIsReported) {
  MapReader m(&reader_, Doc("[1, 2]"));
  EXPECT_FALSE(m.is_map());
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0].ToString(), "f.yaml:1:1: expected a mapping, got a list");
}

}  // namespace
}  // namespace ksched::config
