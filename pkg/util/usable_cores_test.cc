#include "pkg/util/usable_cores.h"

#include <sched.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace ksched::util {
namespace {

// Files by path; any other path cannot be read.
FileReader Files(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

constexpr const char* kV2Mountinfo =
    "24 30 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
    "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";

TEST(CgroupCpuLimitTest, V2QuotaOverPeriod) {
  auto read = Files({{"/proc/self/cgroup", "0::/kubepods/burstable/pod1/c1\n"},
                     {"/proc/self/mountinfo", kV2Mountinfo},
                     {"/sys/fs/cgroup/kubepods/burstable/pod1/c1/cpu.max", "150000 100000\n"}});
  ASSERT_TRUE(CgroupCpuLimit(read).has_value());
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(read), 1.5);
}

TEST(CgroupCpuLimitTest, V2WithoutALimit) {
  auto read = Files({{"/proc/self/cgroup", "0::/\n"},
                     {"/proc/self/mountinfo", kV2Mountinfo},
                     {"/sys/fs/cgroup/cpu.max", "max 100000\n"}});
  EXPECT_FALSE(CgroupCpuLimit(read).has_value());
}

// A container's cgroup namespace: the process sees its cgroup as "/", and
// the mount's root is "/" too.
TEST(CgroupCpuLimitTest, V2InsideACgroupNamespace) {
  auto read = Files({{"/proc/self/cgroup", "0::/\n"},
                     {"/proc/self/mountinfo", kV2Mountinfo},
                     {"/sys/fs/cgroup/cpu.max", "50000 100000\n"}});
  ASSERT_TRUE(CgroupCpuLimit(read).has_value());
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(read), 0.5);
}

constexpr const char* kV1Mountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n";

// The hierarchy is mounted from /docker/abc: the cgroup's path below that
// root is what lies under the mount point.
TEST(CgroupCpuLimitTest, V1QuotaUnderAMountRoot) {
  auto read = Files({{"/proc/self/cgroup", "5:cpuset:/docker/abc\n4:cpu,cpuacct:/docker/abc/inner\n"},
                     {"/proc/self/mountinfo", kV1Mountinfo},
                     {"/sys/fs/cgroup/cpu,cpuacct/inner/cpu.cfs_quota_us", "200000\n"},
                     {"/sys/fs/cgroup/cpu,cpuacct/inner/cpu.cfs_period_us", "100000\n"}});
  ASSERT_TRUE(CgroupCpuLimit(read).has_value());
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(read), 2.0);
}

TEST(CgroupCpuLimitTest, V1WithoutAQuota) {
  auto read = Files({{"/proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n"},
                     {"/proc/self/mountinfo", kV1Mountinfo},
                     {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n"},
                     {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"}});
  EXPECT_FALSE(CgroupCpuLimit(read).has_value());
}

// A cgroup path outside the mount's root is not visible through it.
TEST(CgroupCpuLimitTest, APathOutsideTheMountRootIsNotRead) {
  auto read = Files({{"/proc/self/cgroup", "4:cpu,cpuacct:/other\n"},
                     {"/proc/self/mountinfo", kV1Mountinfo},
                     {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "100000\n"},
                     {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"}});
  EXPECT_FALSE(CgroupCpuLimit(read).has_value());
}

// Hybrid layout (v1 controllers and a v2 mount without the cpu
// controller): the v1 limit applies; with both, the lower one.
TEST(CgroupCpuLimitTest, HybridLayoutTakesTheLowerLimit) {
  const std::string mountinfo =
      std::string(kV1Mountinfo) + "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  std::map<std::string, std::string> files = {{"/proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n0::/\n"},
                                              {"/proc/self/mountinfo", mountinfo},
                                              {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n"},
                                              {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"}};
  ASSERT_TRUE(CgroupCpuLimit(Files(files)).has_value());
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(Files(files)), 3.0);
  files["/sys/fs/cgroup/unified/cpu.max"] = "100000 100000\n";
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(Files(files)), 1.0);
}

// mountinfo writes a space in a path as \040.
TEST(CgroupCpuLimitTest, EscapedMountPoints) {
  auto read = Files({{"/proc/self/cgroup", "0::/a\n"},
                     {"/proc/self/mountinfo", "35 24 0:30 / /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n"},
                     {"/sys/fs/my cgroup/a/cpu.max", "400000 100000\n"}});
  ASSERT_TRUE(CgroupCpuLimit(read).has_value());
  EXPECT_DOUBLE_EQ(*CgroupCpuLimit(read), 4.0);
}

TEST(CgroupCpuLimitTest, UnreadableOrMalformedFilesMeanNoLimit) {
  EXPECT_FALSE(CgroupCpuLimit(Files({})).has_value());
  EXPECT_FALSE(CgroupCpuLimit(Files({{"/proc/self/cgroup", "garbage"}, {"/proc/self/mountinfo", "garbage"}}))
                   .has_value());
  EXPECT_FALSE(CgroupCpuLimit(Files({{"/proc/self/cgroup", "0::/\n"},
                                     {"/proc/self/mountinfo", kV2Mountinfo},
                                     {"/sys/fs/cgroup/cpu.max", "lots 100000\n"}}))
                   .has_value());
}

TEST(CoresWithinTest, TheLimitRoundedUpCapsTheCpus) {
  EXPECT_EQ(CoresWithin(64, 1.5), 2);
  EXPECT_EQ(CoresWithin(64, 1.0), 1);
  EXPECT_EQ(CoresWithin(4, 0.1), 1);
  EXPECT_EQ(CoresWithin(2, 8.0), 2);
  EXPECT_EQ(CoresWithin(2, std::nullopt), 2);
  EXPECT_EQ(CoresWithin(0, std::nullopt), 1);
}

TEST(UsableCoresTest, AtLeastOneAndNoMoreThanTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const int cores = UsableCores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores, CPU_COUNT(&set));
}

}  // namespace
}  // namespace ksched::util
