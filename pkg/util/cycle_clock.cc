#include "pkg/util/cycle_clock.h"

#include <chrono>
#include <fstream>
#include <string>

namespace ksched::util {

namespace {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Calibration {
  bool tsc = false;
  double nanos_per_tick = 1.0;
};

#if defined(__x86_64__)
bool KernelKeepsTimeWithTsc() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return static_cast<bool>(in >> source) && source == "tsc";
}

Calibration Calibrate() {
  if (!KernelKeepsTimeWithTsc()) return {};
  // Busy-waits ~5 ms: the end points' read jitter (tens of ns) is then a
  // few parts per million of the rate.
  const int64_t ns0 = SteadyNanos();
  const uint64_t t0 = __rdtsc();
  int64_t ns1 = ns0;
  while (ns1 - ns0 < 5'000'000) ns1 = SteadyNanos();
  const uint64_t t1 = __rdtsc();
  if (t1 <= t0) return {};
  return {true, static_cast<double>(ns1 - ns0) / static_cast<double>(t1 - t0)};
}
#else
Calibration Calibrate() { return {}; }
#endif

const Calibration& Get() {
  static const Calibration c = Calibrate();
  return c;
}

}  // namespace

bool CycleClock::UsesTsc() {
  const bool tsc = Get().tsc;
  tsc_.store(tsc ? kYes : kNo, std::memory_order_relaxed);
  return tsc;
}

int64_t CycleClock::NowSlow() {
#if defined(__x86_64__)
  if (UsesTsc()) return static_cast<int64_t>(__rdtsc());
#endif
  return SteadyNanos();
}

double CycleClock::NanosPerTick() { return Get().nanos_per_tick; }

}  // namespace ksched::util
