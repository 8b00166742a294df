#include "pkg/cel/time_zone.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/cel/time_value.h"

namespace ksched::cel {
namespace {

constexpr char kMalformed[] = "malformed time zone information";

// Big-endian reads over TZif data; any read past the end marks it failed.
class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}
  std::string_view Take(size_t n) {
    if (n > d_.size() - at_) {
      failed_ = true;
      at_ = d_.size();
      return {};
    }
    std::string_view out = d_.substr(at_, n);
    at_ += n;
    return out;
  }
  uint64_t Big(size_t n) {
    std::string_view b = Take(n);
    uint64_t v = 0;
    for (unsigned char c : b) v = (v << 8) | c;
    return v;
  }
  std::string_view Rest() const { return d_.substr(at_); }
  bool failed() const { return failed_; }

 private:
  std::string_view d_;
  size_t at_ = 0;
  bool failed_ = false;
};

// --- POSIX TZ rules ("CET-1CEST,M3.5.0,M10.5.0/3"), as Go's tzset reads them.

// A number in [min, max] at the start of s.
std::optional<int> RuleNumber(std::string_view* s, int min, int max) {
  size_t i = 0;
  int n = 0;
  for (; i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9'; ++i) {
    n = n * 10 + ((*s)[i] - '0');
    if (n > max) return std::nullopt;
  }
  if (i == 0 || n < min) return std::nullopt;
  s->remove_prefix(i);
  return n;
}

// A zone abbreviation: three or more characters up to a digit, ',', '-'
// or '+', or anything between '<' and '>'.
bool RuleName(std::string_view* s) {
  if (s->empty()) return false;
  if ((*s)[0] == '<') {
    size_t end = s->find('>');
    if (end == std::string_view::npos) return false;
    s->remove_prefix(end + 1);
    return true;
  }
  size_t i = 0;
  while (i < s->size() && !(((*s)[i] >= '0' && (*s)[i] <= '9') || (*s)[i] == ',' || (*s)[i] == '-' || (*s)[i] == '+')) {
    ++i;
  }
  if (i < 3) return false;
  s->remove_prefix(i);
  return true;
}

// [+-]hh[:mm[:ss]], hours up to 24*7 as tzcode allows; seconds.
std::optional<int> RuleOffset(std::string_view* s) {
  if (s->empty()) return std::nullopt;
  bool neg = false;
  if ((*s)[0] == '+' || (*s)[0] == '-') {
    neg = (*s)[0] == '-';
    s->remove_prefix(1);
  }
  std::optional<int> h = RuleNumber(s, 0, 24 * 7);
  if (!h) return std::nullopt;
  int off = *h * 3600;
  for (int mult : {60, 1}) {
    if (s->empty() || (*s)[0] != ':') break;
    s->remove_prefix(1);
    std::optional<int> n = RuleNumber(s, 0, 59);
    if (!n) return std::nullopt;
    off += *n * mult;
  }
  return neg ? -off : off;
}

struct Rule {
  enum Kind { kJulian, kDayOfYear, kMonthWeekDay } kind = kJulian;
  int day = 0, week = 0, month = 0;
  int time = 2 * 3600;  // 02:00 unless given
};

std::optional<Rule> RuleDate(std::string_view* s) {
  Rule r;
  if (s->empty()) return std::nullopt;
  if ((*s)[0] == 'J') {
    s->remove_prefix(1);
    std::optional<int> d = RuleNumber(s, 1, 365);
    if (!d) return std::nullopt;
    r.kind = Rule::kJulian;
    r.day = *d;
  } else if ((*s)[0] == 'M') {
    s->remove_prefix(1);
    std::optional<int> m = RuleNumber(s, 1, 12);
    if (!m || s->empty() || (*s)[0] != '.') return std::nullopt;
    s->remove_prefix(1);
    std::optional<int> w = RuleNumber(s, 1, 5);
    if (!w || s->empty() || (*s)[0] != '.') return std::nullopt;
    s->remove_prefix(1);
    std::optional<int> d = RuleNumber(s, 0, 6);
    if (!d) return std::nullopt;
    r.kind = Rule::kMonthWeekDay;
    r.month = *m;
    r.week = *w;
    r.day = *d;
  } else {
    std::optional<int> d = RuleNumber(s, 0, 365);
    if (!d) return std::nullopt;
    r.kind = Rule::kDayOfYear;
    r.day = *d;
  }
  if (s->empty() || (*s)[0] != '/') return r;
  s->remove_prefix(1);
  std::optional<int> t = RuleOffset(s);
  if (!t) return std::nullopt;
  r.time = *t;
  return r;
}

bool IsLeapYear(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

// Seconds from the start of `year` (UTC) to the rule's moment, for a zone
// `offset` seconds east of UTC before it.
int64_t RuleTime(int64_t year, const Rule& r, int offset) {
  static constexpr int kDaysBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = IsLeapYear(year);
  int64_t day = 0;
  switch (r.kind) {
    case Rule::kJulian:
      // 1-365, never counting February 29.
      day = r.day - 1 + (leap && r.day >= 60 ? 1 : 0);
      break;
    case Rule::kDayOfYear:
      day = r.day;
      break;
    case Rule::kMonthWeekDay: {
      // The first `r.day` weekday of the month, then week - 1 more weeks
      // while still in the month (week 5: the last).
      const int64_t month_start = kDaysBefore[r.month - 1] + (leap && r.month > 2 ? 1 : 0);
      const int64_t first_of_month = DaysFromCivil(year, r.month, 1);
      const int dow = static_cast<int>(((first_of_month % 7) + 11) % 7);  // 1970-01-01 was a Thursday
      int d = r.day - dow;
      if (d < 0) d += 7;
      const int days_in = kDaysIn[r.month - 1] + (leap && r.month == 2 ? 1 : 0);
      for (int i = 1; i < r.week; ++i) {
        if (d + 7 >= days_in) break;
        d += 7;
      }
      day = month_start + d;
      break;
    }
  }
  return day * kSecondsPerDay + r.time - offset;
}

// The offset a POSIX TZ rule gives at `sec`, or nullopt when the rule is
// malformed (Go then keeps the last transition's).
std::optional<int32_t> RuleOffsetAt(std::string_view s, int64_t sec) {
  if (!RuleName(&s)) return std::nullopt;
  std::optional<int> std_off = RuleOffset(&s);
  if (!std_off) return std::nullopt;
  // POSIX offsets are west of UTC.
  int std_offset = -*std_off;
  if (s.empty() || s[0] == ',') return std_offset;
  if (!RuleName(&s)) return std::nullopt;
  int dst_offset = std_offset + 3600;
  if (!s.empty() && s[0] != ',') {
    std::optional<int> d = RuleOffset(&s);
    if (!d) return std::nullopt;
    dst_offset = -*d;
  }
  if (s.empty()) s = ",M3.2.0,M11.1.0";  // tzcode's default rules
  if (s[0] != ',' && s[0] != ';') return std::nullopt;
  s.remove_prefix(1);
  std::optional<Rule> start = RuleDate(&s);
  if (!start || s.empty() || s[0] != ',') return std::nullopt;
  s.remove_prefix(1);
  std::optional<Rule> end = RuleDate(&s);
  if (!end || !s.empty()) return std::nullopt;
  const CivilTime c = ToCivil(sec, 0);
  const int64_t into_year = static_cast<int64_t>(c.yday) * kSecondsPerDay + c.hour * 3600 + c.minute * 60 + c.second;
  int64_t start_sec = RuleTime(c.year, *start, std_offset);
  int64_t end_sec = RuleTime(c.year, *end, dst_offset);
  // Southern hemisphere: daylight time spans the new year.
  if (end_sec < start_sec) {
    std::swap(start_sec, end_sec);
    std::swap(std_offset, dst_offset);
  }
  if (into_year < start_sec || into_year >= end_sec) return std_offset;
  return dst_offset;
}

}  // namespace

TimeZone TimeZone::Utc() {
  TimeZone z;
  z.types_.push_back(Type{});
  z.transitions_.push_back(Transition{std::numeric_limits<int64_t>::min(), 0});
  return z;
}

util::StatusOr<TimeZone> TimeZone::FromTzif(const std::string& data) {
  Reader r(data);
  if (r.Take(4) != "TZif") return util::InvalidArgument(kMalformed);
  std::string_view header = r.Take(16);
  if (header.size() != 16) return util::InvalidArgument(kMalformed);
  int version = 0;
  if (header[0] == '\0') {
    version = 1;
  } else if (header[0] == '2' || header[0] == '3') {
    version = header[0] - '0';
  } else {
    return util::InvalidArgument(kMalformed);
  }
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  uint64_t n[6];
  auto counts = [&] {
    for (uint64_t& c : n) c = r.Big(4);
    return !r.failed();
  };
  if (!counts()) return util::InvalidArgument(kMalformed);
  size_t time_size = 4;
  if (version > 1) {
    // Skip the 32-bit data and the second header's magic and version.
    r.Take(n[3] * 4 + n[3] + n[4] * 6 + n[5] + n[2] * 8 + n[1] + n[0] + 4 + 16);
    if (!counts()) return util::InvalidArgument(kMalformed);
    time_size = 8;
  }
  std::string_view times = r.Take(n[3] * time_size);
  std::string_view indices = r.Take(n[3]);
  std::string_view type_data = r.Take(n[4] * 6);
  std::string_view abbrevs = r.Take(n[5]);
  r.Take(n[2] * (time_size + 4));  // leap seconds: unused, as in Go
  r.Take(n[1]);
  r.Take(n[0]);
  if (r.failed() || n[4] == 0) return util::InvalidArgument(kMalformed);
  TimeZone z;
  std::string_view rest = r.Rest();
  if (rest.size() > 2 && rest.front() == '\n' && rest.back() == '\n') z.rule_ = rest.substr(1, rest.size() - 2);
  Reader types(type_data);
  for (uint64_t k = 0; k < n[4]; ++k) {
    Type t;
    t.offset = static_cast<int32_t>(static_cast<uint32_t>(types.Big(4)));
    t.dst = types.Big(1) != 0;
    if (types.Big(1) >= abbrevs.size()) return util::InvalidArgument(kMalformed);
    z.types_.push_back(t);
  }
  Reader when(times);
  for (uint64_t k = 0; k < n[3]; ++k) {
    Transition t;
    const uint64_t raw = when.Big(time_size);
    t.at = time_size == 4 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(raw)))
                          : static_cast<int64_t>(raw);
    t.type = static_cast<uint8_t>(indices[k]);
    if (t.type >= z.types_.size()) return util::InvalidArgument(kMalformed);
    z.transitions_.push_back(t);
  }
  // A zone without transitions (Etc/GMT+5) has its first type throughout.
  if (z.transitions_.empty()) z.transitions_.push_back(Transition{std::numeric_limits<int64_t>::min(), 0});
  return z;
}

size_t TimeZone::FirstType() const {
  // Go's choice for moments before the first transition: the first type
  // if no transition uses it; else the standard type before the first
  // transition's daylight type; else the first standard type; else the
  // first.
  bool used = false;
  for (const Transition& t : transitions_) used = used || t.type == 0;
  if (!used) return 0;
  if (types_[transitions_[0].type].dst) {
    for (size_t k = transitions_[0].type; k-- > 0;) {
      if (!types_[k].dst) return k;
    }
  }
  for (size_t k = 0; k < types_.size(); ++k) {
    if (!types_[k].dst) return k;
  }
  return 0;
}

int32_t TimeZone::OffsetAt(int64_t sec) const {
  if (sec < transitions_[0].at) return types_[FirstType()].offset;
  size_t lo = 0, hi = transitions_.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (sec < transitions_[mid].at) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  if (lo == transitions_.size() - 1 && !rule_.empty()) {
    if (std::optional<int32_t> off = RuleOffsetAt(rule_, sec)) return *off;
  }
  return types_[transitions_[lo].type].offset;
}

namespace {

// Reads a file as Go's time package does: ENOENT tells "not here" from
// other failures, whose message is the errno's.
struct FileRead {
  std::string data;
  int error = 0;  // errno, 0 when read
};

FileRead ReadZoneFile(const std::string& path) {
  FileRead out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = errno;
    return out;
  }
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      out.error = errno;
      break;
    }
    if (n == 0) break;
    out.data.append(buf, static_cast<size_t>(n));
    if (out.data.size() > (10 << 20)) {  // Go's limit
      out.error = EFBIG;
      break;
    }
  }
  ::close(fd);
  return out;
}

// Go's errno strings are glibc's, lower-cased.
std::string ErrnoText(int e) {
  std::string s = std::strerror(e);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

// The zone `name` from the first of `dirs` that has it; Go's first error
// otherwise.
util::StatusOr<TimeZone> LoadFrom(const std::string& name, const std::vector<const char*>& dirs) {
  std::optional<util::Status> first;
  for (const char* dir : dirs) {
    FileRead f = ReadZoneFile(std::string(dir) + name);
    if (f.error == ENOENT) continue;
    if (f.error != 0) {
      if (!first) first = util::InvalidArgument(ErrnoText(f.error));
      continue;
    }
    util::StatusOr<TimeZone> z = TimeZone::FromTzif(f.data);
    if (z.ok()) return z;
    if (!first) first = z.status();
  }
  if (first) return *first;
  return util::NotFound("unknown time zone " + name);
}

const std::vector<const char*>& PlatformDirs() {
  // Go's platform sources on Unix, in its order.
  static const std::vector<const char*> kDirs = {"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/",
                                                 "/usr/lib/locale/TZ/", "/etc/zoneinfo/"};
  return kDirs;
}

// Go's Local: TZ names the zone (a path, a name, or "" for UTC); unset, it
// is /etc/localtime; UTC when neither loads.
TimeZone LocalZone() {
  const char* tz = std::getenv("TZ");
  if (!tz) {
    util::StatusOr<TimeZone> z = LoadFrom("localtime", {"/etc/"});
    if (z.ok()) return std::move(z).value();
    return TimeZone::Utc();
  }
  std::string name = tz;
  if (!name.empty() && name[0] == ':') name.erase(0, 1);
  if (!name.empty() && name[0] == '/') {
    util::StatusOr<TimeZone> z = LoadFrom(name, {""});
    if (z.ok()) return std::move(z).value();
  } else if (!name.empty() && name != "UTC") {
    util::StatusOr<TimeZone> z = LoadFrom(name, PlatformDirs());
    if (z.ok()) return std::move(z).value();
  }
  return TimeZone::Utc();
}

}  // namespace

util::StatusOr<std::shared_ptr<const TimeZone>> LoadTimeZone(const std::string& name) {
  static const auto* utc = new std::shared_ptr<const TimeZone>(std::make_shared<const TimeZone>(TimeZone::Utc()));
  if (name.empty() || name == "UTC") return *utc;
  if (name == "Local") {
    static const auto* local = new std::shared_ptr<const TimeZone>(std::make_shared<const TimeZone>(LocalZone()));
    return *local;
  }
  // No zone name has "..", or starts with a slash.
  if (name.find("..") != std::string::npos || name[0] == '/' || name[0] == '\\') {
    return util::InvalidArgument("time: invalid location name");
  }
  // A path cannot hold NUL; Go's open refuses it.
  if (name.find('\0') != std::string::npos) return util::InvalidArgument("invalid argument");
  // Answers are kept: selectors name few zones, and reading files per
  // evaluation would be slow. Zones loaded are bounded by the files there
  // are; failures, whose names are arbitrary, by kMaxFailures.
  constexpr size_t kMaxFailures = 1024;
  static std::mutex mu;
  static auto* zones = new std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>>();
  static auto* failures = new std::map<std::string, util::Status, std::less<>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = zones->find(name); it != zones->end()) return it->second;
    if (auto it = failures->find(name); it != failures->end()) return it->second;
  }
  util::StatusOr<TimeZone> z = LoadFrom(name, PlatformDirs());
  std::lock_guard<std::mutex> lock(mu);
  if (!z.ok()) {
    if (failures->size() < kMaxFailures) failures->emplace(name, z.status());
    return z.status();
  }
  auto shared = std::make_shared<const TimeZone>(std::move(z).value());
  zones->emplace(name, shared);
  return shared;
}

}  // namespace ksched::cel
