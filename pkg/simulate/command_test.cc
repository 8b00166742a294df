#include "pkg/simulate/command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::simulate {
namespace {

// Fixtures are real public API objects, read in place (never copied).
constexpr char kK8sApi[] = "../shared/fixtures/k8s-api";
constexpr char kNodes[] =
    "../shared/fixtures/manifests/scheduler-plugins__manifests__nodemetadata__examples__nodes.yaml";
constexpr char kPods[] = "../shared/fixtures/manifests/website__content__en__examples__admin__sched__pod";

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunCommand(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunSimulateCommand(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(SimulateCommandTest, ReadsRealApiObjectsAndSkipsUnknownKinds) {
  Outcome o = RunCommand({"--cluster", kK8sApi, "--output", "json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("warning: ../shared/fixtures/k8s-api/core.v1.Binding.yaml:1: skipping Binding"),
            std::string::npos)
      << o.err;
  // Services are read (PodTopologySpread's default selector): the fixture's
  // JSON and YAML copies are the same object.
  EXPECT_NE(o.err.find("core.v1.Service.yaml:1: Service namespaceValue/nameValue appears again"), std::string::npos)
      << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["kind"], "SimulationReport");
  EXPECT_EQ(j["summary"]["nodes"], 1);
}

TEST(SimulateCommandTest, SchedulesKubectlShapedPodsAndReportsFitErrors) {
  // Nodes without allocatable resources take no pod; pod3 names another
  // scheduler and is left alone.
  Outcome o = RunCommand({"--cluster", kNodes, "--cluster", std::string(kPods) + "1.yaml", "--cluster",
                          std::string(kPods) + "2.yaml", "--cluster", std::string(kPods) + "3.yaml", "-o", "json",
                          "--tie-break", "lowest-name", "--explain"});
  ASSERT_EQ(o.code, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["pods"].size(), 2u) << o.out;
  EXPECT_EQ(j["pods"][0]["name"], "annotation-default-scheduler");
  EXPECT_EQ(j["pods"][1]["name"], "no-annotation");
  const int nodes = j["summary"]["nodes"];
  ASSERT_GT(nodes, 0);
  const std::string n = std::to_string(nodes);
  // kube 1.37's text (the default minor): DynamicResources' PostFilter
  // adds nothing when the pod has no claims.
  for (const auto& p : j["pods"]) {
    EXPECT_TRUE(p["node"].is_null());
    EXPECT_EQ(p["fitError"], "0/" + n + " nodes are available: " + n + " Too many pods. preemption: 0/" + n +
                                 " nodes are available: " + n + " No preemption victims found for incoming pod.");
    EXPECT_EQ(p["filter"].size(), static_cast<size_t>(nodes));
  }
  EXPECT_EQ(j["tieBreak"], "lowest-name");
}

// --emulated-version picks the minor; kube 1.34 still names DynamicResources'
// "no new claims to deallocate".
TEST(SimulateCommandTest, EmulatedVersionChoosesTheMinor) {
  Outcome o = RunCommand({"--cluster", kNodes, "--cluster", std::string(kPods) + "1.yaml", "-o", "json",
                          "--emulated-version", "1.34"});
  ASSERT_EQ(o.code, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_FALSE(j["pods"].empty());
  EXPECT_NE(j["pods"][0]["fitError"].get<std::string>().find("no new claims to deallocate, preemption:"),
            std::string::npos)
      << o.out;
  Outcome bad = RunCommand({"--cluster", kNodes, "--emulated-version", "1.38"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--emulated-version must be 1.34 to 1.37"), std::string::npos) << bad.err;
}

TEST(SimulateCommandTest, TableOutputListsEveryPod) {
  Outcome o = RunCommand({"--cluster", kNodes, "--cluster", std::string(kPods) + "1.yaml"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("NAMESPACE  NAME           PRIORITY  NODE       NOMINATED  VICTIMS  MESSAGE\n", 0), 0u)
      << o.out;
  EXPECT_NE(o.out.find("default    no-annotation  0         <pending>  -          -        0/"), std::string::npos)
      << o.out;
}

TEST(SimulateCommandTest, HtmlOutputIsOnePageWithEveryPod) {
  Outcome o = RunCommand({"--cluster", "pkg/simulate/testdata/html_report_cluster.yaml", "-o", "html", "--explain",
                          "--tie-break", "lowest-name"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(o.out.find("</html>"), std::string::npos);
  size_t rows = 0;
  for (size_t at = o.out.find("<tr class=\"pod "); at != std::string::npos; at = o.out.find("<tr class=\"pod ", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 6u);
  // A pod's name is markup in the input: text in the report.
  EXPECT_EQ(o.out.find("<img"), std::string::npos);
  EXPECT_NE(o.out.find("<td data-v=\"huge-&lt;img src=x onerror=alert(1)&gt;\">"), std::string::npos);
  EXPECT_NE(o.out.find("<g class=\"node-usage\" data-node=\"node-d\">"), std::string::npos);
}

TEST(SimulateCommandTest, MalformedInputStopsBeforeScheduling) {
  const std::filesystem::path bad =
      std::filesystem::temp_directory_path() / ("ksched_simulate_bad_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(bad) << "apiVersion: v1\nkind: Node\nmetadata:\n  name: bad-node\nstatus:\n  allocatable:\n    cpu: many\n";
  Outcome o = RunCommand({"--cluster", bad.string(), "--cluster", kNodes});
  std::filesystem::remove(bad);
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find(bad.string() + ":7: Node bad-node: status.allocatable.cpu: "), std::string::npos) << o.err;
}

TEST(SimulateCommandTest, RunsTheShippedGangConfiguration) {
  // config/ksched-gang.yaml as shipped; a gang of three whose members fit
  // only together on n1 (n2 is too small for any).
  const std::filesystem::path snap =
      std::filesystem::temp_directory_path() / ("ksched_simulate_gang_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(snap) << R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "3", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: 500m, memory: 8Gi, pods: "110"}}
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata: {name: trio, namespace: ml, creationTimestamp: "2024-01-01T00:00:00Z"}
  spec: {minMember: 3}
)" << [] {
    std::string pods;
    for (int i = 0; i < 3; ++i) {
      pods += "- apiVersion: v1\n  kind: Pod\n  metadata: {name: trio-" + std::to_string(i) +
              ", namespace: ml, labels: {scheduling.x-k8s.io/pod-group: trio}}\n"
              "  spec:\n    schedulerName: ksched-gang\n"
              "    containers: [{name: c, image: pause, resources: {requests: {cpu: \"1\"}}}]\n";
    }
    return pods;
  }();
  Outcome o = RunCommand({"--config", "config/ksched-gang.yaml", "--cluster", snap.string(), "-o", "json",
                          "--explain", "--tie-break", "lowest-name"});
  Outcome table = RunCommand({"--config", "config/ksched-gang.yaml", "--cluster", snap.string(), "--explain"});
  std::filesystem::remove(snap);
  ASSERT_EQ(o.code, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["profiles"], nlohmann::json::array({"ksched-gang"}));
  EXPECT_EQ(j["settled"], true);
  EXPECT_EQ(j["summary"]["scheduled"], 3) << o.out;
  ASSERT_EQ(j["pods"].size(), 3u);
  for (const auto& p : j["pods"]) EXPECT_EQ(p["node"], "n1") << p.dump();
  EXPECT_EQ(j["pods"][0]["permit"]["outcome"], "allowed") << o.out;
  EXPECT_EQ(j["pods"][1]["permit"]["waitedFor"], nlohmann::json::array({"Coscheduling"})) << o.out;
  EXPECT_TRUE(j["pods"][2]["permit"].is_null()) << o.out;  // its Permit completed the gang

  // The table says how each wait ended.
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("ml/trio-0 -> n1\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  Permit: waited on n1 for Coscheduling: allowed\n"), std::string::npos) << table.out;
}

TEST(SimulateCommandTest, BadFlagsExitTwo) {
  EXPECT_EQ(RunCommand({}).code, 2);
  EXPECT_EQ(RunCommand({"--cluster", kNodes, "--output", "xml"}).code, 2);
  EXPECT_EQ(RunCommand({"--cluster", kNodes, "--seed", "0"}).code, 2);
  EXPECT_EQ(RunCommand({"--cluster", kNodes, "--tie-break", "highest"}).code, 2);
  EXPECT_EQ(RunCommand({"--cluster", kNodes, "--bogus"}).code, 2);
  EXPECT_EQ(RunCommand({"--help"}).code, 0);
}

TEST(SimulateCommandTest, MissingConfigFileIsAnError) {
  Outcome o = RunCommand({"--config", "/nonexistent/config.yaml", "--cluster", kNodes});
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("invalid configuration"), std::string::npos);
}

}  // namespace
}  // namespace ksched::simulate
