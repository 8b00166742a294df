// metav1.Time / metav1.MicroTime text forms (RFC 3339).
//
// Parsing follows Go's time.Parse(time.RFC3339, s): "T" and "Z" upper case,
// an optional fraction of any length (digits past nanoseconds ignored), a
// "Z" or "+hh:mm"/"-hh:mm" offset, and calendar validation (no Feb 30).
// Time points are nanosecond int64s, so instants outside about 1678..2262
// saturate to the representable range instead of overflowing.

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "pkg/api/codec.h"

namespace ksched::api {

namespace {

using std::chrono::days;
using std::chrono::nanoseconds;

// Reads exactly `n` decimal digits at s[*pos].
bool ReadDigits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int value = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += n;
  *out = value;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

util::Status BadTime(std::string_view s, const char* why) {
  std::string msg = "invalid RFC 3339 time \"";
  msg.append(s);
  msg.append("\": ");
  msg.append(why);
  return util::InvalidArgument(std::move(msg));
}

struct Civil {
  int year, month, day, hour, minute, second;
};

// Splits with plain int64 floor division: chrono's conversions would
// overflow on the saturated extremes (Time::min() in seconds times 1e9).
Civil ToCivil(Time t, int64_t* sub_second_nanos) {
  constexpr int64_t kNanosPerSecond = 1000000000;
  const int64_t total = std::chrono::time_point_cast<nanoseconds>(t).time_since_epoch().count();
  int64_t secs = total / kNanosPerSecond;
  int64_t nanos = total % kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    --secs;
  }
  int64_t day = secs / 86400;
  int64_t in_day = secs % 86400;
  if (in_day < 0) {
    in_day += 86400;
    --day;
  }
  *sub_second_nanos = nanos;
  const std::chrono::year_month_day ymd{std::chrono::sys_days{days{day}}};
  return Civil{static_cast<int>(ymd.year()), static_cast<int>(static_cast<unsigned>(ymd.month())),
               static_cast<int>(static_cast<unsigned>(ymd.day())), static_cast<int>(in_day / 3600),
               static_cast<int>(in_day / 60 % 60), static_cast<int>(in_day % 60)};
}

// Writes `value` (>= 0) as exactly `width` decimal digits.
void WriteDigits(int value, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

// "YYYY-MM-DDThh:mm:ssZ". Years are 1677..2262 (Time saturates), so four
// digits always suffice. Not snprintf, whose format parsing was most of the
// cost: this runs for every timestamp of a decoded pod condition (the
// decoder interns the re-encoded list) and of every Event written.
constexpr int kSecondsTextLength = 20;
void WriteSeconds(const Civil& c, char* out) {
  WriteDigits(c.year, 4, out);
  out[4] = '-';
  WriteDigits(c.month, 2, out + 5);
  out[7] = '-';
  WriteDigits(c.day, 2, out + 8);
  out[10] = 'T';
  WriteDigits(c.hour, 2, out + 11);
  out[13] = ':';
  WriteDigits(c.minute, 2, out + 14);
  out[16] = ':';
  WriteDigits(c.second, 2, out + 17);
  out[19] = 'Z';
}

}  // namespace

std::string FormatTime(Time t) {
  int64_t nanos = 0;
  char buf[kSecondsTextLength];
  WriteSeconds(ToCivil(t, &nanos), buf);
  return std::string(buf, sizeof(buf));
}

std::string FormatMicroTime(Time t) {
  int64_t nanos = 0;
  char buf[kSecondsTextLength + 7];  // ".uuuuuu"
  WriteSeconds(ToCivil(t, &nanos), buf);
  buf[kSecondsTextLength - 1] = '.';
  WriteDigits(static_cast<int>(nanos / 1000), 6, buf + kSecondsTextLength);
  buf[sizeof(buf) - 1] = 'Z';
  return std::string(buf, sizeof(buf));
}

util::StatusOr<Time> ParseTime(std::string_view s) {
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(s, &pos, 4, &year) || !Expect(s, &pos, '-') || !ReadDigits(s, &pos, 2, &month) ||
      !Expect(s, &pos, '-') || !ReadDigits(s, &pos, 2, &day)) {
    return BadTime(s, "expected YYYY-MM-DD");
  }
  if (!Expect(s, &pos, 'T')) return BadTime(s, "expected 'T' after the date");
  if (!ReadDigits(s, &pos, 2, &hour) || !Expect(s, &pos, ':') || !ReadDigits(s, &pos, 2, &minute) ||
      !Expect(s, &pos, ':') || !ReadDigits(s, &pos, 2, &second)) {
    return BadTime(s, "expected hh:mm:ss");
  }
  int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return BadTime(s, "expected digits after '.'");
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  int offset_seconds = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int off_hour, off_minute;
    if (!ReadDigits(s, &pos, 2, &off_hour) || !Expect(s, &pos, ':') ||
        !ReadDigits(s, &pos, 2, &off_minute)) {
      return BadTime(s, "expected a +hh:mm offset");
    }
    if (off_hour > 23 || off_minute > 59) return BadTime(s, "offset out of range");
    offset_seconds = sign * (off_hour * 3600 + off_minute * 60);
  } else {
    return BadTime(s, "expected 'Z' or a +hh:mm offset");
  }
  if (pos != s.size()) return BadTime(s, "unexpected text after the offset");

  const std::chrono::year_month_day ymd{std::chrono::year{year},
                                        std::chrono::month{static_cast<unsigned>(month)},
                                        std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) return BadTime(s, "day out of range");
  if (hour > 23 || minute > 59 || second > 59) return BadTime(s, "time of day out of range");

  const int64_t epoch_days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  const int64_t epoch_seconds =
      epoch_days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  // Saturate to what a nanosecond int64 can hold.
  const __int128 total = static_cast<__int128>(epoch_seconds) * 1000000000 + nanos;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t clamped = total < kMin ? kMin : total > kMax ? kMax : static_cast<int64_t>(total);
  return Time(std::chrono::duration_cast<Time::duration>(nanoseconds(clamped)));
}

}  // namespace ksched::api
