#include "pkg/scheduler/apiwriter/wire_time.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ksched::scheduler::apiwriter {

namespace {

// "YYYY-MM-DDTHH:MM:SS" for the whole second at or before `t`, plus the
// microseconds within that second.
std::string FormatSeconds(api::Time t, long* micros) {
  auto secs = std::chrono::floor<std::chrono::seconds>(t);
  *micros =
      static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count());
  std::time_t tt = static_cast<std::time_t>(secs.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf, n);
}

}  // namespace

std::string FormatWireTime(api::Time t) {
  long micros = 0;
  return FormatSeconds(t, &micros) + "Z";
}

std::string FormatWireMicroTime(api::Time t) {
  long micros = 0;
  std::string s = FormatSeconds(t, &micros);
  char frac[16];
  std::snprintf(frac, sizeof(frac), ".%06ldZ", micros);
  return s + frac;
}

}  // namespace ksched::scheduler::apiwriter
