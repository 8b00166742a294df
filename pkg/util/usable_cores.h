// UsableCores: how many CPUs this process can keep busy at once, for sizing
// thread pools. It is the number of CPUs the process may run on (its
// affinity mask, which a cpuset narrows), lowered to its cgroup's CPU limit
// rounded up (a Kubernetes CPU limit is such a quota). kube-scheduler's Go
// runtime sizes GOMAXPROCS the same way since Go 1.25;
// std::thread::hardware_concurrency() counts the machine's online CPUs, so
// a scheduler limited to 1 CPU on a 64-CPU node would start 16 threads to
// share one CPU's quota.
//
// The cgroup is found as Go finds it: /proc/self/cgroup names the process's
// cgroup per hierarchy, /proc/self/mountinfo where each hierarchy is
// mounted. cgroup v2's limit is cpu.max ("max 100000" or "150000 100000"),
// v1's cpu.cfs_quota_us / cpu.cfs_period_us (quota -1: none); on a hybrid
// layout the lower of the two applies. Only the process's own cgroup is
// read, not its ancestors' (container runtimes hide those anyway).
//
// Thread-safety: the functions keep no state.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace ksched::util {

// A file's content, or nullopt when it cannot be read.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

// The CPU limit, in CPUs, of the cgroup the process is in, read through
// `read` (given "/proc/self/cgroup", "/proc/self/mountinfo" and the limit
// files' paths); nullopt when there is none or it cannot be found.
std::optional<double> CgroupCpuLimit(const FileReader& read);

// min(cpus, ceil(limit)), at least 1.
int CoresWithin(int cpus, std::optional<double> limit);

// CoresWithin(the CPUs of this process's affinity mask, its cgroup's limit
// read from the real files).
int UsableCores();

}  // namespace ksched::util
