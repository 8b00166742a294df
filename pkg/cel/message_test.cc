// Message construction: google.protobuf.Duration and Timestamp built from
// their fields, the other messages Kubernetes knows refused as not
// supported; each checked against what Kubernetes answers at 1.35-1.37
// (test/k8s/celcompare probes).
#include <string>

#include <gtest/gtest.h>

#include "pkg/cel/cel_test_util.h"
#include "pkg/cel/program.h"

namespace ksched::cel {
namespace {

using test::CompileError;
using test::EvalError;
using test::Has;
using test::Match;

TEST(MessageTest, DurationsAndTimestamps) {
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 3, nanos: 5} == duration("3s") + duration("5ns"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{} == duration("0s") && google.protobuf.Duration{,} == duration("0s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 1, nanos: -5} == duration("999999995ns"))"));
  EXPECT_TRUE(Match(R"(.google.protobuf.Duration {seconds: 1,} == duration("1s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 3} == timestamp("1970-01-01T00:00:03Z"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 1, nanos: 1500000000} == timestamp("1970-01-01T00:00:02.5Z"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{nanos: -1} == timestamp("1969-12-31T23:59:59.999999999Z"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 3}.getSeconds() == 3 && type(google.protobuf.Duration{}) == google.protobuf.Duration)"));
  // A repeated field keeps its last value, converted only then; an absent
  // `?` field clears it.
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 1, seconds: 2} == duration("2s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: dyn("x"), seconds: 2} == duration("2s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 5, ?seconds: optional.none()} == duration("0s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{?seconds: optional.of(2), ?nanos: optional.none()} == duration("2s"))"));
  EXPECT_TRUE(Match(R"([1].map(x, google.protobuf.Duration{seconds: x}) == [duration("1s")])"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: device.attributes["gpu.example.com"].count} == duration("7s"))"));
}

// Go's AsDuration saturates; AsTime does not bound the year, pkg/cel does
// only past 2^53 seconds.
TEST(MessageTest, Ranges) {
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 9223372037} == duration("2562047h47m16.854775807s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: -9223372037} == duration("-2562047h47m16.854775808s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Duration{seconds: 9223372036, nanos: 854775808} > duration("1s"))"));
  EXPECT_TRUE(Has(EvalError("google.protobuf.Duration{nanos: 3000000000} == duration(\"3s\")"),
                  "field type conversion error for google.protobuf.Duration.nanos value type: integer overflow"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Timestamp{seconds: 253402300799} + duration("1s") > timestamp("1970-01-01T00:00:04Z"))"),
                  "timestamp overflow"));
  // Beyond years 1 to 9999, as cel-go keeps them, up to 2^53 seconds from
  // 1970; adding or subtracting a duration range-checks the result.
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 253402300800} > timestamp("1970-01-01T00:00:04Z"))"));
  EXPECT_TRUE(Match(R"(string(google.protobuf.Timestamp{seconds: 253402300800, nanos: 1000000}) == "10000-01-01T00:00:00.001Z")"));
  EXPECT_TRUE(Match(R"(string(google.protobuf.Timestamp{seconds: -62198755201}) == "-0002-12-31T23:59:59Z")"));
  EXPECT_TRUE(Match(R"(string(google.protobuf.Timestamp{seconds: -62135596801}) == "0000-12-31T23:59:59Z")"));
  EXPECT_TRUE(Match(R"(string(google.protobuf.Timestamp{seconds: 9007199254740992}) == "285428751-11-12T07:36:32Z")"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 253402300800}.getFullYear("America/New_York") == 9999)"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: -62198755201}.getFullYear("Asia/Tokyo") == -1)"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 253402300800} - duration("1s") == timestamp("9999-12-31T23:59:59Z"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.Timestamp{seconds: 253402300800} - timestamp("9999-12-31T23:59:59Z") == duration("1s"))"));
  EXPECT_TRUE(Match(R"(google.protobuf.ListValue{values: [google.protobuf.Timestamp{seconds: 253402300800}]} == ["10000-01-01T00:00:00Z"])"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Timestamp{seconds: 253402300800} + duration("1s") > timestamp("1970-01-01T00:00:04Z"))"),
                  "timestamp overflow"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Timestamp{seconds: 253402300800} - timestamp("2000-01-01T00:00:00Z") > duration("1s"))"),
                  "integer overflow"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Timestamp{seconds: 9007199254740993} > timestamp("1970-01-01T00:00:04Z"))"),
                  "not supported"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Timestamp{seconds: -9007199254740992, nanos: -1} > timestamp("1970-01-01T00:00:04Z"))"),
                  "not supported"));
}

TEST(MessageTest, FieldsAreTyped) {
  EXPECT_TRUE(Has(CompileError(R"(google.protobuf.Duration{seconds: 1.5} == duration("2s"))"),
                  "1:33: expected type of field 'seconds' is 'int' but provided type is 'double'"));
  EXPECT_TRUE(Has(CompileError(R"(google.protobuf.Duration{?seconds: 2} == duration("2s"))"),
                  "1:36: expected type 'optional_type(int)' but found 'int'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Duration{nope: 1} == duration(\"1s\")"), "undefined field 'nope'"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Duration{seconds: dyn("x")} == duration("3s"))"),
                  "unsupported native conversion from string to 'int64'"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Duration{seconds: dyn(3u)} == duration("3s"))"), "from 'uint' to int64"));
  EXPECT_TRUE(Has(EvalError(R"(google.protobuf.Duration{seconds: 1 / 0} == duration("3s"))"), "division by zero"));
  EXPECT_TRUE(Has(CompileError(R"(google.protobuf.Duration{seconds: 1}.seconds == 1)"),
                  "type 'duration' does not support field selection"));
}

// The wrappers evaluate to the value they hold, typed wrapper(T): a T
// null may also stand for.
TEST(MessageTest, Wrappers) {
  EXPECT_TRUE(Match("google.protobuf.Int64Value{value: 5} == 5 && google.protobuf.Int64Value{} == 0"));
  EXPECT_TRUE(Match(R"(google.protobuf.StringValue{value: "a"} + "b" == "ab" && google.protobuf.BytesValue{} == b"")"));
  EXPECT_TRUE(Match("google.protobuf.UInt32Value{value: 4294967295u} == 4294967295u && .google.protobuf.UInt64Value{} == 0u"));
  EXPECT_TRUE(Match("google.protobuf.Int32Value{value: -2147483648} < 0 && google.protobuf.DoubleValue{value: 0.1} == 0.1"));
  EXPECT_TRUE(Match("google.protobuf.Int64Value{value: 1, ?value: optional.none()} == 0"));
  EXPECT_TRUE(Match("type(google.protobuf.BoolValue{}) == bool && google.protobuf.Int64Value{value: 5} != null"));
  // A float holds a float32: rounded, and infinite past the largest.
  EXPECT_TRUE(Match("google.protobuf.FloatValue{value: 0.1} == 0.10000000149011612"));
  EXPECT_TRUE(Match("google.protobuf.FloatValue{value: 3.4028235677973362e38} == 3.4028234663852886e38"));
  EXPECT_TRUE(Match(R"(google.protobuf.FloatValue{value: -3.4028235677973366e38} == double("-inf"))"));
  EXPECT_TRUE(Has(EvalError("google.protobuf.Int32Value{value: 2147483648} == 0"), "integer overflow"));
  EXPECT_TRUE(Has(EvalError("google.protobuf.UInt32Value{value: 4294967296u} == 0u"), "unsigned integer overflow"));
  EXPECT_TRUE(Has(EvalError("google.protobuf.DoubleValue{value: dyn(1)} == 1.0"), "type conversion error"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Int64Value{value: 1u} == 1"),
                  "expected type of field 'value' is 'int' but provided type is 'uint'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Int64Value{value: null} == 1"), "provided type is 'null_type'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Int64Value{nope: 1} == 1"), "undefined field 'nope'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Int64Value{value: 1}.value == 1"),
                  "type 'wrapper(int)' does not support field selection"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Int64Value{value: 1} == 1u"), "applied to '(wrapper(int), uint)'"));
}

// wrapper(T) and T are one type, whichever comes first kept: only null
// (and a selector's result) can tell them apart.
TEST(MessageTest, WrapperTypesJoinToTheFirst) {
  EXPECT_TRUE(Match("(true ? google.protobuf.Int64Value{value: 1} : 1) != null && [google.protobuf.Int64Value{}, 2][1] != null"));
  EXPECT_TRUE(Has(CompileError("[2, google.protobuf.Int64Value{value: 1}][1] == null"), "applied to '(int, null_type)'"));
  EXPECT_TRUE(Match("optional.of(google.protobuf.Int64Value{value: 5}).orValue(1) != null"));
  EXPECT_TRUE(Has(CompileError("optional.of(1).orValue(google.protobuf.Int64Value{value: 5}) == null"), "no matching"));
  EXPECT_TRUE(Has(CompileError("[google.protobuf.Int64Value{value: 5}].max() == null"), "applied to '(int, null_type)'"));
  EXPECT_TRUE(Match("[google.protobuf.Int64Value{value: 5}].first().value() != null"));
  for (int minor : {35, 36, 37}) {
    const CompileOptions o = test::ReleaseOptions(minor);
    const std::string b = "google.protobuf.BoolValue{value: true}";
    if (minor == 37) {
      EXPECT_TRUE(Match(b, o));
      EXPECT_TRUE(Match("[" + b + "][0]", o));
    } else {
      EXPECT_TRUE(Has(CompileError(b, o), "must evaluate to bool or the unknown type, not wrapper(bool)"));
    }
    EXPECT_TRUE(Match("(false ? true : " + b + ")", o));
  }
}

TEST(MessageTest, OtherTypesAndSyntax) {
  EXPECT_TRUE(Has(CompileError("int{} == 1"), "1:4: 'int' is not a message type"));
  EXPECT_TRUE(Has(CompileError("net.IP{} == 1"), "'net.IP' is not a message type"));
  EXPECT_TRUE(Has(CompileError("a.b.Foo{} == 1"), "1:8: undeclared reference to 'a.b.Foo'"));
  EXPECT_TRUE(Has(CompileError("device{driver: \"x\"} == 1"), "undeclared reference to 'device'"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.FieldMask{} == 1"), "undeclared reference"));
  for (const char* type : {"Any", "Empty"}) {
    EXPECT_TRUE(Has(CompileError(std::string("google.protobuf.") + type + "{} == 1"), "not supported")) << type;
  }
  EXPECT_TRUE(Has(CompileError("google.protobuf.Duration{seconds: 1}{} == 1"), "syntax error"));
  EXPECT_TRUE(Has(CompileError("(google.protobuf.Duration){} == 1"), "syntax error"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Duration{\"seconds\": 1} == 1"), "syntax error"));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Duration{seconds 1} == 1"), "syntax error"));
}

// google.protobuf.Struct, ListValue and Value: what is given converted to
// JSON (proto3's mapping) and read back as cel-go reads it, typed
// map(string, dyn), list(dyn) and dyn; the same at 1.35-1.37.
TEST(MessageTest, JsonMessages) {
  for (int minor : {35, 36, 37}) {
    const CompileOptions o = test::ReleaseOptions(minor);
    EXPECT_TRUE(Match("google.protobuf.Struct{} == {} && google.protobuf.ListValue{} == [] && google.protobuf.Value{} == null", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Struct{fields: {'a': 1}}.a == 1 && type(google.protobuf.Struct{fields: {'a': 1}}.a) == double", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [dyn(1), dyn(-9007199254740991), dyn(9007199254740991u)]} == [1.0, -9007199254740991.0, 9007199254740991.0]", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [dyn(9007199254740992), dyn(-9007199254740992), dyn(9007199254740992u)]}.all(x, type(x) == string)", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [9007199254740992]}[0] == '9007199254740992'", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [b'\\xff\\x00ab?', b'a', b'ab', b'']} == ['/wBhYj8=', 'YQ==', 'YWI=', '']", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [dyn(duration('1.5s')), dyn(duration('-1ns')), dyn(timestamp('2020-01-01T00:00:00.100+01:00'))]} == "
                      "['1.5s', '-0.000000001s', '2020-01-01T00:00:00.1+01:00']", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.ListValue{values: [dyn(null), dyn([true]), dyn({'a': [1]}), dyn(optional.of('x')), dyn(google.protobuf.Int64Value{value: 3})]} == "
                      "[dyn(null), dyn([true]), dyn({'a': [1.0]}), dyn('x'), dyn(3.0)]", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Struct{fields: {'a': 1}, fields: {'b': 2}} == {'b': 2} && google.protobuf.Struct{fields: {'a': 1}, ?fields: optional.none()} == {}", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Value{number_value: 1.5} == 1.5 && google.protobuf.Value{string_value: 'a'} == 'a' && google.protobuf.Value{null_value: -1} == null", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Value{struct_value: {'a': 1}}.a == 1 && google.protobuf.Value{list_value: [1u]} == [1.0] && google.protobuf.Value{list_value: google.protobuf.ListValue{values: [1]}} == [1]", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Value{number_value: dyn(optional.of(2.0))} == 2.0 && google.protobuf.Value{?bool_value: optional.none()} == null", o)) << minor;
    EXPECT_TRUE(Match("type(google.protobuf.Value{}) == null_type && type(google.protobuf.ListValue{}) == list && type(google.protobuf.Struct{}) == map", o)) << minor;
    EXPECT_TRUE(Match("google.protobuf.Struct{fields: {'m': device.attributes['gpu.example.com'].model}}.m == 'a100'", o)) << minor;
    EXPECT_TRUE(Match("true || google.protobuf.ListValue{values: [ip('1.2.3.4')]}.size() == 1", o)) << minor;
    // What JSON cannot hold fails at run time.
    EXPECT_TRUE(Has(EvalError("google.protobuf.ListValue{values: [ip('1.2.3.4')]} == []", o),
                    "field type conversion error for google.protobuf.ListValue.values value type: type conversion error from 'net.IP'"))
        << minor;
    for (const char* bad : {"google.protobuf.ListValue{values: [quantity('1')]} == []", "google.protobuf.ListValue{values: [int]} == []",
                            "google.protobuf.ListValue{values: [optional.none()]} == []", "google.protobuf.ListValue{values: [{1: 2}]} == []",
                            "google.protobuf.Struct{fields: dyn({1: 1})} == {}", "google.protobuf.ListValue{values: dyn(1)} == []",
                            "google.protobuf.ListValue{values: [device.attributes['gpu.example.com']]} == []",
                            "google.protobuf.Value{null_value: 2147483648} == null", "google.protobuf.Value{number_value: dyn(1)} == 1.0",
                            "google.protobuf.Value{null_value: dyn(null)} == null", "google.protobuf.Value{struct_value: dyn([1])} == null",
                            "google.protobuf.Value{list_value: dyn({'a': 1})} == null", "google.protobuf.Value{string_value: dyn(null)} == null",
                            "google.protobuf.Struct{fields: {'a': 1}}.b == null"}) {
      EXPECT_FALSE(EvalError(bad, o).empty()) << minor << " " << bad;
    }
    EXPECT_TRUE(Has(CompileError("google.protobuf.Struct{fields: {1: 1}} == {}", o),
                    "1:30: expected type of field 'fields' is 'map(string, dyn)' but provided type is 'map(int, int)'"))
        << minor;
    EXPECT_TRUE(Has(CompileError("google.protobuf.Value{number_value: 1} == 1.0", o),
                    "1:35: expected type of field 'number_value' is 'double' but provided type is 'int'"))
        << minor;
    EXPECT_TRUE(Has(CompileError("google.protobuf.ListValue{values: 1} == []", o), "expected type of field 'values' is 'list(dyn)'")) << minor;
    EXPECT_TRUE(Has(CompileError("google.protobuf.Value{foo: 1} == null", o), "1:26: undefined field 'foo'")) << minor;
    EXPECT_TRUE(Has(CompileError("google.protobuf.ListValue{} == null", o), "no matching overload")) << minor;
    EXPECT_TRUE(Has(CompileError("google.protobuf.Struct{} == null", o), "no matching overload")) << minor;
  }
  // A Value is dyn: a selector may evaluate to it where it may evaluate to
  // dyn (CelDynAttributes).
  EXPECT_TRUE(Match("google.protobuf.Value{bool_value: true}", test::ReleaseOptions(37)));
  EXPECT_TRUE(Has(CompileError("google.protobuf.Value{bool_value: true}", test::ReleaseOptions(35)), "dyn"));
}

// kubernetes.DRADevice, the device variable's declared type, compiles with
// the device's field types (attribute values any, or dyn with
// CelDynAttributes) and fails at run time, as cel-go's registry has no such
// message ("unknown type"), at 1.35-1.37.
TEST(MessageTest, DeviceMessages) {
  for (int minor : {35, 36, 37}) {
    const CompileOptions o = test::ReleaseOptions(minor);
    EXPECT_TRUE(Has(EvalError("kubernetes.DRADevice{} == device", o), "unknown type 'kubernetes.DRADevice'")) << minor;
    EXPECT_TRUE(Has(EvalError(".kubernetes.DRADevice{driver: 'a'}.driver == 'a'", o), "unknown type")) << minor;
    EXPECT_TRUE(Has(EvalError("kubernetes.DRADevice{driver: string(1/0)} == device", o), "division by zero")) << minor;
    EXPECT_TRUE(Match("true || kubernetes.DRADevice{driver: 'a', attributes: {'a': {'b': 1}}, capacity: {'c': {'d': "
                      "quantity('1')}}, allowMultipleAllocations: true}.attributes.a.b == 1",
                      o))
        << minor;
    EXPECT_TRUE(Match("true || type(kubernetes.DRADevice{?driver: optional.of('a'), attributes: dyn(1)}) == "
                      "type(device)",
                      o))
        << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{driver: 1} == device", o),
                    "1:28: expected type of field 'driver' is 'string' but provided type is 'int'"))
        << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{attributes: {'a': 1}} == device", o),
                    std::string("expected type of field 'attributes' is 'map(string, map(string, ") +
                        (minor >= 37 ? "dyn" : "any") + "))' but provided type is 'map(string, int)'"))
        << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{capacity: {'a': {'b': 1}}} == device", o),
                    "'map(string, map(string, kubernetes.Quantity))' but provided type is 'map(string, map(string, int))'"))
        << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{driver: null} == device", o), "1:28: expected type of field 'driver' is 'string' but provided type is 'null")) << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{foo: 1} == device", o), "1:25: undefined field 'foo'")) << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{}.foo == 1", o), "undefined field 'foo'")) << minor;
    EXPECT_TRUE(Has(CompileError("kubernetes.DRADevice{} == 1", o), "no matching overload")) << minor;
    EXPECT_FALSE(CompileError("true || kubernetes.DRADevice{}", o).empty()) << minor;
  }
}

}  // namespace
}  // namespace ksched::cel
