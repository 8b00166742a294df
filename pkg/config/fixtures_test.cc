// The real scheduler configurations in ../shared/fixtures/scheduler-config/
// are the corpus: each file is classified below, and a file without an entry
// (or an entry without a file) fails the test.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "pkg/config/decode.h"
#include "pkg/config/defaults.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/config/validate.h"
#include "pkg/scheduler/plugins/config_test_util.h"

namespace ksched::config {
namespace {

namespace fs = std::filesystem;

constexpr char kCorpusDir[] = "../shared/fixtures/scheduler-config";

enum class Outcome {
  kLoads,               // plugins ksched has built in: must load
  kUnknownPlugins,      // names out-of-tree plugins: each must be named in an error
  kExtenders,           // extenders only: rejected as not supported
  kUnsupportedVersion,  // an apiVersion ksched does not read
  kNotAConfig,          // a ConfigMap/Deployment embedding a configuration
  kMultiDocument,       // several configurations in one file
};

struct Expectation {
  Outcome outcome;
  // Out-of-tree plugins the errors must name (for kMultiDocument and
  // kNotAConfig: those of the embedded/individual configurations).
  std::vector<std::string> unknown_plugins;
  bool extenders = false;  // the file also has extenders
};

const std::map<std::string, Expectation>& Corpus() {
  static const auto* const kCorpus = new std::map<std::string, Expectation>{
      {"cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig-postbootstrap-highnodeutilization.yaml",
       {Outcome::kLoads, {}}},
      {"cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig-postbootstrap-lownodeutilization.yaml",
       {Outcome::kLoads, {}}},
      {"cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig-postbootstrap-noscoring.yaml",
       {Outcome::kLoads, {}}},
      {"cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig.yaml", {Outcome::kLoads, {}}},
      {"cluster-kube-scheduler-operator__bindata__bootkube__config__bootstrap-config-overrides.yaml",
       {Outcome::kLoads, {}}},
      {"kube-scheduler-simulator__simulator__cmd__scheduler__scheduler.yaml", {Outcome::kLoads, {}}},
      {"kube-scheduler-simulator__simulator__docs__sample__debuggable-scheduler__scheduler.yaml",
       {Outcome::kUnknownPlugins, {"NodeNumber"}}},
      {"kube-scheduler-wasm-extension__internal__e2e__scheduler_perf__config__sched-config-all-enabled.yaml",
       {Outcome::kUnknownPlugins, {"wasm", "NodeNumber"}, /*extenders=*/true}},
      {"kube-scheduler-wasm-extension__internal__e2e__scheduler_perf__config__sched-config-extender-only.yaml",
       {Outcome::kExtenders, {}, /*extenders=*/true}},
      {"kube-scheduler-wasm-extension__internal__e2e__scheduler_perf__config__sched-config-plugin-only.yaml",
       {Outcome::kUnknownPlugins, {"NodeNumber"}}},
      {"kube-scheduler-wasm-extension__internal__e2e__scheduler_perf__config__sched-config-wasm-only.yaml",
       {Outcome::kUnknownPlugins, {"wasm"}}},
      {"scheduler-plugins__manifests__appgroup__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"NetworkOverhead", "TopologicalSort"}}},
      {"scheduler-plugins__manifests__capacityscheduling__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"CapacityScheduling"}}},
      // Coscheduling is built in (pkg/scheduler/plugins/coscheduling).
      {"scheduler-plugins__manifests__coscheduling__scheduler-config.yaml", {Outcome::kLoads, {}}},
      {"scheduler-plugins__manifests__networktopology__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"NetworkOverhead", "TopologicalSort"}}},
      {"scheduler-plugins__manifests__nodemetadata__scheduler-config.yaml",
       {Outcome::kMultiDocument, {"NodeMetadata"}}},
      {"scheduler-plugins__manifests__noderesources__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"NodeResourcesAllocatable"}}},
      {"scheduler-plugins__manifests__noderesourcetopology__scheduler-config-v1beta1.yaml",
       {Outcome::kUnsupportedVersion, {}}},
      {"scheduler-plugins__manifests__noderesourcetopology__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"NodeResourceTopologyMatch"}}},
      {"scheduler-plugins__manifests__noderesourcetopology__scheduler-configmap.yaml",
       {Outcome::kNotAConfig, {"NodeResourceTopologyMatch"}}},
      {"scheduler-plugins__manifests__podstate__scheduler-config.yaml", {Outcome::kUnknownPlugins, {"PodState"}}},
      {"scheduler-plugins__manifests__qos__scheduler-config.yaml", {Outcome::kUnknownPlugins, {"QOSSort"}}},
      {"scheduler-plugins__manifests__sysched__scheduler-config.yaml", {Outcome::kUnknownPlugins, {"SySched"}}},
      {"scheduler-plugins__manifests__trimaran__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"TargetLoadPacking"}}},
      {"scheduler-plugins__pkg__trimaran__peaks__deployment__scheduler-config.yaml",
       {Outcome::kUnknownPlugins, {"Peaks"}}},
  };
  return *kCorpus;
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(kCorpusDir)) {
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every line of a load error names the file, a line and a column.
void ExpectLocated(const std::string& message, const std::string& file) {
  auto number_then = [](const std::string& s, size_t* i, char sep) {
    size_t start = *i;
    while (*i < s.size() && std::isdigit(static_cast<unsigned char>(s[*i]))) ++*i;
    if (*i == start || *i >= s.size() || s[*i] != sep) return false;
    ++*i;
    return true;
  };
  for (const std::string& line : Lines(message)) {
    // "<file>:<line>:<column>: <field>: <detail>"
    size_t i = file.size() + 1;
    bool ok = line.rfind(file + ":", 0) == 0 && number_then(line, &i, ':') && number_then(line, &i, ':') &&
              line.compare(i, 1, " ") == 0 && line.size() > i + 1;
    EXPECT_TRUE(ok) << line;
  }
}

void ExpectNamesUnknownPlugins(const std::string& message, const std::vector<std::string>& plugins,
                               const std::string& context) {
  for (const std::string& plugin : plugins) {
    EXPECT_NE(message.find("Unsupported value: \"" + plugin + "\": no plugin of this name is built into ksched"),
              std::string::npos)
        << context << ": " << plugin << " not named in:\n"
        << message;
  }
}

TEST(FixtureCorpusTest, EveryFileIsClassified) {
  std::vector<std::string> files = CorpusFiles();
  ASSERT_FALSE(files.empty()) << "no fixtures under " << fs::absolute(kCorpusDir) << " (run from the project root)";
  for (const std::string& f : files) EXPECT_EQ(Corpus().count(f), 1u) << "unclassified fixture: " << f;
  for (const auto& [name, _] : Corpus()) {
    EXPECT_TRUE(fs::exists(fs::path(kCorpusDir) / name)) << "classified fixture is missing: " << name;
  }
}

TEST(FixtureCorpusTest, EachFileHasItsExpectedOutcome) {
  for (const std::string& name : CorpusFiles()) {
    auto it = Corpus().find(name);
    if (it == Corpus().end()) continue;  // reported by EveryFileIsClassified
    const Expectation& want = it->second;
    std::string path = (fs::path(kCorpusDir) / name).string();
    SCOPED_TRACE(name);
    util::StatusOr<KubeSchedulerConfiguration> loaded = LoadConfigFile(path);
    if (want.outcome == Outcome::kLoads) {
      ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
      // The effective configuration round-trips through --write-config-to.
      LoadResult again = LoadConfig(EncodeYaml(*loaded), "written.yaml", InTreePlugins());
      ASSERT_TRUE(again.errors.empty()) << JoinErrors(again.errors);
      EXPECT_EQ(EncodeJson(*again.config), EncodeJson(*loaded));
      continue;
    }
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), util::StatusCode::kInvalidArgument);
    const std::string& message = loaded.status().message();
    ExpectLocated(message, path);
    bool has_extender_error =
        message.find("extenders: Forbidden: extenders are not supported by ksched") != std::string::npos;
    EXPECT_EQ(has_extender_error, want.extenders) << message;
    switch (want.outcome) {
      case Outcome::kLoads:
        break;
      case Outcome::kUnknownPlugins:
      case Outcome::kExtenders:
        ExpectNamesUnknownPlugins(message, want.unknown_plugins, name);
        break;
      case Outcome::kUnsupportedVersion:
        EXPECT_NE(message.find(": apiVersion: Unsupported value: \"kubescheduler.config.k8s.io/v1beta1\": this "
                               "KubeSchedulerConfiguration version is no longer supported"),
                  std::string::npos)
            << message;
        break;
      case Outcome::kNotAConfig: {
        EXPECT_NE(message.find(": kind: Unsupported value: \"ConfigMap\": not a KubeSchedulerConfiguration"),
                  std::string::npos)
            << message;
        // The configuration inside the ConfigMap is judged on its own.
        YAML::Node cm = YAML::LoadFile(path);
        int items = 0;
        for (auto item = cm["data"].begin(); item != cm["data"].end(); ++item) {
          ++items;
          std::string source = path + ":data[" + item->first.Scalar() + "]";
          LoadResult embedded = LoadConfig(item->second.Scalar(), source, InTreePlugins());
          ASSERT_FALSE(embedded.errors.empty());
          std::string embedded_message = JoinErrors(embedded.errors);
          ExpectLocated(embedded_message, source);
          ExpectNamesUnknownPlugins(embedded_message, want.unknown_plugins, source);
        }
        EXPECT_EQ(items, 1);
        break;
      }
      case Outcome::kMultiDocument: {
        EXPECT_NE(message.find("YAML documents; a scheduler configuration file must hold exactly one"),
                  std::string::npos)
            << message;
        std::vector<DecodeResult> docs = DecodeConfigDocuments(ReadFile(path), path);
        EXPECT_GT(docs.size(), 1u);
        for (DecodeResult& doc : docs) {
          ASSERT_TRUE(doc.ok()) << JoinErrors(doc.errors);
          SetDefaults(&doc.config);
          ErrorList errors = Validate(doc.config, InTreePlugins(), &doc.source);
          std::string doc_message = JoinErrors(errors);
          ExpectLocated(doc_message, path);
          ExpectNamesUnknownPlugins(doc_message, want.unknown_plugins, name);
        }
        break;
      }
    }
  }
}

TEST(FixtureCorpusTest, LoadedValuesMatchTheFiles) {
  auto load = [](const char* name) {
    util::StatusOr<KubeSchedulerConfiguration> c = LoadConfigFile((fs::path(kCorpusDir) / name).string());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : KubeSchedulerConfiguration{};
  };
  KubeSchedulerConfiguration high = load(
      "cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig-postbootstrap-"
      "highnodeutilization.yaml");
  ASSERT_EQ(high.profiles.size(), 1u);
  const KubeSchedulerProfile& hp = high.profiles[0];
  EXPECT_EQ(hp.scheduler_name, "default-scheduler");
  ASSERT_EQ(hp.plugins.score.enabled.size(), 1u);
  EXPECT_EQ(hp.plugins.score.enabled[0].name, "NodeResourcesFit");
  EXPECT_EQ(hp.plugins.score.enabled[0].weight, 5);
  EXPECT_EQ(hp.plugins.score.disabled[0].name, "NodeResourcesBalancedAllocation");
  const auto* fit = GetPluginArgs<NodeResourcesFitArgs>(hp, "NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoring_strategy->type, kMostAllocated);
  EXPECT_EQ(fit->scoring_strategy->resources.size(), 2u);

  KubeSchedulerConfiguration noscoring =
      load("cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig-postbootstrap-noscoring.yaml");
  EXPECT_EQ(noscoring.profiles[0].plugins.score.disabled[0].name, "*");
  EXPECT_EQ(noscoring.profiles[0].plugins.pre_score.disabled[0].name, "*");

  KubeSchedulerConfiguration openshift =
      load("cluster-kube-scheduler-operator__bindata__assets__config__defaultconfig.yaml");
  EXPECT_EQ(openshift.leader_election.lease_duration, std::chrono::seconds(137));
  EXPECT_EQ(openshift.leader_election.renew_deadline, std::chrono::seconds(107));
  EXPECT_EQ(openshift.leader_election.retry_period, std::chrono::seconds(26));
  EXPECT_EQ(openshift.leader_election.resource_namespace, "openshift-kube-scheduler");
  EXPECT_EQ(openshift.leader_election.resource_name, "kube-scheduler");
  EXPECT_EQ(openshift.enable_profiling, false);
  EXPECT_EQ(openshift.enable_contention_profiling, false);
  EXPECT_EQ(openshift.client_connection.kubeconfig,
            "/etc/kubernetes/static-pod-resources/configmaps/scheduler-kubeconfig/kubeconfig");

  KubeSchedulerConfiguration simulator = load("kube-scheduler-simulator__simulator__cmd__scheduler__scheduler.yaml");
  EXPECT_EQ(EncodeJson(simulator), EncodeJson(DefaultConfiguration()));
}

}  // namespace
}  // namespace ksched::config
