// Go's float64 <-> string conventions where CEL exposes them: string(double)
// prints like Go's fmt.Sprintf("%g", d) ("1e+06", "0.1", "+Inf"),
// and double(string) accepts what strconv.ParseFloat(s, 64) accepts for
// decimal and hexadecimal ("0x1p-2") numbers with underscores between digits,
// "inf" and "nan".
#pragma once

#include <string>

namespace ksched::cel {

std::string FormatGoDouble(double d);
bool ParseGoFloat(const std::string& s, double* out);

}  // namespace ksched::cel
