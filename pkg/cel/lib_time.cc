// CEL's durations and timestamps over evaluated arguments: duration(),
// timestamp() (of a string, an int of Unix seconds, or its own kind),
// int() and string() of each, the getters (a timestamp's in UTC or in a
// time zone named as cel-go accepts one: an IANA name, or "+05:30"), and
// +, - between them. Errors are cel-go's: "integer overflow" for a
// duration out of int64 nanoseconds, "timestamp overflow" for a timestamp
// outside years 1 to 9999, Go's messages for a bad zone.
//
// Cost: 1 per call, as every call (the evaluator charges it).
#include <atomic>
#include <string>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/time_value.h"
#include "pkg/cel/time_zone.h"
#include "pkg/util/go_duration.h"

namespace ksched::cel {
namespace {

using K = Value::Kind;

Value IntOverflow() { return Value::Error("integer overflow"); }
Value TimestampOverflow() { return Value::Error("timestamp overflow"); }

Timestamp TimeOf(const Value& v) { return Timestamp{v.i, static_cast<int32_t>(v.u), v.zone_offset}; }

// Go's zones are pointers, which a map key's hash and equality compare:
// UTC's (0) for "Z" and for timestamp(int); for an offset, the process's
// Local zone (1) when it has that offset then, Go's shared zone for a
// whole hour from -12 to +14 (one id each), else a new zone at every
// parse (a new id). Adding a duration keeps the zone.
int32_t ZoneIdentity(const Timestamp& t, bool utc) {
  if (utc) return 0;
  util::StatusOr<std::shared_ptr<const TimeZone>> local = LoadTimeZone("Local");
  if (local.ok() && (*local)->OffsetAt(t.seconds) == t.offset) return 1;
  const int32_t hour = t.offset / 3600;
  if (hour * 3600 == t.offset && hour >= -12 && hour <= 14) return 100 + hour;
  static std::atomic<int32_t> next{1000};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// cel-go's timestamp + duration: seconds and nanoseconds apart, then the
// range check; the zone stays the timestamp's.
Value AddDuration(const Timestamp& t, int32_t zone_id, int64_t d) {
  int64_t sec = 0;
  if (__builtin_add_overflow(t.seconds, d / kNanosPerSecond, &sec)) return IntOverflow();
  int64_t nsec = t.nanos + d % kNanosPerSecond;
  if (nsec < 0) {
    nsec += kNanosPerSecond;
    --sec;
  } else if (nsec >= kNanosPerSecond) {
    nsec -= kNanosPerSecond;
    ++sec;
  }
  if (sec < kMinTimestampSeconds || sec > kMaxTimestampSeconds) return TimestampOverflow();
  return Value::Time(sec, static_cast<int32_t>(nsec), t.offset, zone_id);
}

// timestamp - timestamp in int64 nanoseconds.
Value Between(const Timestamp& a, const Timestamp& b) {
  int64_t sec = 0, scaled = 0, out = 0;
  if (__builtin_sub_overflow(a.seconds, b.seconds, &sec) || __builtin_mul_overflow(sec, kNanosPerSecond, &scaled) ||
      __builtin_add_overflow(scaled, static_cast<int64_t>(a.nanos) - b.nanos, &out)) {
    return IntOverflow();
  }
  return Value::Duration(out);
}

// Go's strconv.Atoi, with its error.
bool Atoi(const std::string& s, int64_t* out, std::string* err) {
  size_t k = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    k = 1;
  }
  const std::string syntax = "strconv.Atoi: parsing \"" + s + "\": invalid syntax";
  const std::string range = "strconv.Atoi: parsing \"" + s + "\": value out of range";
  if (k == s.size()) {
    *err = syntax;
    return false;
  }
  // Go stops at the first digit that overflows.
  uint64_t v = 0;
  for (; k < s.size(); ++k) {
    if (s[k] < '0' || s[k] > '9') {
      *err = syntax;
      return false;
    }
    if (v > (uint64_t{1} << 63) / 10 || (v = v * 10 + static_cast<uint64_t>(s[k] - '0')) > (uint64_t{1} << 63)) {
      *err = range;
      return false;
    }
  }
  if (!neg && v > static_cast<uint64_t>(INT64_MAX)) {
    *err = range;
    return false;
  }
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// The offset (seconds east of UTC) of zone `tz` at t, as cel-go reads the
// argument: with a ':' it is hours:minutes (the minutes added, or taken
// away when the text starts with '-'; neither range-checked), otherwise a
// zone name.
bool ZoneOffset(const std::string& tz, const Timestamp& t, int64_t* offset, std::string* err) {
  const size_t colon = tz.find(':');
  if (colon == std::string::npos) {
    util::StatusOr<std::shared_ptr<const TimeZone>> z = LoadTimeZone(tz);
    if (!z.ok()) {
      *err = z.status().message();
      return false;
    }
    *offset = (*z)->OffsetAt(t.seconds);
    return true;
  }
  int64_t hours = 0, minutes = 0;
  if (!Atoi(tz.substr(0, colon), &hours, err) || !Atoi(tz.substr(colon + 1), &minutes, err)) return false;
  // Go's int arithmetic wraps; so does this, for offsets no zone has.
  const uint64_t m = static_cast<uint64_t>(hours) * 60;
  const int64_t total = static_cast<int64_t>(tz[0] == '-' ? m - static_cast<uint64_t>(minutes)
                                                          : m + static_cast<uint64_t>(minutes));
  const int64_t nanos = static_cast<int64_t>(static_cast<uint64_t>(total) * 60'000'000'000ULL);
  const double seconds = static_cast<double>(nanos / kNanosPerSecond) +
                         static_cast<double>(nanos % kNanosPerSecond) / 1e9;
  *offset = static_cast<int64_t>(seconds);
  return true;
}

Value TimestampGetter(const std::string& n, const Timestamp& t, const std::string* tz) {
  int64_t offset = 0;
  if (tz) {
    std::string err;
    if (!ZoneOffset(*tz, t, &offset, &err)) return Value::Error(err);
  }
  const CivilTime c = ToCivil(t.seconds, offset);
  if (n == "getFullYear") return Value::Int(c.year);
  if (n == "getMonth") return Value::Int(c.month - 1);
  if (n == "getDayOfYear") return Value::Int(c.yday);
  if (n == "getDayOfMonth") return Value::Int(c.day - 1);
  if (n == "getDate") return Value::Int(c.day);
  if (n == "getDayOfWeek") return Value::Int(c.weekday);
  if (n == "getHours") return Value::Int(c.hour);
  if (n == "getMinutes") return Value::Int(c.minute);
  if (n == "getSeconds") return Value::Int(c.second);
  if (n == "getMilliseconds") return Value::Int(t.nanos / 1'000'000);
  return Value::NoSuchOverload(n.c_str());
}

Value DurationGetter(const std::string& n, int64_t d) {
  if (n == "getHours") return Value::Int(DurationHours(d));
  if (n == "getMinutes") return Value::Int(DurationMinutes(d));
  if (n == "getSeconds") return Value::Int(DurationSeconds(d));
  if (n == "getMilliseconds") return Value::Int(d / 1'000'000);
  return Value::NoSuchOverload(n.c_str());
}

bool IsGetter(const std::string& n) {
  return n == "getFullYear" || n == "getMonth" || n == "getDayOfYear" || n == "getDayOfMonth" || n == "getDate" ||
         n == "getDayOfWeek" || n == "getHours" || n == "getMinutes" || n == "getSeconds" || n == "getMilliseconds";
}

bool IsTime(const Value& v) { return v.kind == K::kDuration || v.kind == K::kTimestamp; }

}  // namespace

bool IsTimeFunction(const std::string& name, bool member, const std::vector<Value>& args) {
  if (member) return IsGetter(name);
  if (name == "duration" || name == "timestamp") return true;
  return (name == "int" || name == "string") && args.size() == 1 && IsTime(args[0]);
}

Value CallTimeFunction(const std::string& n, bool member, const std::vector<Value>& a) {
  auto no = [&] { return Value::NoSuchOverload(n.c_str()); };
  if (a.empty()) return no();
  const Value& x = a[0];
  if (member) {
    if (x.kind == K::kDuration && a.size() == 1) return DurationGetter(n, x.i);
    if (x.kind != K::kTimestamp) return no();
    if (a.size() == 1) return TimestampGetter(n, TimeOf(x), nullptr);
    if (a.size() == 2 && a[1].kind == K::kString) return TimestampGetter(n, TimeOf(x), &a[1].s);
    return no();
  }
  if (a.size() != 1) return no();
  if (n == "duration") {
    if (x.kind == K::kDuration) return x;
    // Declared before cel-go 0.29 (options.h), never converted.
    if (x.kind == K::kInt) return Value::Error("type conversion error from 'int' to 'google.protobuf.Duration'");
    if (x.kind != K::kString) return no();
    util::StatusOr<util::Duration> d = util::ParseGoDuration(x.s);
    if (!d.ok()) return Value::Error("type conversion error from 'string' to 'google.protobuf.Duration'");
    return Value::Duration(d->count());
  }
  if (n == "timestamp") {
    if (x.kind == K::kTimestamp) return x;
    if (x.kind == K::kInt) {
      if (x.i < kMinTimestampSeconds || x.i > kMaxTimestampSeconds) return TimestampOverflow();
      return Value::Time(x.i, 0, 0, 0);
    }
    if (x.kind != K::kString) return no();
    bool utc = false;
    std::optional<Timestamp> t = ParseRfc3339(x.s, &utc);
    if (!t) return Value::Error("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    if (t->seconds < kMinTimestampSeconds || t->seconds > kMaxTimestampSeconds) return TimestampOverflow();
    return Value::Time(t->seconds, t->nanos, t->offset, ZoneIdentity(*t, utc));
  }
  if (n == "int") return Value::Int(x.i);  // nanoseconds, or Unix seconds
  if (n == "string") return Value::String(x.kind == K::kDuration ? FormatDuration(x.i) : FormatRfc3339Nano(TimeOf(x)));
  return no();
}

bool IsTimeArithmetic(const Value& a, const Value& b) { return IsTime(a) || IsTime(b); }

Value TimeArithmetic(const std::string& op, const Value& a, const Value& b) {
  const char o = op[1];
  if (a.kind == K::kDuration && b.kind == K::kDuration) {
    int64_t r = 0;
    if (o == '+' && !__builtin_add_overflow(a.i, b.i, &r)) return Value::Duration(r);
    if (o == '-' && !__builtin_sub_overflow(a.i, b.i, &r)) return Value::Duration(r);
    if (o == '+' || o == '-') return IntOverflow();
  } else if (a.kind == K::kTimestamp && b.kind == K::kDuration) {
    if (o == '+') return AddDuration(TimeOf(a), a.zone_id, b.i);
    if (o == '-') {
      if (b.i == INT64_MIN) return IntOverflow();
      return AddDuration(TimeOf(a), a.zone_id, -b.i);
    }
  } else if (a.kind == K::kDuration && b.kind == K::kTimestamp && o == '+') {
    return AddDuration(TimeOf(b), b.zone_id, a.i);
  } else if (a.kind == K::kTimestamp && b.kind == K::kTimestamp && o == '-') {
    return Between(TimeOf(a), TimeOf(b));
  }
  return Value::NoSuchOverload(op.c_str());
}

}  // namespace ksched::cel
