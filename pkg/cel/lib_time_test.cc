// CEL's durations and timestamps: parsing as Go's time package parses,
// string(), int(), the arithmetic and its overflow errors, the getters in
// UTC, at fixed offsets and in IANA zones (read from /usr/share/zoneinfo,
// Debian's tzdata), and where Kubernetes refuses them (an index); each
// expectation as Kubernetes answers it (test/k8s/celcompare probes).
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

TEST(TimeTest, DurationsParseAsGoDoes) {
  EXPECT_TRUE(Match(R"(duration("1h") == duration("60m") && duration("1.5h") == duration("90m"))"));
  EXPECT_TRUE(Match(R"(duration("1µs") == duration("1us") && duration("1μs") == duration("1000ns"))"));
  EXPECT_TRUE(Match(R"(duration(".5s") == duration("500ms") && duration("1.s") == duration("1s"))"));
  EXPECT_TRUE(Match(R"(duration("1h1h") == duration("2h") && duration("+1s") == duration("1s") && duration("-0") == duration("0s"))"));
  EXPECT_TRUE(Match(R"(duration("0.99999999999999999999999s") == duration("1s"))"));
  EXPECT_TRUE(Match(R"(duration("0.1234567890123h") == duration("444.444440444s"))"));
  EXPECT_FALSE(Match(R"(duration("1.0000000001h") == duration("1h"))"));
  EXPECT_TRUE(Match(R"(duration("9223372036854775807ns") > duration("0s") && duration("-9223372036854775808ns") < duration("0s"))"));
  // A literal is checked as Kubernetes compiles it; a computed string at
  // run time.
  for (const char* bad : {"9223372036854775808ns", "99999999999999999999ns", "1h-1m", "1 h", " 1h", "-", "+", ".",
                          ".s", "1e3s", "1H", "1m1", "1", "1d", "x", "2562047h47m16.854775808s"}) {
    EXPECT_TRUE(Has(CompileError(std::string("true || duration(\"") + bad + "\") == duration(\"1s\")"),
                    "invalid duration argument"))
        << bad;
  }
  EXPECT_TRUE(Has(CompileError(R"(duration(dyn("x")) == duration("1s"))"),
                  "type conversion error from 'string' to 'google.protobuf.Duration'"));
  EXPECT_TRUE(Has(EvalError(R"([duration("1s")].exists(d, duration(string(d) + "x") == d))"),
                  "type conversion error from 'string' to 'google.protobuf.Duration'"));
  // cel-go 0.29 (1.37) no longer declares duration(int); before, it
  // compiles and fails at run time (a literal as Kubernetes compiles it).
  EXPECT_TRUE(Has(CompileError(R"(duration(5) == duration("5ns"))"), "found no matching overload for 'duration'"));
  CompileOptions o136;
  o136.duration_of_int = true;
  EXPECT_TRUE(Has(CompileError(R"(duration(5) == duration("5ns"))", o136), "invalid duration argument"));
  EXPECT_TRUE(Has(EvalError(R"([5].exists(i, duration(i) == duration("5ns")))", o136),
                  "type conversion error from 'int' to 'google.protobuf.Duration'"));
  EXPECT_TRUE(Match(R"([5].exists(i, true || duration(i) == duration("5ns")))", o136));
}

TEST(TimeTest, DurationValues) {
  EXPECT_TRUE(Match(R"(string(duration("1h30m")) == "5400s" && string(duration("-1ns")) == "-0.000000001s")"));
  EXPECT_TRUE(Match(R"(string(duration("1.5s")) == "1.5s" && string(duration("0")) == "0s" && string(duration("0.1s")) == "0.1s")"));
  // Seconds as a double, in its shortest digits.
  EXPECT_TRUE(Match(R"(string(duration("123456789.123456789s")) == "123456789.12345679s")"));
  EXPECT_FALSE(Match(R"(string(duration("2562047h47m16.854775807s")) == "9223372036.854775807s")"));
  EXPECT_TRUE(Match(R"(int(duration("1s")) == 1000000000)"));
  EXPECT_TRUE(Match(R"(duration("1h59m").getHours() == 1 && duration("-90m").getHours() == -1 && duration("90m").getMinutes() == 90)"));
  EXPECT_TRUE(Match(R"(duration("90s").getSeconds() == 90 && duration("1.5s").getMilliseconds() == 1500)"));
  EXPECT_TRUE(Match(R"(duration("-1.5s").getSeconds() == -1 && duration("-1.5s").getMilliseconds() == -1500)"));
  EXPECT_TRUE(Match(R"(duration("2562047h47m16.854775807s").getHours() == 2562047 && duration("59m59.999999999s").getHours() == 0)"));
  EXPECT_TRUE(Match(R"(duration("2562047h47m16.854775807s").getMinutes() == 153722867)"));
  EXPECT_TRUE(Match(R"(duration("2562047h47m16.854775807s").getSeconds() == 9223372036)"));
}

TEST(TimeTest, DurationArithmetic) {
  EXPECT_TRUE(Match(R"(duration("1s") + duration("1s") == duration("2s") && duration("1s") - duration("2s") == duration("-1s"))"));
  EXPECT_TRUE(Match(R"(duration("1s") < duration("2s") && duration("1s") == dyn(duration("1s")))"));
  EXPECT_TRUE(Has(EvalError(R"(duration("2562047h") + duration("2562047h") > duration("0s"))"), "integer overflow"));
  EXPECT_TRUE(Has(CompileError(R"(-duration("1s") == duration("-1s"))"), "found no matching overload for '-_'"));
  EXPECT_TRUE(Has(CompileError(R"(duration("1s") * 2 == duration("2s"))"), "found no matching overload for '_*_'"));
  EXPECT_TRUE(Has(CompileError(R"(duration("1s") == 1000000000)"), "applied to '(duration, int)'"));
}

TEST(TimeTest, TimestampsParseAsGoDoes) {
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:00:00+05:00") == timestamp("2023-01-01T00:00:00Z"))"));
  // Go's layout parser: a one-digit hour, a comma before the fraction,
  // offsets up to 24:60, nine digits of the fraction kept.
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T5:00:00Z") == timestamp("2023-01-01T05:00:00Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:00:00,5Z") == timestamp("2023-01-01T05:00:00.5Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:00:00+24:00") == timestamp("2022-12-31T05:00:00Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00-24:60") == timestamp("2023-01-02T01:00:00Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:00:00.1234567891Z") == timestamp("2023-01-01T05:00:00.123456789Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2024-02-29T05:00:00Z") < timestamp("2024-03-01T05:00:00Z"))"));
  for (const char* bad : {"2023-01-01T05:00:00+25:00", "2023-01-01t05:00:00Z", "2023-01-01T05:00:00z",
                          "2023-02-29T05:00:00Z", "1900-02-29T00:00:00Z", "2023-04-31T00:00:00Z",
                          "2023-01-01T05:00:00Z ", "2023-01-01T05:00:60Z", "2023-01-01T05:00:00",
                          "2023-01-01T24:00:00Z", "2023-01-01T05:00:00.Z", "2023-01-01T05:00:00+5:00",
                          "2023-1-01T00:00:00Z", "2023-01-01T00:0:00Z", "+2023-01-01T00:00:00Z",
                          "2023-01-01T00:00:00,Z", "2023-01-01T00:00:00+0100", "2023-01-01 00:00:00Z", "",
                          "0000-12-31T23:59:59Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"}) {
    EXPECT_TRUE(Has(CompileError(std::string("true || timestamp(\"") + bad + "\") == timestamp(1)"),
                    "invalid timestamp argument"))
        << bad;
  }
  EXPECT_TRUE(Has(CompileError("timestamp(-62135596801) == timestamp(1)"), "invalid timestamp argument"));
  EXPECT_TRUE(Match(R"(timestamp(-62135596800) == timestamp("0001-01-01T00:00:00Z"))"));
  EXPECT_TRUE(Match(R"(timestamp(253402300799) == timestamp("9999-12-31T23:59:59Z"))"));
  EXPECT_TRUE(Has(CompileError(R"(timestamp(dyn("x")) == timestamp(1))"),
                  "type conversion error from 'string' to 'google.protobuf.Timestamp'"));
  EXPECT_TRUE(Has(EvalError(R"([253402300800].exists(s, timestamp(s) == timestamp(1)))"), "timestamp overflow"));
}

TEST(TimeTest, TimestampsPrintInTheirOwnZone) {
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T05:00:00+05:00")) == "2023-01-01T05:00:00+05:00")"));
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T05:00:00.120+05:00")) == "2023-01-01T05:00:00.12+05:00")"));
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T05:00:00-00:00")) == "2023-01-01T05:00:00Z")"));
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T00:00:00-24:60")) == "2023-01-01T00:00:00-25:00")"));
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T05:00:00+05:00") + duration("1h")) == "2023-01-01T06:00:00+05:00")"));
  EXPECT_TRUE(Match(R"(string(timestamp("2023-01-01T00:00:00Z") - duration("1ns")) == "2022-12-31T23:59:59.999999999Z")"));
  EXPECT_TRUE(Match(R"(string(timestamp("0001-01-02T00:00:00+24:00")) == "0001-01-02T00:00:00+24:00")"));
  EXPECT_TRUE(Match(R"(string(timestamp(0)) == "1970-01-01T00:00:00Z")"));
  // The getters without a zone read UTC, whatever the timestamp's zone.
  EXPECT_TRUE(Match(R"(cel.bind(t, timestamp("2023-06-01T12:00:00-07:00"), t.getHours() == 19 && string(t).endsWith("-07:00")))"));
}

TEST(TimeTest, TimestampArithmeticAndRange) {
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z") - timestamp("2022-01-01T00:00:00Z") == duration("8760h"))"));
  EXPECT_TRUE(Match(R"(duration("1h") + timestamp("2023-01-01T00:00:00Z") == timestamp("2023-01-01T01:00:00Z"))"));
  EXPECT_TRUE(Match(R"(timestamp("2262-04-11T23:47:16.854775807Z") - timestamp("1970-01-01T00:00:00Z") == duration("9223372036.854775807s"))"));
  EXPECT_TRUE(Has(EvalError(R"(timestamp("2262-04-11T23:47:16.854775808Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s"))"),
                  "integer overflow"));
  EXPECT_TRUE(Has(EvalError(R"(timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp(1))"), "timestamp overflow"));
  EXPECT_TRUE(Has(EvalError(R"(timestamp("0001-01-01T00:00:00Z") - duration("1ns") < timestamp(1))"), "timestamp overflow"));
  EXPECT_TRUE(Has(EvalError(R"(timestamp("2023-01-01T00:00:00Z") - duration("-2562047h47m16.854775808s") > timestamp(1))"),
                  "integer overflow"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z") + duration("-2562047h47m16.854775808s") < timestamp(1))"));
  EXPECT_TRUE(Match(R"(int(timestamp("1970-01-01T00:00:01Z")) == 1 && int(timestamp("1969-12-31T23:59:59.5Z")) == -1)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z") < timestamp("2023-01-01T01:00:00.000000001+01:00"))"));
  EXPECT_FALSE(Match(R"(dyn(timestamp(1)) == dyn(duration("1s")))"));
  EXPECT_TRUE(Has(EvalError(R"(dyn(timestamp(1)) + dyn(timestamp(1)) == timestamp(1))"), "no such overload"));
  EXPECT_TRUE(Has(CompileError(R"(timestamp(1) + 1 == timestamp(2))"), "found no matching overload for '_+_'"));
}

TEST(TimeTest, GettersInUtcAndInZones) {
  const std::string t = R"(timestamp("2023-07-14T10:30:45.123Z"))";
  EXPECT_TRUE(Match(t + ".getFullYear() == 2023 && " + t + ".getMonth() == 6 && " + t + ".getDayOfYear() == 194"));
  EXPECT_TRUE(Match(t + ".getDayOfMonth() == 13 && " + t + ".getDate() == 14 && " + t + ".getDayOfWeek() == 5"));
  EXPECT_TRUE(Match(t + ".getMinutes() == 30 && " + t + ".getSeconds() == 45 && " + t + ".getMilliseconds() == 123"));
  EXPECT_TRUE(Match(R"(timestamp("0001-01-01T00:00:00Z").getDayOfWeek() == 1 && timestamp("1969-12-31T23:59:59Z").getDayOfWeek() == 3)"));
  // Fixed offsets: hours:minutes, the minutes neither range-checked nor
  // signed by the hours.
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getFullYear("-08:00") == 2022)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getHours("+5:30") == 11 && timestamp("2023-01-01T05:30:00Z").getHours("-05:30") == 0)"));
  EXPECT_FALSE(Match(R"(timestamp("2023-01-01T05:30:00Z").getHours("+05:99") == 11)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getHours("+05:-30") == 10)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z").getHours("-0:30") == 23 && timestamp("2023-01-01T00:00:00Z").getDate("48:00") == 3)"));
  EXPECT_TRUE(Match(R"(timestamp("0001-01-01T00:00:00Z").getFullYear("-01:00") == 0 && timestamp("9999-12-31T23:59:59Z").getFullYear("+01:00") == 10000)"));
  EXPECT_TRUE(Match(R"(timestamp("0001-01-01T00:00:00Z").getDayOfWeek("-01:00") == 0 && timestamp("0001-01-01T00:00:00Z").getDayOfYear("-01:00") == 365)"));
  // IANA zones, their daylight time, and the POSIX rule past the last
  // transition.
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getMonth("America/Los_Angeles") == 11)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-07-01T05:30:00Z").getHours("America/New_York") == 1 && timestamp("2023-01-01T05:30:00Z").getHours("America/New_York") == 0)"));
  EXPECT_TRUE(Match(R"(timestamp("2080-07-01T05:30:00Z").getHours("Europe/Berlin") == 7 && timestamp("2080-01-01T05:30:00Z").getHours("Europe/Berlin") == 6)"));
  EXPECT_TRUE(Match(R"(timestamp("1800-01-01T05:30:00Z").getMinutes("Europe/Berlin") == 23)"));  // local mean time
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getHours("Asia/Kolkata") == 11 && timestamp("2023-01-01T05:30:00Z").getHours("posix/Asia/Kolkata") == 11)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z").getHours("Etc/GMT-14") == 14 && timestamp("2023-01-01T00:00:00Z").getHours("EST5EDT") == 19)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T00:00:00Z").getHours("Europe//Berlin") == 1 && timestamp("2023-01-01T00:00:00Z").getHours("./Europe/Berlin") == 1)"));
  EXPECT_TRUE(Match(R"(timestamp("2023-01-01T05:30:00Z").getHours("") == 5 && timestamp("2023-01-01T05:30:00Z").getHours("UTC") == 5)"));
  EXPECT_TRUE(Match(R"(timestamp("2100-04-02T15:30:00Z").getHours("Australia/Sydney") == 2)"));
  EXPECT_TRUE(Match(R"(timestamp("2100-10-03T16:00:00Z").getHours("Australia/Sydney") == 3)"));
}

TEST(TimeTest, BadZonesFailAsInGo) {
  const std::string t = R"(timestamp("2023-01-01T05:30:00Z"))";
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("Nowhere/City") == 0)"), "unknown time zone Nowhere/City"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("utc") == 5)"), "unknown time zone utc"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("../etc") == 5)"), "time: invalid location name"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("/etc/localtime") == 0)"), "time: invalid location name"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("America") == 5)"), "is a directory"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("zone.tab") == 5)"), "malformed time zone information"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("zone.tab/x") == 0)"), "not a directory"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("Europe/Berlin\u0000") == 1)"), "invalid argument"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("x:30") == 11)"), R"(strconv.Atoi: parsing "x": invalid syntax)"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("+1:00:00") == 1)"), R"(strconv.Atoi: parsing "00:00": invalid syntax)"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("+:00") == 1)"), R"(strconv.Atoi: parsing "+": invalid syntax)"));
  EXPECT_TRUE(Has(EvalError(t + R"(.getHours("+99999999999999999999:00") == 1)"),
                  R"(strconv.Atoi: parsing "+99999999999999999999": value out of range)"));
  EXPECT_TRUE(Has(EvalError(t + ".getHours(dyn(1)) == 0"), "no such overload"));
}

TEST(TimeTest, TypesListsOptionalsAndKeys) {
  EXPECT_TRUE(Match(R"(type(duration("1s")) == google.protobuf.Duration && type(timestamp(1)) == google.protobuf.Timestamp)"));
  EXPECT_TRUE(Has(CompileError(R"(string(type(duration("1s"))) == "x")"), "applied to '(type(duration))'"));
  EXPECT_TRUE(Match(R"([duration("1s"), duration("2s")].sum() == duration("3s") && dyn([duration("1s"), duration("2s")]).sum() == duration("3s"))"));
  EXPECT_TRUE(Has(EvalError(R"([duration("2562047h"), duration("2562047h")].sum() > duration("0s"))"), "integer overflow"));
  EXPECT_TRUE(Has(CompileError(R"([timestamp(1)].sum() == timestamp(1))"), "found no matching overload for 'sum'"));
  EXPECT_TRUE(Match(R"([timestamp(3), timestamp(1)].sort() == [timestamp(1), timestamp(3)] && [duration("3s"), duration("1s")].max() == duration("3s"))"));
  EXPECT_FALSE(Match(R"([timestamp(3), timestamp(1)].isSorted())"));
  EXPECT_TRUE(Has(EvalError(R"([dyn(duration("1s")), dyn(timestamp(1))].sort().size() == 2)"), "list elements must have the same type"));
  EXPECT_FALSE(Match(R"(optional.ofNonZeroValue(duration("0s")).hasValue())"));
  EXPECT_FALSE(Match(R"(optional.ofNonZeroValue(timestamp("0001-01-01T00:00:00Z")).hasValue())"));
  EXPECT_TRUE(Match(R"(optional.ofNonZeroValue(timestamp(0)).hasValue())"));
  EXPECT_TRUE(Match(R"(timestamp(1) in [timestamp("1970-01-01T01:00:01+01:00")] && duration("1s") in [duration("1s")])"));
  EXPECT_FALSE(Match(R"(dyn(timestamp(1)) in ["a"] || dyn(duration("1s")) in {"a": 1})"));
  // Map keys: Go tells two moments' zones apart by pointer. Whole hours
  // from -12 to +14 share one, UTC another, the local zone's offset a
  // third; any other offset is a new zone at each parse.
  EXPECT_TRUE(Match(R"({duration("1s"): 1}.size() == 1 && {timestamp(1): 1, timestamp("1970-01-01T01:00:01+01:00"): 2}.size() == 2)"));
  EXPECT_TRUE(Match(R"({timestamp("2023-01-01T05:00:00+05:00"): 1, timestamp("2023-01-01T05:00:00+05:00"): 2}.size() == 1)"));
  EXPECT_TRUE(Match(R"({timestamp("2023-01-01T05:00:00-12:00"): 1, timestamp("2023-01-01T05:00:00-12:00"): 2}.size() == 1)"));
  EXPECT_FALSE(Match(R"({timestamp("2023-01-01T05:00:00+05:30"): 1, timestamp("2023-01-01T05:00:00+05:30"): 2}.size() == 1)"));
  EXPECT_FALSE(Match(R"({timestamp("2023-01-01T05:00:00+15:00"): 1, timestamp("2023-01-01T05:00:00+15:00"): 2}.size() == 1)"));
  EXPECT_FALSE(Match(R"({timestamp("2023-01-01T05:00:00+00:00"): 1, timestamp("2023-01-01T05:00:00Z"): 2}.size() == 1)"));
  EXPECT_TRUE(Match(R"({timestamp("2023-01-01T05:00:00Z"): 1, timestamp("2023-01-01T04:00:00Z") + duration("1h"): 2}.size() == 1)"));
  EXPECT_TRUE(Match(R"(cel.bind(t, timestamp("2023-01-01T05:00:00+05:30"), {t: 1, t + duration("0s"): 2}.size() == 1))"));
  EXPECT_FALSE(Match(R"(timestamp("2023-01-01T05:00:00+05:30") in {timestamp("2023-01-01T05:00:00+05:30"): 1})"));
  // No index: a constant one does not compile, a computed one fails.
  EXPECT_TRUE(Has(CompileError(R"(true || {"a": 1}[dyn(duration("1s"))] == 1)"), "invalid qualifier type: types.Duration"));
  EXPECT_TRUE(Has(CompileError(R"({timestamp(1): 1}[timestamp(1)] == 1)"), "invalid qualifier type: types.Timestamp"));
  EXPECT_TRUE(Has(EvalError(R"([duration("1s")].exists(d, {d: 1}[d] == 1))"), "invalid qualifier type: types.Duration"));
}

}  // namespace
}  // namespace ksched::cel
