#include "test/bench/insn_baseline.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

namespace ksched::bench {
namespace {

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

bool ParseDouble(std::string_view s, double* out) {
  // std::from_chars for double is in GCC 12's libstdc++.
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*out);
}

bool ParseInt(std::string_view s, int64_t* out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

util::StatusOr<Baseline> ParseBaseline(std::string_view text) {
  Baseline b;
  int line_no = 0;
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string_view line = TrimRight(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {
      std::string_view c = line.substr(1);
      if (!c.empty() && c.front() == ' ') c.remove_prefix(1);
      b.comments.emplace_back(c);
      continue;
    }
    const std::vector<std::string_view> f = SplitTabs(line);
    BaselineEntry e;
    if (f.size() != 4 || f[0].empty() || !ParseDouble(f[1], &e.scale) || !ParseInt(f[2], &e.pods) ||
        !ParseDouble(f[3], &e.instructions_per_pod)) {
      return util::InvalidArgument(fmt::format(
          "line {}: want workload<TAB>scale<TAB>pods<TAB>instructions_per_pod, got \"{}\"", line_no, line));
    }
    e.workload = std::string(f[0]);
    if (e.scale <= 0 || e.pods < 0 || e.instructions_per_pod <= 0) {
      return util::InvalidArgument(fmt::format("line {}: scale and instructions_per_pod must be positive", line_no));
    }
    if (FindEntry(b, e.workload) != nullptr) {
      return util::InvalidArgument(fmt::format("line {}: {} listed twice", line_no, e.workload));
    }
    b.entries.push_back(std::move(e));
  }
  return b;
}

std::string FormatBaseline(const Baseline& baseline) {
  std::string out;
  for (const std::string& c : baseline.comments) out += c.empty() ? "#\n" : "# " + c + "\n";
  for (const BaselineEntry& e : baseline.entries) {
    out += fmt::format("{}\t{}\t{}\t{:.0f}\n", e.workload, e.scale, e.pods, e.instructions_per_pod);
  }
  return out;
}

const BaselineEntry* FindEntry(const Baseline& baseline, std::string_view workload) {
  for (const BaselineEntry& e : baseline.entries) {
    if (e.workload == workload) return &e;
  }
  return nullptr;
}

util::StatusOr<uint64_t> ParseCallgrindTotal(std::string_view text) {
  std::optional<uint64_t> totals;
  std::optional<uint64_t> summary;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = TrimRight(text.substr(pos, eol - pos));
    pos = eol + 1;
    for (const auto& [key, slot] : {std::pair{std::string_view("totals:"), &totals},
                                    std::pair{std::string_view("summary:"), &summary}}) {
      if (line.substr(0, key.size()) != key) continue;
      std::string_view v = line.substr(key.size());
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      v = v.substr(0, v.find(' '));  // the first event: Ir
      uint64_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || v.empty()) {
        return util::InvalidArgument(fmt::format("callgrind output: bad line \"{}\"", line));
      }
      *slot = n;
    }
  }
  if (totals) return *totals;
  if (summary) return *summary;
  return util::InvalidArgument("callgrind output has no totals: or summary: line");
}

Comparison CompareWithBaseline(const BaselineEntry& baseline, double measured, double tolerance_percent) {
  Comparison c;
  c.workload = baseline.workload;
  c.baseline = baseline.instructions_per_pod;
  c.measured = measured;
  if (!(baseline.instructions_per_pod > 0)) {
    c.verdict = Verdict::kRegressed;
    c.message = fmt::format("{}: the baseline's count ({}) is not positive; regenerate it (make insn-baseline)",
                            c.workload, c.baseline);
    return c;
  }
  c.change_percent = (measured - baseline.instructions_per_pod) / baseline.instructions_per_pod * 100.0;
  const std::string figures = fmt::format("{}: {:.0f} instructions per pod against the baseline's {:.0f} ({:+.2f} %)",
                                          c.workload, measured, c.baseline, c.change_percent);
  if (c.change_percent > tolerance_percent) {
    c.verdict = Verdict::kRegressed;
    c.message = fmt::format("REGRESSED {}, more than +{} %", figures, tolerance_percent);
  } else if (c.change_percent < -tolerance_percent) {
    c.verdict = Verdict::kImproved;
    c.message = fmt::format("IMPROVED {}, more than -{} %: lower the baseline (make insn-baseline)", figures,
                            tolerance_percent);
  } else {
    c.verdict = Verdict::kWithin;
    c.message = fmt::format("ok {}", figures);
  }
  return c;
}

}  // namespace ksched::bench
