#include "pkg/config/load.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pkg/config/config_gates.h"
#include "pkg/config/encode.h"
#include "pkg/scheduler/plugins/config_test_util.h"

namespace ksched::config {
namespace {

namespace fs = std::filesystem;

class LoadConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ksched_config_load_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  fs::path dir_;
};

TEST_F(LoadConfigFileTest, LoadsDefaultsAndValidates) {
  std::string path = Write("ok.yaml",
                           "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                           "leaderElection:\n  resourceName: ksched\nprofiles:\n- schedulerName: ksched\n");
  util::StatusOr<KubeSchedulerConfiguration> c = LoadConfigFile(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->leader_election.resource_name, "ksched");
  EXPECT_EQ(c->parallelism, 16);
  ASSERT_NE(FindProfile(*c, "ksched"), nullptr);
  EXPECT_EQ(FindProfile(*c, "default-scheduler"), nullptr);
  EXPECT_EQ(FindProfile(*c, "ksched")->plugins.multi_point.enabled.size(), 19u);  // kube v1.34's default set
}

TEST_F(LoadConfigFileTest, EveryErrorOnItsOwnLineInFileOrder) {
  std::string path = Write("bad.yaml",
                           "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                           "podInitialBackoffSeconds: 0\nprofiles:\n- schedulerName: a\n  plugins:\n    multiPoint:\n"
                           "      enabled:\n      - name: CapacityScheduling\n- schedulerName: a\nparallelism: 0\n");
  util::StatusOr<KubeSchedulerConfiguration> c = LoadConfigFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), util::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(),
            path + ":3:27: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0\n" + path +
                ":9:15: profiles[0].plugins.multiPoint.enabled[0].name: Unsupported value: \"CapacityScheduling\": no "
                "plugin of this name is built into ksched (an out-of-tree plugin needs a binary built with it: "
                "docs/plugin-api.md)\n" +
                path + ":10:18: profiles[1].schedulerName: Duplicate value: \"a\" (also the name of profiles[0])\n" +
                path + ":11:14: parallelism: Invalid value: 0: should be an integer value greater than zero");
}

TEST_F(LoadConfigFileTest, DecodeErrorsStopBeforeValidation) {
  std::string path = Write("decode.yaml",
                           "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                           "parallelism: 0\nprofile: []\n");
  util::StatusOr<KubeSchedulerConfiguration> c = LoadConfigFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            path + ":4:1: profile: strict decoding error: unknown field \"profile\" (did you mean \"profiles\"?)");
}

TEST_F(LoadConfigFileTest, MissingFileIsNotFound) {
  util::StatusOr<KubeSchedulerConfiguration> c = LoadConfigFile((dir_ / "absent.yaml").string());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), util::StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("absent.yaml"), std::string::npos);
}

TEST(LoadConfigTest, TextWithASourceName) {
  LoadResult r = LoadConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "parallelism: -2\n",
      "cm.yaml:data[scheduler-config.yaml]", InTreePlugins());
  EXPECT_FALSE(r.config);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].ToString(),
            "cm.yaml:data[scheduler-config.yaml]:3:14: parallelism: Invalid value: -2: should be an integer value "
            "greater than zero");
}

// Workload-aware scheduling's extension points decode from the minor that
// added them: unknown before (kube's strict decoding), an enabled plugin
// refused (none of ksched's extends them), a disabled one kept.
TEST(LoadConfigTest, WorkloadExtensionPointsFollowTheMinor) {
  const std::string text =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- plugins:\n"
      "    placementGenerate: {disabled: [{name: '*'}]}\n"
      "    podGroupPostFilter: {enabled: [{name: NodeName}]}\n";
  {
    ScopedConfigGates gates({.schema_minor = 35});
    LoadResult r = LoadConfig(text, "c.yaml", InTreePlugins());
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0].ToString(),
              "c.yaml:5:5: profiles[0].plugins.placementGenerate: strict decoding error: unknown field "
              "\"placementGenerate\"");
  }
  {
    ScopedConfigGates gates({.schema_minor = 36});
    LoadResult r = LoadConfig(text, "c.yaml", InTreePlugins());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].ToString().find("unknown field \"podGroupPostFilter\""), std::string::npos)
        << r.errors[0].ToString();
  }
  {
    ScopedConfigGates gates({.schema_minor = 37});
    LoadResult r = LoadConfig(text, "c.yaml", InTreePlugins());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].ToString(),
              "c.yaml:6:43: profiles[0].plugins.podGroupPostFilter.enabled[0].name: Invalid value: \"NodeName\": "
              "ksched runs no plugin at the podGroupPostFilter extension point (only kube's alpha workload-aware "
              "scheduling plugins extend it)");
  }
  ScopedConfigGates gates({.schema_minor = 37});
  LoadResult r = LoadConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- plugins:\n    placementScore: {disabled: [{name: '*'}]}\n",
      "c.yaml", InTreePlugins());
  ASSERT_TRUE(r.config) << (r.errors.empty() ? "" : r.errors[0].ToString());
  ASSERT_EQ(r.config->profiles[0].plugins.placement_score.disabled.size(), 1u);
  EXPECT_EQ(r.config->profiles[0].plugins.placement_score.disabled[0].name, "*");
  const std::string yaml = EncodeYaml(*r.config);
  EXPECT_NE(yaml.find("      placementScore:\n        disabled:\n          - name: \"*\"\n"), std::string::npos)
      << yaml;
}

}  // namespace
}  // namespace ksched::config
