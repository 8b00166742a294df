// TimeZone: the UTC offset of a named zone at any moment, read as Go's
// time.LoadLocation reads one (and so as cel-go's getters with a time-zone
// argument see it): the TZif file /usr/share/zoneinfo/<name> (Debian's
// tzdata package), its transitions, and past the last one the POSIX TZ
// rule at the file's end. "" and "UTC" are UTC; "Local" is the process's
// zone, as Go takes it (TZ, else /etc/localtime, else UTC).
//
// Thread-safety: zones are immutable; LoadTimeZone caches its answers
// under a mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel {

class TimeZone {
 public:
  // Seconds east of UTC at the moment `unix_seconds`.
  int32_t OffsetAt(int64_t unix_seconds) const;

  // A zone from TZif data (versions 1 to 3, as Go accepts), or Go's error.
  static util::StatusOr<TimeZone> FromTzif(const std::string& data);
  static TimeZone Utc();

 private:
  struct Type {
    int32_t offset = 0;
    bool dst = false;
  };
  struct Transition {
    int64_t at = 0;
    uint8_t type = 0;
  };
  size_t FirstType() const;

  std::vector<Type> types_;
  std::vector<Transition> transitions_;
  std::string rule_;  // the POSIX TZ string for moments after the last transition
};

// Go's time.LoadLocation(name), with its error messages ("unknown time
// zone X", "time: invalid location name", "malformed time zone
// information").
util::StatusOr<std::shared_ptr<const TimeZone>> LoadTimeZone(const std::string& name);

}  // namespace ksched::cel
