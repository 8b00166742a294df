#include "pkg/cel/time_value.h"

#include <charconv>
#include <cstdio>

namespace ksched::cel {
namespace {


bool IsDecimalDigit(char c) { return c >= '0' && c <= '9'; }

bool IsLeap(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

int DaysIn(int month, int64_t year) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

// The civil-from-days algorithm's inverse, in 400-year eras.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilTime ToCivil(int64_t unix_seconds, int64_t offset) {
  // Wraps as Go's arithmetic does for offsets no zone has.
  const int64_t local = static_cast<int64_t>(static_cast<uint64_t>(unix_seconds) + static_cast<uint64_t>(offset));
  const int64_t days = FloorDiv(local, kSecondsPerDay);
  const int64_t secs = local - days * kSecondsPerDay;
  CivilTime c;
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs / 60 % 60);
  c.second = static_cast<int>(secs % 60);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = yoe + era * 400 + (c.month <= 2);
  c.yday = static_cast<int>(days - DaysFromCivil(c.year, 1, 1));
  return c;
}

namespace {

// Go's float64 d.Seconds(), d.Minutes(), d.Hours(): the whole units plus
// the remainder's fraction.
double InUnits(int64_t nanos, int64_t unit) {
  return static_cast<double>(nanos / unit) + static_cast<double>(nanos % unit) / static_cast<double>(unit);
}

}  // namespace

std::string FormatDuration(int64_t nanos) {
  // The shortest digits that read back as the same double, in positional
  // notation, as strconv's 'f' with precision -1.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), InUnits(nanos, kNanosPerSecond), std::chars_format::fixed);
  return std::string(buf, r.ptr) + "s";
}

int64_t DurationHours(int64_t nanos) { return static_cast<int64_t>(InUnits(nanos, 3'600'000'000'000)); }
int64_t DurationMinutes(int64_t nanos) { return static_cast<int64_t>(InUnits(nanos, 60'000'000'000)); }
int64_t DurationSeconds(int64_t nanos) { return static_cast<int64_t>(InUnits(nanos, kNanosPerSecond)); }

std::optional<Timestamp> ParseRfc3339(std::string_view v, bool* utc) {
  size_t i = 0;
  auto fixed = [&](size_t n, int* out) {
    if (i + n > v.size()) return false;
    int x = 0;
    for (size_t k = 0; k < n; ++k) {
      if (!IsDecimalDigit(v[i + k])) return false;
      x = x * 10 + (v[i + k] - '0');
    }
    i += n;
    *out = x;
    return true;
  };
  auto literal = [&](char c) {
    if (i >= v.size() || v[i] != c) return false;
    ++i;
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!fixed(4, &year) || !literal('-') || !fixed(2, &month) || month < 1 || month > 12 || !literal('-') ||
      !fixed(2, &day) || !literal('T')) {
    return std::nullopt;
  }
  // Go's layout hour "15" takes one digit or two.
  if (i >= v.size() || !IsDecimalDigit(v[i])) return std::nullopt;
  hour = v[i++] - '0';
  if (i < v.size() && IsDecimalDigit(v[i])) hour = hour * 10 + (v[i++] - '0');
  if (hour > 23 || !literal(':') || !fixed(2, &minute) || minute > 59 || !literal(':') || !fixed(2, &second) ||
      second > 59) {
    return std::nullopt;
  }
  Timestamp t;
  if (i + 1 < v.size() && (v[i] == '.' || v[i] == ',') && IsDecimalDigit(v[i + 1])) {
    // Nanoseconds: the first nine digits, the rest dropped.
    ++i;
    int digits = 0;
    for (; i < v.size() && IsDecimalDigit(v[i]); ++i) {
      if (digits < 9) {
        t.nanos = t.nanos * 10 + (v[i] - '0');
        ++digits;
      }
    }
    for (; digits < 9; ++digits) t.nanos *= 10;
  }
  *utc = literal('Z');
  if (!*utc) {
    // ±hh:mm, which Go's parser accepts up to 24:60.
    if (v.size() - i < 6 || v[i + 3] != ':') return std::nullopt;
    const char sign = v[i++];
    int hh = 0, mm = 0;
    if (!fixed(2, &hh)) return std::nullopt;
    ++i;
    if (!fixed(2, &mm) || hh > 24 || mm > 60 || (sign != '+' && sign != '-')) return std::nullopt;
    t.offset = (hh * 60 + mm) * 60 * (sign == '-' ? -1 : 1);
  }
  if (i != v.size() || day < 1 || day > DaysIn(month, year)) return std::nullopt;
  t.seconds = DaysFromCivil(year, month, day) * kSecondsPerDay + hour * 3600 + minute * 60 + second - t.offset;
  return t;
}

std::string FormatRfc3339Nano(const Timestamp& t) {
  const CivilTime c = ToCivil(t.seconds, t.offset);
  char buf[96];
  // Go pads the year to four digits and writes a sign only when negative.
  int n = std::snprintf(buf, sizeof(buf), "%s%04lld-%02d-%02dT%02d:%02d:%02d", c.year < 0 ? "-" : "",
                        static_cast<long long>(c.year < 0 ? -c.year : c.year), c.month, c.day, c.hour, c.minute,
                        c.second);
  std::string out(buf, static_cast<size_t>(n));
  if (t.nanos != 0) {
    std::snprintf(buf, sizeof(buf), ".%09d", t.nanos);
    std::string frac(buf);
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  if (t.offset == 0) return out + "Z";
  const int minutes = (t.offset < 0 ? -t.offset : t.offset) / 60;
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d", t.offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
  return out + buf;
}

}  // namespace ksched::cel
