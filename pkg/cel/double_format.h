// Go's number <-> string conventions where CEL exposes them: string(double)
// prints like Go's fmt.Sprintf("%g", d) ("1e+06", "0.1", "+Inf"),
// and double(string) accepts what strconv.ParseFloat(s, 64) accepts for
// decimal and hexadecimal ("0x1p-2") numbers with underscores between digits,
// "inf" and "nan"; uint(string) and the semver numbers read decimal digits
// as strconv.ParseUint(s, 10, 64) does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::cel {

std::string FormatGoDouble(double d);
bool ParseGoFloat(const std::string& s, double* out);
// Decimal digits only, no sign; empty or overflowing text fails.
bool ParseGoDecimalUint(std::string_view s, uint64_t* out);

}  // namespace ksched::cel
