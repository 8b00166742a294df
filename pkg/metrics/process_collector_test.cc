#include "pkg/metrics/process_collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "pkg/metrics/exposition.h"

namespace ksched::metrics {
namespace {

namespace fs = std::filesystem;

class FakeProc {
 public:
  FakeProc() {
    char tmpl[] = "/tmp/ksched-fakeproc-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "42" / "fd");
  }
  ~FakeProc() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void Write(const fs::path& rel, const std::string& content) {
    std::ofstream(root_ / rel) << content;
  }
  std::string root() const { return root_.string(); }
  fs::path path() const { return root_; }

 private:
  fs::path root_;
};

// A /proc/<pid>/stat line whose command name contains ") (" and spaces, to
// check that fields are counted from the last ')'.
std::string StatLine(long utime, long stime, long starttime, long vsize, long rss) {
  std::string s = "42 (weird ) (name) S 1 42 42 0 -1 4194560 1000 0 0 0 ";
  s += std::to_string(utime) + " " + std::to_string(stime);
  s += " 0 0 20 0 12 0 ";
  s += std::to_string(starttime) + " " + std::to_string(vsize) + " " + std::to_string(rss);
  s += " 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  return s;
}

const char kLimits[] =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max address space         unlimited            unlimited            bytes     \n"
    "Max open files            1024                 524288               files     \n";

TEST(ProcessCollectorTest, ReadsFixtureTree) {
  FakeProc proc;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  proc.Write("42/stat", StatLine(250, 150, 5000, 123456789, 1000));
  proc.Write("stat", "cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n");
  proc.Write("42/limits", kLimits);
  for (int i = 0; i < 5; ++i) proc.Write("42/fd/" + std::to_string(i), "");

  ProcessCollector c(proc.root(), "42");
  ProcessStats s = c.Read();
  ASSERT_TRUE(s.cpu_seconds);
  EXPECT_DOUBLE_EQ(*s.cpu_seconds, 400 / hz);
  ASSERT_TRUE(s.virtual_memory_bytes);
  EXPECT_EQ(*s.virtual_memory_bytes, 123456789);
  ASSERT_TRUE(s.resident_memory_bytes);
  EXPECT_EQ(*s.resident_memory_bytes, 1000 * page);
  ASSERT_TRUE(s.start_time_seconds);
  EXPECT_DOUBLE_EQ(*s.start_time_seconds, 1700000000 + 5000 / hz);
  ASSERT_TRUE(s.open_fds);
  EXPECT_EQ(*s.open_fds, 5);
  ASSERT_TRUE(s.max_fds);
  EXPECT_EQ(*s.max_fds, 1024);
  ASSERT_TRUE(s.virtual_memory_max_bytes);
  EXPECT_EQ(FormatFloat(*s.virtual_memory_max_bytes), "1.8446744073709552e+19");

  const std::string text = SerializeText(c.Collect());
  EXPECT_NE(text.find("# HELP process_cpu_seconds_total Total user and system CPU time spent in "
                      "seconds.\n# TYPE process_cpu_seconds_total counter\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE process_open_fds gauge\nprocess_open_fds 5\n"), std::string::npos);
  EXPECT_NE(text.find("process_max_fds 1024\n"), std::string::npos);
  EXPECT_NE(text.find("process_virtual_memory_bytes 1.23456789e+08\n"), std::string::npos) << text;
}

TEST(ProcessCollectorTest, MissingFilesLeaveMetricsOut) {
  FakeProc proc;
  proc.Write("42/stat", "garbage");
  ProcessCollector c(proc.root(), "42");
  ProcessStats s = c.Read();
  EXPECT_FALSE(s.cpu_seconds);
  EXPECT_FALSE(s.start_time_seconds);
  EXPECT_FALSE(s.max_fds);
  ASSERT_TRUE(s.open_fds);  // the fd directory exists and is empty
  EXPECT_EQ(*s.open_fds, 0);
  const auto families = c.Collect();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "process_open_fds");

  ProcessCollector nowhere(proc.root() + "/nonexistent", "self");
  EXPECT_TRUE(nowhere.Collect().empty());
}

TEST(ProcessCollectorTest, RealProcessIsSane) {
  ProcessCollector c;
  ProcessStats s = c.Read();
  ASSERT_TRUE(s.resident_memory_bytes && s.virtual_memory_bytes && s.cpu_seconds &&
              s.start_time_seconds && s.open_fds && s.max_fds && s.virtual_memory_max_bytes);
  EXPECT_GT(*s.resident_memory_bytes, 0);
  EXPECT_GE(*s.virtual_memory_bytes, *s.resident_memory_bytes);
  EXPECT_GE(*s.cpu_seconds, 0);
  EXPECT_GE(*s.open_fds, 3);  // stdin, stdout, stderr at least
  EXPECT_GE(*s.max_fds, *s.open_fds);
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  // This test process started moments ago; allow for a slow CI machine and
  // for btime's one-second resolution.
  EXPECT_LE(*s.start_time_seconds, now + 2);
  EXPECT_GT(*s.start_time_seconds, now - 600);
  EXPECT_EQ(c.Collect().size(), 7u);
}

}  // namespace
}  // namespace ksched::metrics
