// The instruction-count guard's data (insn_count, issue 32): the checked-in
// baseline of instructions per scheduled pod, callgrind's totals, and the
// comparison that decides whether a workload regressed.
//
// Baseline file (test/bench/instructions_baseline.tsv): '#' lines are
// comments kept as written (the command and date that produced it), then
// one line per workload, tab-separated:
//   workload  scale  pods  instructions_per_pod
// e.g. "SchedulingBasic/5000Nodes_10000Pods\t0.1\t1000\t251234".
//
// Value types and pure functions; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::bench {

struct BaselineEntry {
  std::string workload;  // scheduler_perf's TestCase/workload name
  double scale = 1;      // scheduler_perf --scale
  int64_t pods = 0;      // pods scheduled in the measured phase
  double instructions_per_pod = 0;
};

struct Baseline {
  std::vector<std::string> comments;  // without the leading "# "
  std::vector<BaselineEntry> entries;
};

util::StatusOr<Baseline> ParseBaseline(std::string_view text);
std::string FormatBaseline(const Baseline& baseline);
// The entry for `workload`, or nullptr.
const BaselineEntry* FindEntry(const Baseline& baseline, std::string_view workload);

// The Ir total of a callgrind output file (its "totals:" line, or
// "summary:" when there is none; the first event is Ir by default).
util::StatusOr<uint64_t> ParseCallgrindTotal(std::string_view text);

enum class Verdict {
  kWithin,     // within ±tolerance of the baseline
  kRegressed,  // more than tolerance above: the check fails
  kImproved,   // more than tolerance below: passes, the baseline may be lowered
};

struct Comparison {
  std::string workload;
  double baseline = 0;
  double measured = 0;
  double change_percent = 0;  // (measured - baseline) / baseline * 100
  Verdict verdict = Verdict::kWithin;
  std::string message;  // one line naming the workload, both figures and the change
};

// Compares a measured count per pod with the baseline's; a change of exactly
// tolerance_percent is still within. A baseline of 0 or less compares as a
// regression (a broken file must not pass silently).
Comparison CompareWithBaseline(const BaselineEntry& baseline, double measured, double tolerance_percent);

}  // namespace ksched::bench
