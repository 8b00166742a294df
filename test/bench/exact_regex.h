// The std::regex (ECMAScript) that matches exactly one literal string: how
// the bench drivers hand a single workload name to scheduler_perf's
// --workload, which takes regexes.
#ifndef KSCHED_TEST_BENCH_EXACT_REGEX_H_
#define KSCHED_TEST_BENCH_EXACT_REGEX_H_

#include <string>
#include <string_view>

namespace ksched::bench {

inline std::string ExactRegex(std::string_view literal) {
  std::string out;
  for (char ch : literal) {
    if (std::string_view(".^$|()[]{}*+?\\").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace ksched::bench

#endif  // KSCHED_TEST_BENCH_EXACT_REGEX_H_
