#include "pkg/util/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

namespace ksched::util {

namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool ListHas(std::string_view comma_list, std::string_view item) {
  for (std::string_view v : Split(comma_list, ',')) {
    if (v == item) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 4, v, 8);
      if (ec == std::errc() && end == s.data() + i + 4) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// The process's cgroup path in the v1 hierarchy with the cpu controller and
// in the v2 hierarchy, from /proc/self/cgroup ("id:controllers:path" lines).
struct OwnCgroups {
  std::optional<std::string> v1_cpu;
  std::optional<std::string> v2;
};

OwnCgroups ParseOwnCgroups(std::string_view text) {
  OwnCgroups out;
  for (std::string_view line : Split(text, '\n')) {
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string path(line.substr(second + 1));  // may itself hold ':'
    if (id == "0" && controllers.empty()) {
      out.v2 = path;
    } else if (ListHas(controllers, "cpu")) {
      out.v1_cpu = path;
    }
  }
  return out;
}

// Where the cgroup2 hierarchy (v2) or the v1 hierarchy with the cpu
// controller is mounted: the mount's root within the hierarchy and its
// mount point. mountinfo fields: id parent dev root point options
// [optional...] - fstype source super-options.
struct Mount {
  std::string root;
  std::string point;
};

std::optional<Mount> FindMount(std::string_view mountinfo, bool v2) {
  for (std::string_view line : Split(mountinfo, '\n')) {
    const std::vector<std::string_view> f = Split(line, ' ');
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || dash == f.end() || f.end() - dash < 4) continue;
    const std::string_view fstype = dash[1];
    const std::string_view super_options = dash[3];
    if (v2 ? fstype == "cgroup2" : fstype == "cgroup" && ListHas(super_options, "cpu")) {
      return Mount{Unescape(f[3]), Unescape(f[4])};
    }
  }
  return std::nullopt;
}

// The directory of cgroup `path` under `mount`, or nullopt when the mount
// does not show it.
std::optional<std::string> CgroupDir(const Mount& mount, const std::string& path) {
  if (mount.root == "/") return path == "/" ? mount.point : mount.point + path;
  if (path == mount.root) return mount.point;
  if (path.starts_with(mount.root + "/")) return mount.point + path.substr(mount.root.size());
  return std::nullopt;
}

// cpu.cfs_quota_us (-1: no limit) over cpu.cfs_period_us.
std::optional<double> LimitFromCfs(std::string_view quota_text, std::string_view period_text) {
  const std::optional<int64_t> quota = ParseInt(quota_text);
  const std::optional<int64_t> period = ParseInt(period_text);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

// cpu.max: "max <period>" (no limit: "max" is not a number) or
// "<quota> <period>".
std::optional<double> LimitFromCpuMax(std::string_view text) {
  const std::vector<std::string_view> parts = Split(Trim(text), ' ');
  if (parts.size() != 2) return std::nullopt;
  return LimitFromCfs(parts[0], parts[1]);
}

std::optional<double> Lower(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

std::optional<double> CgroupCpuLimit(const FileReader& read) {
  const std::optional<std::string> own = read("/proc/self/cgroup");
  const std::optional<std::string> mountinfo = read("/proc/self/mountinfo");
  if (!own || !mountinfo) return std::nullopt;
  const OwnCgroups cgroups = ParseOwnCgroups(*own);
  std::optional<double> limit;
  if (cgroups.v1_cpu) {
    if (std::optional<Mount> mount = FindMount(*mountinfo, /*v2=*/false)) {
      if (std::optional<std::string> dir = CgroupDir(*mount, *cgroups.v1_cpu)) {
        const std::optional<std::string> quota = read(*dir + "/cpu.cfs_quota_us");
        const std::optional<std::string> period = read(*dir + "/cpu.cfs_period_us");
        if (quota && period) limit = Lower(limit, LimitFromCfs(*quota, *period));
      }
    }
  }
  if (cgroups.v2) {
    if (std::optional<Mount> mount = FindMount(*mountinfo, /*v2=*/true)) {
      if (std::optional<std::string> dir = CgroupDir(*mount, *cgroups.v2)) {
        if (std::optional<std::string> max = read(*dir + "/cpu.max")) limit = Lower(limit, LimitFromCpuMax(*max));
      }
    }
  }
  return limit;
}

int CoresWithin(int cpus, std::optional<double> limit) {
  int cores = std::max(1, cpus);
  if (limit) cores = std::min(cores, static_cast<int>(std::ceil(*limit)));
  return std::max(1, cores);
}

int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0
                       ? CPU_COUNT(&set)
                       : static_cast<int>(std::thread::hardware_concurrency());
  return CoresWithin(cpus, CgroupCpuLimit(ReadWholeFile));
}

}  // namespace ksched::util
