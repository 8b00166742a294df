// ProcessCollector: the Go client's process_* metrics for this process,
// read from procfs at every scrape, with the Go client's names, types and
// help texts:
//   process_cpu_seconds_total         counter  utime+stime, /proc/<pid>/stat
//   process_resident_memory_bytes     gauge    rss pages * page size
//   process_virtual_memory_bytes      gauge    vsize
//   process_virtual_memory_max_bytes  gauge    "Max address space" soft limit
//   process_open_fds                  gauge    entries of /proc/<pid>/fd
//   process_max_fds                   gauge    "Max open files" soft limit
//   process_start_time_seconds        gauge    btime (/proc/stat) + starttime
// An "unlimited" limit is exported as 2^64 (Go's procfs reports
// math.MaxUint64). A value that cannot be read is left out of the scrape,
// as the Go client does, rather than failing the scrape.
//
// The proc root and pid are parameters so tests can point the collector at
// a fixture tree.
//
// Thread-safety: Collect() and Read() are const and thread-safe.
// Cost: a few small file reads and one directory listing per scrape.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace ksched::metrics {

struct ProcessStats {
  std::optional<double> cpu_seconds;
  std::optional<double> resident_memory_bytes;
  std::optional<double> virtual_memory_bytes;
  std::optional<double> virtual_memory_max_bytes;
  std::optional<double> open_fds;
  std::optional<double> max_fds;
  std::optional<double> start_time_seconds;
};

class ProcessCollector final : public prometheus::Collectable {
 public:
  // Reads <proc_root>/<pid>/stat, <proc_root>/<pid>/fd, <proc_root>/<pid>/limits
  // and <proc_root>/stat.
  explicit ProcessCollector(std::string proc_root = "/proc", std::string pid = "self");

  ProcessStats Read() const;
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string proc_root_;
  const std::string pid_dir_;
  const double clock_ticks_per_second_;
  const double page_size_;
};

}  // namespace ksched::metrics
