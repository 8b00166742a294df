#include "pkg/util/go_duration.h"

#include <gtest/gtest.h>

#include <limits>

namespace ksched::util {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

struct ParseCase {
  const char* text;
  util::Duration want;
};

TEST(ParseGoDurationTest, AcceptsWhatGoAccepts) {
  const ParseCase cases[] = {
      {"0", nanoseconds(0)},
      {"+0", nanoseconds(0)},
      {"-0", nanoseconds(0)},
      {"0s", nanoseconds(0)},
      {"15s", seconds(15)},
      {"137s", seconds(137)},
      {"1m30s", seconds(90)},
      {"100ms", milliseconds(100)},
      {"1.5h", minutes(90)},
      {"1h2m3s", hours(1) + minutes(2) + seconds(3)},
      {"2h45m", hours(2) + minutes(45)},
      {".5s", milliseconds(500)},
      {"5.s", seconds(5)},
      {"1.000000001s", seconds(1) + nanoseconds(1)},
      {"10us", microseconds(10)},
      {"10\xC2\xB5s", microseconds(10)},
      {"10\xCE\xBCs", microseconds(10)},
      {"7ns", nanoseconds(7)},
      {"-1.5s", milliseconds(-1500)},
      {"+2m", minutes(2)},
      {"9223372036854775807ns", nanoseconds(std::numeric_limits<int64_t>::max())},
      {"-9223372036854775808ns", nanoseconds(std::numeric_limits<int64_t>::min())},
      {"0.100000000000000000000h", minutes(6)},
  };
  for (const ParseCase& c : cases) {
    util::StatusOr<util::Duration> d = ParseGoDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.status().ToString();
    EXPECT_EQ(d->count(), c.want.count()) << c.text;
  }
}

TEST(ParseGoDurationTest, RejectsWithGoMessages) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "time: invalid duration \"\""},
      {"-", "time: invalid duration \"-\""},
      {"s", "time: invalid duration \"s\""},
      {".s", "time: invalid duration \".s\""},
      {"3", "time: missing unit in duration \"3\""},
      {"1d", "time: unknown unit \"d\" in duration \"1d\""},
      {"15 s", "time: unknown unit \" s\" in duration \"15 s\""},
      {"1s2", "time: missing unit in duration \"1s2\""},
      {"abc", "time: invalid duration \"abc\""},
      {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
      {"3000000h", "time: invalid duration \"3000000h\""},
  };
  for (const auto& [text, message] : cases) {
    util::StatusOr<util::Duration> d = ParseGoDuration(text);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_EQ(d.status().message(), message) << text;
  }
}

TEST(FormatGoDurationTest, WritesWhatGoWrites) {
  const std::pair<util::Duration, const char*> cases[] = {
      {nanoseconds(0), "0s"},
      {nanoseconds(1), "1ns"},
      {nanoseconds(1100), "1.1\xC2\xB5s"},
      {microseconds(2200), "2.2ms"},
      {milliseconds(100), "100ms"},
      {milliseconds(1500), "1.5s"},
      {seconds(15), "15s"},
      {seconds(137), "2m17s"},
      {minutes(1) + seconds(30), "1m30s"},
      {hours(1), "1h0m0s"},
      {hours(4) + minutes(5) + seconds(6) + milliseconds(7), "4h5m6.007s"},
      {seconds(-10), "-10s"},
      {nanoseconds(std::numeric_limits<int64_t>::max()), "2562047h47m16.854775807s"},
      {nanoseconds(std::numeric_limits<int64_t>::min()), "-2562047h47m16.854775808s"},
  };
  for (const auto& [d, text] : cases) EXPECT_EQ(FormatGoDuration(d), text);
}

TEST(GoDurationTest, RoundTrips) {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1000001}, int64_t{15000000000}, int64_t{137000000000},
                    int64_t{3723000000000}, int64_t{-42}}) {
    util::StatusOr<util::Duration> back = ParseGoDuration(FormatGoDuration(nanoseconds(n)));
    ASSERT_TRUE(back.ok()) << n;
    EXPECT_EQ(back->count(), n);
  }
}

}  // namespace
}  // namespace ksched::util
