// CoschedulingArgs through configuration loading: decoded from a profile's
// pluginConfig with the in-tree registry, errors at file:line:column with
// their field path, and config/ksched-gang.yaml loads.
#include "pkg/scheduler/plugins/coscheduling/args.h"

#include <gtest/gtest.h>

#include "pkg/config/load.h"
#include "pkg/scheduler/plugins/registry.h"

namespace ksched::scheduler::plugins::coscheduling {
namespace {

constexpr char kHeader[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched-gang
  plugins:
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
)";

config::KnownPlugins Known() {
  util::StatusOr<framework::Registry> r = InTreeRegistry();
  EXPECT_TRUE(r.ok());
  return r->Known();
}

config::LoadResult Load(const std::string& args) {
  return config::LoadConfig(std::string(kHeader) + args, "s.yaml", Known());
}

TEST(CoschedulingArgsTest, DecodedFromPluginConfig) {
  config::LoadResult r = Load("    args:\n      permitWaitingTimeSeconds: 30\n      podGroupBackoffSeconds: 5\n");
  ASSERT_TRUE(r.errors.empty()) << config::JoinErrors(r.errors);
  const CoschedulingArgs* a = config::GetPluginArgs<CoschedulingArgs>(r.config->profiles[0], "Coscheduling");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->permit_waiting_time_seconds, 30);
  EXPECT_EQ(a->pod_group_backoff_seconds, 5);
}

TEST(CoschedulingArgsTest, OmittedFieldsTakeTheDefaults) {
  config::LoadResult r = Load("    args: {}\n");
  ASSERT_TRUE(r.errors.empty()) << config::JoinErrors(r.errors);
  const CoschedulingArgs* a = config::GetPluginArgs<CoschedulingArgs>(r.config->profiles[0], "Coscheduling");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->permit_waiting_time_seconds, 60);
  EXPECT_EQ(a->pod_group_backoff_seconds, 0);
}

// kHeader ends at line 12; the args' fields start at line 14.
TEST(CoschedulingArgsTest, ErrorsPointIntoTheFile) {
  config::LoadResult r =
      Load("    args:\n      permitWaitingTimeSeconds: -1\n      podGroupBackoffSeconds: soon\n      extra: 1\n");
  std::vector<std::string> got;
  for (const config::FieldError& e : r.errors) got.push_back(e.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "s.yaml:15:31: profiles[0].pluginConfig[0].args.podGroupBackoffSeconds: expected an integer, "
                     "got \"soon\"",
                     "s.yaml:16:7: profiles[0].pluginConfig[0].args.extra: strict decoding error: unknown field "
                     "\"extra\""}));
  config::LoadResult negative = Load("    args:\n      permitWaitingTimeSeconds: -1\n");
  ASSERT_EQ(negative.errors.size(), 1u);
  EXPECT_EQ(negative.errors[0].ToString(),
            "s.yaml:14:33: profiles[0].pluginConfig[0].args.permitWaitingTimeSeconds: Invalid value: -1: must be "
            "greater than or equal to 0");
}

TEST(CoschedulingArgsTest, TheExampleProfileLoads) {
  util::StatusOr<config::KubeSchedulerConfiguration> c = config::LoadConfigFile("config/ksched-gang.yaml", Known());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->profiles.size(), 1u);
  EXPECT_NE(config::GetPluginArgs<CoschedulingArgs>(c->profiles[0], "Coscheduling"), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::coscheduling
