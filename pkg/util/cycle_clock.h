// CycleClock: a cheap monotonic tick counter for timing stretches of code
// that are themselves short — the per-node plugin durations of sampled
// scheduling cycles — where a steady_clock read (about 25 ns through the
// vDSO here) costs as much as the code it times. It is a measuring tool,
// not a time source: nothing may wait on it (code that waits takes an
// injected util::Clock).
//
// On x86-64, when the kernel itself keeps time with the TSC (clocksource
// "tsc": the counter is invariant and synchronized across CPUs), Now() is
// one RDTSC (about 10 ns) and the tick rate is calibrated once against
// steady_clock over a few milliseconds. Anywhere else a tick is a
// steady_clock nanosecond.
//
// Thread-safety: every function is thread-safe; the calibration runs once,
// on first use.
#pragma once

#include <cstdint>

namespace ksched::util {

class CycleClock {
 public:
  // Ticks since an arbitrary epoch.
  static int64_t Now();
  // Nanoseconds per tick (1 when ticks are steady_clock nanoseconds).
  static double NanosPerTick();
  // Whether Now() reads the TSC.
  static bool UsesTsc();
};

}  // namespace ksched::util
