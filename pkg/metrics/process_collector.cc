#include "pkg/metrics/process_collector.h"

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <system_error>

namespace ksched::metrics {

namespace {

// Go's procfs reports "unlimited" as math.MaxUint64; as a float that is 2^64.
constexpr double kUnlimited = static_cast<double>(std::numeric_limits<std::uint64_t>::max());

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<double> ParseNumber(std::string_view s) {
  double v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> SplitFields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\n') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// The soft limit of one /proc/<pid>/limits row, e.g.
// "Max open files            1024                 1048576              files".
std::optional<double> SoftLimit(std::string_view limits, std::string_view row_name) {
  std::size_t pos = 0;
  while (pos < limits.size()) {
    std::size_t eol = limits.find('\n', pos);
    if (eol == std::string_view::npos) eol = limits.size();
    std::string_view line = limits.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.substr(0, row_name.size()) != row_name) continue;
    auto fields = SplitFields(line.substr(row_name.size()));
    if (fields.empty()) return std::nullopt;
    if (fields[0] == "unlimited") return kUnlimited;
    return ParseNumber(fields[0]);
  }
  return std::nullopt;
}

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
  return f;
}

}  // namespace

ProcessCollector::ProcessCollector(std::string proc_root, std::string pid)
    : proc_root_(std::move(proc_root)),
      pid_dir_(proc_root_ + "/" + pid),
      clock_ticks_per_second_(static_cast<double>(sysconf(_SC_CLK_TCK))),
      page_size_(static_cast<double>(sysconf(_SC_PAGESIZE))) {}

ProcessStats ProcessCollector::Read() const {
  ProcessStats s;

  if (auto stat = ReadFile(pid_dir_ + "/stat")) {
    // The command name (field 2) is in parentheses and may itself contain
    // spaces and parentheses, so fields are counted from the last ')'.
    std::size_t close = stat->rfind(')');
    if (close != std::string::npos) {
      auto f = SplitFields(std::string_view(*stat).substr(close + 1));
      // f[0] is field 3 (state); field n is f[n - 3].
      constexpr std::size_t kUtime = 14 - 3, kStime = 15 - 3, kStartTime = 22 - 3,
                            kVsize = 23 - 3, kRss = 24 - 3;
      if (f.size() > kRss) {
        auto utime = ParseNumber(f[kUtime]);
        auto stime = ParseNumber(f[kStime]);
        if (utime && stime) s.cpu_seconds = (*utime + *stime) / clock_ticks_per_second_;
        if (auto v = ParseNumber(f[kVsize])) s.virtual_memory_bytes = *v;
        if (auto v = ParseNumber(f[kRss])) s.resident_memory_bytes = *v * page_size_;
        auto start_ticks = ParseNumber(f[kStartTime]);
        std::optional<double> btime;
        if (auto proc_stat = ReadFile(proc_root_ + "/stat")) {
          // A leading newline lets "btime" match on the first line too.
          const std::string ps = "\n" + *proc_stat;
          std::size_t p = ps.find("\nbtime ");
          if (p != std::string_view::npos) {
            auto rest = SplitFields(std::string_view(ps).substr(p + 7, 32));
            if (!rest.empty()) btime = ParseNumber(rest[0]);
          }
        }
        if (start_ticks && btime) {
          s.start_time_seconds = *btime + *start_ticks / clock_ticks_per_second_;
        }
      }
    }
  }

  std::error_code ec;
  std::filesystem::directory_iterator it(pid_dir_ + "/fd", ec);
  if (!ec) {
    double n = 0;
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      ++n;
    }
    if (!ec) s.open_fds = n;
  }

  if (auto limits = ReadFile(pid_dir_ + "/limits")) {
    s.max_fds = SoftLimit(*limits, "Max open files");
    s.virtual_memory_max_bytes = SoftLimit(*limits, "Max address space");
  }
  return s;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  ProcessStats s = Read();
  std::vector<prometheus::MetricFamily> out;
  auto add = [&](const std::optional<double>& v, const char* name, const char* help,
                 MetricType type) {
    if (v) out.push_back(Family(name, help, type, *v));
  };
  add(s.cpu_seconds, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
      MetricType::Counter);
  add(s.open_fds, "process_open_fds", "Number of open file descriptors.", MetricType::Gauge);
  add(s.max_fds, "process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge);
  add(s.virtual_memory_bytes, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
      MetricType::Gauge);
  add(s.virtual_memory_max_bytes, "process_virtual_memory_max_bytes",
      "Maximum amount of virtual memory available in bytes.", MetricType::Gauge);
  add(s.resident_memory_bytes, "process_resident_memory_bytes", "Resident memory size in bytes.",
      MetricType::Gauge);
  add(s.start_time_seconds, "process_start_time_seconds",
      "Start time of the process since unix epoch in seconds.", MetricType::Gauge);
  return out;
}

}  // namespace ksched::metrics
