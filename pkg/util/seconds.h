// Seconds: a duration as floating-point seconds, the unit of every
// Prometheus duration histogram.
//
// Thread-safety: a pure function.
#pragma once

#include <chrono>

#include "pkg/util/clock.h"

namespace ksched::util {

inline double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace ksched::util
