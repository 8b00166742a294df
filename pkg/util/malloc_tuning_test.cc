#include "pkg/util/malloc_tuning.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace ksched::util {
namespace {

std::optional<MallocTuning> DecideWith(const std::map<std::string, std::string>& env) {
  return DecideMallocTuning([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(MallocTuningTest, KeepsFreedHeapUnlessTheOperatorTunedMalloc) {
  std::optional<MallocTuning> t = DecideWith({{"MALLOC_ARENA_MAX", "2"}});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->top_pad, size_t{4} << 20);
  EXPECT_EQ(t->trim_threshold, size_t{16} << 20);
  EXPECT_FALSE(DecideWith({{"MALLOC_TOP_PAD_", "0"}}).has_value());
  EXPECT_FALSE(DecideWith({{"MALLOC_TRIM_THRESHOLD_", "131072"}}).has_value());
}

}  // namespace
}  // namespace ksched::util
