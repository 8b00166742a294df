#include "cmd/kubectl-ksched/whatif.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cmd/kubectl-ksched/fake_api_test_util.h"

namespace ksched::kubectl_ksched {
namespace {

using testing::FakeApi;
using testing::TestNode;

// A file removed when the test ends.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content)
      : path_(std::filesystem::temp_directory_path() / ("whatif_test_" + std::to_string(getpid()) + "_" + name)) {
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

constexpr char kPods[] = R"(apiVersion: v1
kind: Pod
metadata: {name: fits}
spec:
  nodeSelector: {kubernetes.io/hostname: small}
  containers:
  - {name: c, image: pause, resources: {requests: {cpu: 500m}}}
---
apiVersion: v1
kind: Pod
metadata: {name: urgent}
spec:
  priorityClassName: high
  containers:
  - {name: c, image: pause, resources: {requests: {cpu: "2"}}}
)";

// small: 1 CPU free; big: 4 CPUs, 3 taken by a pod of priority 0. urgent
// (2 CPUs, priority 1000) fits only by preempting it.
FakeApi Cluster() {
  FakeApi api;
  api.Add("/api/v1/nodes", TestNode("small", "1"));
  api.Add("/api/v1/nodes", TestNode("big", "4"));
  api.Add("/api/v1/pods", {{"kind", "Pod"},
                           {"metadata", {{"name", "low"}, {"namespace", "default"}, {"uid", "u-low"}}},
                           {"spec",
                            {{"nodeName", "big"},
                             {"priority", 0},
                             {"schedulerName", "default-scheduler"},
                             {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "3"}}}}}}}}}},
                           {"status", {{"phase", "Running"}}}});
  api.Add("/apis/scheduling.k8s.io/v1/priorityclasses",
          {{"kind", "PriorityClass"}, {"metadata", {{"name", "high"}}}, {"value", 1000}});
  return api;
}

TEST(WhatIfTest, FilesGetTheNamespaceAndNamePods) {
  TempFile f("ns.yaml", std::string(kPods) + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: x}\n"
                                               "spec: {containers: [{name: c, image: pause}]}\n");
  simulate::ClusterLoader loader;
  util::StatusOr<std::vector<std::string>> pods = AddWhatIfFiles({f.path()}, "team", loader);
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ(*pods, (std::vector<std::string>{"team/fits", "team/urgent", "x/other"}));
  simulate::ClusterObjects c = loader.Finish();
  ASSERT_EQ(c.pods.size(), 3u);
  EXPECT_EQ(c.pods[0]->metadata.namespace_, "team");
  EXPECT_EQ(c.pods[2]->metadata.namespace_, "x");
}

TEST(WhatIfTest, FileErrorsNameTheLine) {
  TempFile f("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                         "  - {name: c, resources: {requests: {cpu: lots}}}\n");
  simulate::ClusterLoader loader;
  util::StatusOr<std::vector<std::string>> pods = AddWhatIfFiles({f.path()}, "default", loader);
  ASSERT_FALSE(pods.ok());
  EXPECT_NE(pods.status().message().find(f.path() + ":6:"), std::string::npos) << pods.status().message();
}

TEST(WhatIfTest, PlacesThePodsAndNamesTheVictim) {
  FakeApi api = Cluster();
  TempFile f("pods.yaml", kPods);
  util::StatusOr<Options> o = ParseArgs({"what-if", "-f", f.path(), "-o", "json", "--seed", "1"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*o, api.AsFetch(), 37, "default", out, err, false), 0) << err.str();
  nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["whatIfPods"], nlohmann::json::array({"default/fits", "default/urgent"}));
  EXPECT_EQ(j["snapshot"]["Node"], 2);
  std::map<std::string, nlohmann::json> pods;
  for (const nlohmann::json& p : j["pods"]) pods[p["name"].get<std::string>()] = p;
  ASSERT_EQ(pods.count("fits"), 1u);
  ASSERT_EQ(pods.count("urgent"), 1u);
  EXPECT_EQ(pods["fits"]["node"], "small");
  EXPECT_EQ(pods["urgent"]["node"], "big");
  EXPECT_EQ(pods["urgent"]["priority"], 1000);
  ASSERT_EQ(pods["urgent"]["victims"].size(), 1u);
  EXPECT_EQ(pods["urgent"]["victims"][0]["name"], "low");
  EXPECT_NE(err.str().find("listing nodes: 2"), std::string::npos);
  EXPECT_NE(err.str().find("simulating 2 pod(s)"), std::string::npos);
  // Only reads reached the API.
  for (const client::Request& r : api.requests()) EXPECT_EQ(r.verb, "GET");
}

TEST(WhatIfTest, TextExplainAndHtml) {
  FakeApi api = Cluster();
  TempFile f("pods.yaml", kPods);
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "--explain"}), api.AsFetch(), 37, "default", out, err,
                      false),
            0)
      << err.str();
  EXPECT_NE(out.str().find("NAMESPACE"), std::string::npos);
  EXPECT_NE(out.str().find("default/low"), std::string::npos);  // the victims column
  EXPECT_NE(out.str().find("default/fits -> small"), std::string::npos);  // --explain's per-pod block
  std::ostringstream html;
  FakeApi api2 = Cluster();
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "-o", "html"}), api2.AsFetch(), 37, "default", html,
                      err, false),
            0);
  EXPECT_EQ(html.str().rfind("<!DOCTYPE html>", 0), 0u) << html.str().substr(0, 80);
}

TEST(WhatIfTest, ANodeInTheFileJoinsTheSnapshot) {
  FakeApi api = Cluster();
  TempFile f("node.yaml", R"(apiVersion: v1
kind: Node
metadata: {name: extra, labels: {kubernetes.io/hostname: extra}}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: wide}
spec:
  containers:
  - {name: c, image: pause, resources: {requests: {cpu: "6"}}}
)");
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "-o", "json"}), api.AsFetch(), 37, "default", out, err,
                      false),
            0)
      << err.str();
  nlohmann::json j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["pods"].size(), 1u);
  EXPECT_EQ(j["pods"][0]["node"], "extra");
  EXPECT_EQ(j["whatIfPods"], nlohmann::json::array({"default/wide"}));
}

TEST(WhatIfTest, WarnsOfPodsNoProfileSchedules) {
  FakeApi api = Cluster();
  TempFile f("other.yaml",
             "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {schedulerName: ksched, containers: [{name: c}]}\n");
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path()}), api.AsFetch(), 37, "default", out, err, false), 0);
  EXPECT_NE(err.str().find("pod default/p: schedulerName \"ksched\" is not a profile"), std::string::npos)
      << err.str();
}

TEST(WhatIfTest, ABadConfigurationFailsBeforeAnyRequest) {
  FakeApi api = Cluster();
  TempFile f("pods.yaml", kPods);
  TempFile cfg("cfg.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                           "profiles: [{schedulerName: a, plugins: {score: {enabled: [{name: NoSuchPlugin}]}}}]\n");
  std::ostringstream out, err;
  EXPECT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "--config", cfg.path()}), api.AsFetch(), 37, "default",
                      out, err, false),
            1);
  EXPECT_NE(err.str().find("invalid configuration"), std::string::npos) << err.str();
  EXPECT_TRUE(api.requests().empty());
}

TEST(WhatIfTest, AnOutOfRangeServerMinorIsClamped) {
  FakeApi api = Cluster();
  TempFile f("pods.yaml", kPods);
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path()}), api.AsFetch(), 40, "default", out, err, false), 0);
  EXPECT_NE(err.str().find("Kubernetes 1.40; simulating kube-scheduler 1.37"), std::string::npos) << err.str();
}

// --emulated-version outranks the server's minor; --feature-gates is checked
// against that minor's gates, as ksched's daemon checks it.
TEST(WhatIfTest, TheMinorAndGatesComeFromTheFlagsWhenGiven) {
  FakeApi api = Cluster();
  TempFile f("pods.yaml", kPods);
  std::ostringstream out, err;
  ASSERT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "--emulated-version=1.35"}), api.AsFetch(), 37,
                      "default", out, err, false),
            0)
      << err.str();
  EXPECT_NE(err.str().find("kube-scheduler 1.35 behaviour"), std::string::npos) << err.str();

  std::ostringstream out2, err2;
  EXPECT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "--feature-gates=NoSuchGate=true"}), api.AsFetch(), 37,
                      "default", out2, err2, false),
            1);
  EXPECT_NE(err2.str().find("error: --feature-gates: unrecognized feature gate: NoSuchGate"), std::string::npos)
      << err2.str();

  std::ostringstream out3, err3;
  EXPECT_EQ(RunWhatIf(*ParseArgs({"what-if", "-f", f.path(), "--feature-gates=OpportunisticBatching=false"}),
                      api.AsFetch(), 37, "default", out3, err3, false),
            0)
      << err3.str();
}

}  // namespace
}  // namespace ksched::kubectl_ksched
