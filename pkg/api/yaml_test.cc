#include "pkg/api/yaml.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "pkg/api/codec.h"
#include "pkg/api/yaml_scalar.h"

namespace ksched::api {
namespace {

using nlohmann::json;

json J(std::string_view text) {
  auto parsed = ParseJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : json();
}

// The JSON value of `v` in the one-line document "v: <scalar>".
json ValueOf(const std::string& scalar) {
  auto doc = YamlToJson("v: " + scalar + "\n");
  EXPECT_TRUE(doc.ok()) << scalar << ": " << doc.status().ToString();
  if (!doc.ok() || !doc->is_object() || !doc->contains("v")) return json("<missing>");
  return (*doc)["v"];
}

// ---------------------------------------------------------------- scalars

struct ScalarCase {
  const char* yaml;
  json want;
};

class YamlScalarTest : public testing::TestWithParam<ScalarCase> {};

TEST_P(YamlScalarTest, Types) {
  const ScalarCase& c = GetParam();
  const json got = ValueOf(c.yaml);
  EXPECT_EQ(got, c.want) << c.yaml << " -> " << got.dump();
  EXPECT_EQ(got.type(), c.want.type()) << c.yaml << " -> " << got.type_name();
  if (got.is_number_integer() && c.want.is_number_integer()) {
    EXPECT_EQ(got.is_number_unsigned(), c.want.is_number_unsigned()) << c.yaml;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Yaml, YamlScalarTest,
    testing::Values(
        // null
        ScalarCase{"", nullptr}, ScalarCase{"~", nullptr}, ScalarCase{"null", nullptr},
        ScalarCase{"Null", nullptr}, ScalarCase{"NULL", nullptr},
        ScalarCase{"nULL", "nULL"}, ScalarCase{"!!null ''", nullptr},
        // booleans: go-yaml v2 keeps the YAML 1.1 set, including y/n
        ScalarCase{"true", true}, ScalarCase{"True", true}, ScalarCase{"TRUE", true},
        ScalarCase{"false", false}, ScalarCase{"False", false}, ScalarCase{"FALSE", false},
        ScalarCase{"yes", true}, ScalarCase{"Yes", true}, ScalarCase{"YES", true},
        ScalarCase{"no", false}, ScalarCase{"No", false}, ScalarCase{"NO", false},
        ScalarCase{"on", true}, ScalarCase{"On", true}, ScalarCase{"ON", true},
        ScalarCase{"off", false}, ScalarCase{"Off", false}, ScalarCase{"OFF", false},
        ScalarCase{"y", true}, ScalarCase{"Y", true}, ScalarCase{"n", false},
        ScalarCase{"N", false}, ScalarCase{"tRUE", "tRUE"}, ScalarCase{"yES", "yES"},
        ScalarCase{"truely", "truely"},
        // integers
        ScalarCase{"0", 0}, ScalarCase{"42", 42}, ScalarCase{"-42", -42},
        ScalarCase{"+42", 42}, ScalarCase{"1_000", 1000}, ScalarCase{"0x1F", 31},
        ScalarCase{"0X1f", 31}, ScalarCase{"-0x10", -16}, ScalarCase{"0o17", 15},
        ScalarCase{"0O17", 15}, ScalarCase{"017", 15}, ScalarCase{"0b101", 5},
        ScalarCase{"-0b101", -5}, ScalarCase{"9223372036854775807", INT64_MAX},
        ScalarCase{"-9223372036854775808", INT64_MIN},
        ScalarCase{"18446744073709551615", json(uint64_t{18446744073709551615u})},
        ScalarCase{"0x", "0x"}, ScalarCase{"0xZZ", "0xZZ"}, ScalarCase{"1a", "1a"},
        ScalarCase{"+", "+"}, ScalarCase{"-1-", "-1-"}, ScalarCase{"1-2", "1-2"},
        // leading-zero decimals that are not octal fall through to floats
        ScalarCase{"08", 8}, ScalarCase{"-09", -9},
        // floats; integral ones print as integers, as Go's json.Marshal does
        ScalarCase{"1.5", 1.5}, ScalarCase{"-0.25", -0.25}, ScalarCase{".5", 0.5},
        ScalarCase{"+.5", 0.5}, ScalarCase{"1.0", 1}, ScalarCase{"1.", 1},
        ScalarCase{"1e3", 1000}, ScalarCase{"1E3", 1000}, ScalarCase{"2.5e-3", 0.0025},
        ScalarCase{"1e21", 1e21}, ScalarCase{"1e-400", 0}, ScalarCase{"1e400", "1e400"},
        ScalarCase{"1_0.5", 10.5}, ScalarCase{"1.2.3", "1.2.3"}, ScalarCase{"1e", "1e"},
        ScalarCase{".", "."}, ScalarCase{".e3", ".e3"},
        ScalarCase{"18446744073709551616", 18446744073709551616.0},
        ScalarCase{"+18446744073709551615", 18446744073709551615.0},
        ScalarCase{"0x10000000000000000", 18446744073709551616.0},
        // versions, quantities, times and other look-alikes stay strings
        ScalarCase{"1.20.3", "1.20.3"}, ScalarCase{"100m", "100m"}, ScalarCase{"1Gi", "1Gi"},
        ScalarCase{"2001-12-14", "2001-12-14"},
        ScalarCase{"2001-12-14T21:59:43.10Z", "2001-12-14T21:59:43.10Z"},
        ScalarCase{"12:30", "12:30"}, ScalarCase{"<<", "<<"}, ScalarCase{"=", "="},
        ScalarCase{"_1", "_1"}, ScalarCase{"hello world", "hello world"},
        // quoting and tags
        ScalarCase{"'true'", "true"}, ScalarCase{"\"42\"", "42"}, ScalarCase{"'~'", "~"},
        ScalarCase{"''", ""}, ScalarCase{"\"\"", ""}, ScalarCase{"! 42", "42"},
        ScalarCase{"!!str 42", "42"}, ScalarCase{"!!str true", "true"},
        ScalarCase{"!!str", ""}, ScalarCase{"!!int \"42\"", 42},
        ScalarCase{"!!int 0x10", 16}, ScalarCase{"!!float 1", 1},
        ScalarCase{"!!float '2.5'", 2.5}, ScalarCase{"!!bool 'yes'", true},
        ScalarCase{"!custom 42", "42"}, ScalarCase{"!!timestamp 2001-12-14", "2001-12-14"},
        // block scalars are strings
        ScalarCase{"|\n  42\n", "42\n"}, ScalarCase{">-\n  a\n  b\n", "a b"}));

TEST(YamlScalarTest, SpecialFloats) {
  EXPECT_TRUE(std::isnan(ValueOf(".nan").get<double>()));
  EXPECT_TRUE(std::isnan(ValueOf(".NaN").get<double>()));
  EXPECT_EQ(ValueOf(".inf").get<double>(), INFINITY);
  EXPECT_EQ(ValueOf("+.Inf").get<double>(), INFINITY);
  EXPECT_EQ(ValueOf("-.INF").get<double>(), -INFINITY);
  EXPECT_EQ(ValueOf(".infinity"), ".infinity");
}

TEST(YamlScalarTest, TagMismatchIsAnErrorWithPosition) {
  auto doc = YamlToJson("a: 1\nb: !!int abc\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(), "yaml: line 2, column 4: cannot decode !!str `abc` as a !!int");
  EXPECT_FALSE(YamlToJson("v: !!bool 1").ok());
  EXPECT_FALSE(YamlToJson("v: !!null x").ok());
  EXPECT_FALSE(YamlToJson("v: !!float abc").ok());
}

TEST(YamlScalarTest, KeysBecomeStrings) {
  auto doc = YamlToJson(
      "1: int\n-2: neg\n1.5: float\n1e6: big\n0.0001: small\ntrue: bool\n"
      "yes: yes-bool\n0x10: hex\n\"3\": quoted\n.inf: inf\n");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(*doc, J(R"({"1": "int", "-2": "neg", "1.5": "float", "1e+06": "big",
                        "0.0001": "small", "true": "yes-bool", "16": "hex", "3": "quoted",
                        ".inf": "inf"})"));
  // As in kubectl, a plain y/n key is a boolean and so becomes "true"/"false".
  auto yn = YamlToJson("{x: 1, y: 2, n: 3}");
  ASSERT_TRUE(yn.ok());
  EXPECT_EQ(*yn, J(R"({"x": 1, "true": 2, "false": 3})"));
  EXPECT_EQ(ResolveYamlKey("?", "0.1").value(), "0.1");
  EXPECT_EQ(ResolveYamlKey("?", "1000.0").value(), "1000");
  EXPECT_EQ(ResolveYamlKey("?", "123456.7").value(), "123456.7");
  EXPECT_EQ(ResolveYamlKey("?", "1234567").value(), "1234567");
  EXPECT_EQ(ResolveYamlKey("?", "1234567.0").value(), "1.234567e+06");
  EXPECT_EQ(ResolveYamlKey("?", "0.00001").value(), "1e-05");
  EXPECT_EQ(ResolveYamlKey("?", "-0.5").value(), "-0.5");
  EXPECT_EQ(ResolveYamlKey("?", "0.0").value(), "0");
}

TEST(YamlScalarTest, UnsupportedKeys) {
  auto null_key = YamlToJson("a: 1\n~: 2\n");
  ASSERT_FALSE(null_key.ok());
  EXPECT_EQ(null_key.status().message().rfind("yaml: line 2, column 1: ", 0), 0u)
      << null_key.status().message();
  EXPECT_FALSE(YamlToJson("? [1, 2]\n: x\n").ok());
  EXPECT_FALSE(YamlToJson("18446744073709551615: x\n").ok());
}

// ---------------------------------------------------------------- structure

TEST(YamlTest, NestedStructure) {
  auto doc = YamlToJson(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p   # trailing comment
  labels: {app: web, tier: "1"}
spec:
  containers:
  - name: c
    args: [a, 'b', 3]
    env:
    - {name: X, value: "on"}
  empty_map: {}
  empty_list: []
  nothing:
)");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(*doc, J(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p", "labels": {"app": "web", "tier": "1"}},
      "spec": {"containers": [{"name": "c", "args": ["a", "b", 3],
                               "env": [{"name": "X", "value": "on"}]}],
               "empty_map": {}, "empty_list": [], "nothing": null}})"));
}

TEST(YamlTest, JsonIsYaml) {
  const char* text = R"({"a": [1, 2.5, "x", true, null, {"b": {}}], "c": -3})";
  auto doc = YamlToJson(text);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(*doc, J(text));
}

TEST(YamlTest, FlowMappingsWithTrailingCommas) {
  auto doc = YamlToJson(R"({
  apiVersion: "v1",
  spec: {
    containers: [{
      name: "c",
    }],
  },
})");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(*doc, J(R"({"apiVersion": "v1", "spec": {"containers": [{"name": "c"}]}})"));
}

TEST(YamlTest, DuplicateKeysLastWins) {
  auto doc = YamlToJson("a: 1\na: 2\n");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, J(R"({"a": 2})"));
}

TEST(YamlTest, AnchorsAndAliases) {
  auto doc = YamlToJson(R"(
base: &base {cpu: 100m, memory: 1Gi}
list: &list [1, 2]
name: &n web
copy: *base
again: [*list, *n]
*n : keyed
)");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["copy"], J(R"({"cpu": "100m", "memory": "1Gi"})"));
  EXPECT_EQ((*doc)["again"], J(R"([[1, 2], "web"])"));
  EXPECT_EQ((*doc)["web"], "keyed");
}

TEST(YamlTest, MergeKeys) {
  auto doc = YamlToJson(R"(
a: &a {p: 1, q: 1}
b: &b {q: 2, r: 2}
one:
  <<: *a
  p: 9
list:
  <<: [*a, *b]
  w: 0
before:
  p: 5
  <<: *a
quoted:
  "<<": *a
)");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["one"], J(R"({"p": 9, "q": 1})"));
  // Earlier mappings of a merge list take precedence.
  EXPECT_EQ((*doc)["list"], J(R"({"p": 1, "q": 1, "r": 2, "w": 0})"));
  // go-yaml v2 applies a merge where it appears, over earlier keys.
  EXPECT_EQ((*doc)["before"], J(R"({"p": 1, "q": 1})"));
  EXPECT_EQ((*doc)["quoted"], J(R"({"<<": {"p": 1, "q": 1}})"));

  auto bad = YamlToJson("a: &a [1]\nb:\n  <<: *a\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("map merge requires map"), std::string::npos);
}

TEST(YamlTest, SelfReferentialAnchorIsAnError) {
  auto doc = YamlToJson("a: &x [1, *x]\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(), "yaml: line 1, column 11: anchor value contains itself");
}

TEST(YamlTest, AliasBombIsRefused) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", *a" : "*a") + std::to_string(i - 1);
    yaml += "]\n";
  }
  auto doc = YamlToJson(yaml);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("excessive aliasing"), std::string::npos)
      << doc.status().message();
}

TEST(YamlTest, DeepNestingIsRefused) {
  const std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_TRUE(YamlToJson(ok).ok());
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  auto doc = YamlToJson(deep);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(), "yaml: line 1, column 257: document nests deeper than 256 levels");
  // Far deeper input stops in yaml-cpp's own guard, still as an error.
  const std::string deeper = std::string(5000, '[') + std::string(5000, ']');
  auto deeper_doc = YamlToJson(deeper);
  ASSERT_FALSE(deeper_doc.ok());
  EXPECT_EQ(deeper_doc.status().message().rfind("yaml: line 1, column ", 0), 0u);
}

// ---------------------------------------------------------------- documents

TEST(YamlTest, MultipleDocuments) {
  auto docs = YamlDocumentsToJson(R"(# leading comment
---
kind: Pod
---
# only a comment
---
---
kind: Node
--- ~
---
[1]
...
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0], J(R"({"kind": "Pod"})"));
  EXPECT_EQ((*docs)[1], J(R"({"kind": "Node"})"));
  EXPECT_EQ((*docs)[2], J("[1]"));
}

// yaml-cpp 0.7 would report empty documents forever on these.
TEST(YamlTest, AStrayTokenWhereADocumentShouldStartIsAnError) {
  for (const char* text : {"\"a\",", "kind: Pod\n---\n'b' ,x\n"}) {
    SCOPED_TRACE(text);
    auto docs = YamlDocumentsToJson(text);
    ASSERT_FALSE(docs.ok());
    EXPECT_NE(docs.status().message().find("did not find expected <document start>"), std::string::npos)
        << docs.status().message();
  }
}

TEST(YamlTest, AnchorsDoNotCrossDocuments) {
  EXPECT_FALSE(YamlDocumentsToJson("a: &x 1\n---\nb: *x\n").ok());
}

TEST(YamlTest, SingleDocumentReadsTheFirst) {
  auto doc = YamlToJson("a: 1\n---\nb: 2\n");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, J(R"({"a": 1})"));
  auto empty = YamlToJson("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->is_null());
  auto none = YamlDocumentsToJson("# nothing\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// ---------------------------------------------------------------- errors

TEST(YamlTest, SyntaxErrorsCarryLineAndColumn) {
  struct Case {
    const char* yaml;
    const char* want_prefix;
  };
  for (const Case& c : {Case{"a: [1\nb: 2", "yaml: line 2, column 2: "},
                        Case{"a: b: c", "yaml: line 1, column 5: "},
                        Case{"a:\n  - 1\n  b: 2\n", "yaml: line 3, column "},
                        Case{"a: *missing\n", "yaml: line 1, column 4: "}}) {
    auto doc = YamlToJson(c.yaml);
    ASSERT_FALSE(doc.ok()) << c.yaml;
    EXPECT_EQ(doc.status().code(), util::StatusCode::kInvalidArgument);
    EXPECT_EQ(doc.status().message().rfind(c.want_prefix, 0), 0u)
        << c.yaml << " -> " << doc.status().message();
  }
  auto in_later_doc = YamlDocumentsToJson("a: 1\n---\nb: [\n");
  ASSERT_FALSE(in_later_doc.ok());
  EXPECT_EQ(in_later_doc.status().message().rfind("yaml: line ", 0), 0u);
}

TEST(YamlTest, FeedsTheCodec) {
  auto doc = YamlToJson(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  priority: 1e3
  containers:
  - name: c
    resources:
      requests: {cpu: 2, memory: 0.5, nvidia.com/gpu: "1"}
)");
  ASSERT_TRUE(doc.ok());
  auto pod = FromJson<Pod>(*doc);
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->spec.priority, 1000);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("cpu").MilliValue(), 2000);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("memory").MilliValue(), 500);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.at("nvidia.com/gpu").Value(), 1);
}

}  // namespace
}  // namespace ksched::api
