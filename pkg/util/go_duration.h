// Go duration strings, as metav1.Duration reads and writes them.
//
// ParseGoDuration accepts what Go's time.ParseDuration accepts: an optional
// sign and a sequence of decimal numbers, each with an optional fraction and
// a unit ("ns", "us", "µs", "μs", "ms", "s", "m", "h"), e.g. "15s", "1m30s",
// "1.5h", "100ms"; the bare "0" needs no unit. Errors use Go's wording
// (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
// `time: unknown unit "d" in duration "1d"`). FormatGoDuration writes what
// Go's Duration.String writes ("15s", "2m17s", "1h0m0s", "1.5ms", "0s"), so
// the two round-trip.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::util {

util::StatusOr<util::Duration> ParseGoDuration(std::string_view s);
std::string FormatGoDuration(util::Duration d);

}  // namespace ksched::util
