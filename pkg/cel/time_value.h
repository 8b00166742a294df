// Durations and timestamps with the conventions of Go's time package, which
// cel-go's are: parsing (time.ParseDuration, time.Parse with RFC 3339),
// formatting (string() of each), and the proleptic Gregorian calendar of
// the getters.
//
// A duration is int64 nanoseconds. A timestamp is Unix seconds, nanoseconds
// in [0, 1e9) and the UTC offset of the zone it was written in, which only
// string() shows. cel-go keeps a parsed or computed one within [year 1,
// year 9999] UTC, but a google.protobuf.Timestamp message anywhere (pkg/cel
// within 2^53 seconds of 1970), and the functions here take any such one.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::cel {

// cel-go's range of timestamps, 0001-01-01T00:00:00Z to
// 9999-12-31T23:59:59.999999999Z, in Unix seconds.
constexpr int64_t kMinTimestampSeconds = -62135596800;
constexpr int64_t kMaxTimestampSeconds = 253402300799;
constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerDay = 86'400;

struct Timestamp {
  int64_t seconds = 0;  // since the Unix epoch
  int32_t nanos = 0;    // [0, 1e9)
  int32_t offset = 0;   // seconds east of UTC of the zone it is written in
};

// The calendar fields of a moment, as seen `offset` seconds east of UTC.
struct CivilTime {
  int64_t year = 0;
  int month = 1;    // 1-12
  int day = 1;      // 1-31
  int yday = 0;     // 0-365
  int weekday = 0;  // 0 = Sunday
  int hour = 0, minute = 0, second = 0;
};
CivilTime ToCivil(int64_t unix_seconds, int64_t offset);
// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t DaysFromCivil(int64_t year, int month, int day);

// Go's strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s": "5400s",
// "1.5s", "-0.000000001s".
std::string FormatDuration(int64_t nanos);
// Go's int64(d.Hours()), int64(d.Minutes()), int64(d.Seconds()): computed
// in floating point as Go does, then truncated.
int64_t DurationHours(int64_t nanos);
int64_t DurationMinutes(int64_t nanos);
int64_t DurationSeconds(int64_t nanos);

// Go's time.Parse(time.RFC3339, s): "2006-01-02T15:04:05Z07:00" with a
// fraction of a second after the seconds ('.' or ','), a one-digit hour,
// and offsets up to 24:60 accepted, as Go's parser does; nullopt
// otherwise. Not range-checked. *utc tells "Z" from a numeric offset.
std::optional<Timestamp> ParseRfc3339(std::string_view s, bool* utc);
// Go's t.Format(time.RFC3339Nano) in the timestamp's own zone:
// "2023-01-01T05:00:00.12+05:00", "...Z" at offset 0.
std::string FormatRfc3339Nano(const Timestamp& t);

}  // namespace ksched::cel
