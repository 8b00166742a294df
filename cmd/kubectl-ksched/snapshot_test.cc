#include "cmd/kubectl-ksched/snapshot.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cmd/kubectl-ksched/fake_api_test_util.h"

namespace ksched::kubectl_ksched {
namespace {

using testing::FakeApi;
using testing::TestNode;

std::string Query(const client::Request& r, const std::string& key) {
  for (const auto& [k, v] : r.query) {
    if (k == key) return v;
  }
  return "";
}

const SnapshotKind& KindOf(const std::string& kind) {
  for (const SnapshotKind& k : SnapshotKinds()) {
    if (k.kind == kind) return k;
  }
  static const SnapshotKind none;
  ADD_FAILURE() << "no kind " << kind;
  return none;
}

// Each test lists from one fake API server with one set of options.
class SnapshotTest : public ::testing::Test {
 protected:
  void AddNodes(int n) {
    for (int i = 0; i < n; ++i) api.Add("/api/v1/nodes", TestNode("n" + std::to_string(i), "2"));
  }
  util::StatusOr<ListedKind> List(const std::string& kind) {
    return ListKind(api.AsFetch(), KindOf(kind), so, warnings, log);
  }

  FakeApi api;
  SnapshotOptions so;
  std::vector<std::string> warnings;
  std::ostringstream log;
};

TEST_F(SnapshotTest, ListsPageByPageWithContinueTokens) {
  AddNodes(5);
  so.chunk_size = 2;
  util::StatusOr<ListedKind> listed = List("Node");
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ(listed->count.objects, 5);
  EXPECT_EQ(listed->count.pages, 3);
  EXPECT_EQ(listed->pages.size(), 3u);
  ASSERT_EQ(api.requests().size(), 3u);
  EXPECT_EQ(Query(api.requests()[0], "limit"), "2");
  EXPECT_EQ(Query(api.requests()[0], "continue"), "");
  EXPECT_EQ(Query(api.requests()[1], "continue"), "nodes:2");
  EXPECT_EQ(Query(api.requests()[2], "continue"), "nodes:4");
  EXPECT_EQ(log.str(), "listing nodes: 5 (3 pages)\n");
  EXPECT_TRUE(warnings.empty());
}

TEST_F(SnapshotTest, TerminalProgressIsRewrittenPerPage) {
  AddNodes(3);
  so.chunk_size = 2;
  so.terminal = true;
  ASSERT_TRUE(List("Node").ok());
  EXPECT_EQ(log.str(), "\r\033[Klisting nodes: 2\r\033[Klisting nodes: 3 (2 pages)\n");
}

TEST_F(SnapshotTest, ChunkSizeZeroIsOneUnpaginatedRequest) {
  AddNodes(3);
  so.chunk_size = 0;
  util::StatusOr<ListedKind> listed = List("Node");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->count.objects, 3);
  ASSERT_EQ(api.requests().size(), 1u);
  EXPECT_EQ(Query(api.requests()[0], "limit"), "");
}

TEST_F(SnapshotTest, AnExpiredContinueTokenRestartsTheKindUnpaginated) {
  AddNodes(5);
  api.ExpireNextContinue();
  so.chunk_size = 2;
  util::StatusOr<ListedKind> listed = List("Node");
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  // Page 1, the 410, then everything at once: the first page is not kept twice.
  ASSERT_EQ(api.requests().size(), 3u);
  EXPECT_EQ(Query(api.requests()[2], "limit"), "");
  EXPECT_EQ(Query(api.requests()[2], "continue"), "");
  EXPECT_EQ(listed->count.objects, 5);
  EXPECT_EQ(listed->pages.size(), 1u);
  EXPECT_NE(log.str().find("expired"), std::string::npos);
}

TEST_F(SnapshotTest, PodsAreListedWithoutFinishedOnes) {
  api.Add("/api/v1/pods", {{"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}}});
  ASSERT_TRUE(List("Pod").ok());
  ASSERT_EQ(api.requests().size(), 1u);
  EXPECT_EQ(Query(api.requests()[0], "fieldSelector"), "status.phase!=Succeeded,status.phase!=Failed");
  EXPECT_EQ(Query(api.requests()[0], "limit"), "500");
}

TEST_F(SnapshotTest, AKindNotServedIsSkippedAfterTryingEveryVersion) {
  util::StatusOr<ListedKind> listed = List("DeviceTaintRule");
  ASSERT_TRUE(listed.ok());
  EXPECT_FALSE(listed->count.served);
  ASSERT_EQ(api.requests().size(), 3u);
  EXPECT_EQ(api.requests()[1].path, "/apis/resource.k8s.io/v1beta2/devicetaintrules");
  EXPECT_EQ(log.str(), "skipping devicetaintrules: not served by this API server\n");
  EXPECT_TRUE(warnings.empty());

  // An older version served: its items are read.
  FakeApi older;
  older.Add("/apis/resource.k8s.io/v1alpha3/devicetaintrules",
            {{"kind", "DeviceTaintRule"}, {"metadata", {{"name", "r"}}}});
  listed = ListKind(older.AsFetch(), KindOf("DeviceTaintRule"), SnapshotOptions{}, warnings, log);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->count.served);
  EXPECT_EQ(listed->count.objects, 1);
}

TEST_F(SnapshotTest, ForbiddenIsAWarningExceptForNodesAndPods) {
  api.Forbid("/apis/policy/v1/poddisruptionbudgets");
  api.Forbid("/api/v1/nodes");
  util::StatusOr<ListedKind> pdbs = List("PodDisruptionBudget");
  ASSERT_TRUE(pdbs.ok());
  EXPECT_TRUE(pdbs->count.forbidden);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("you may not list poddisruptionbudgets"), std::string::npos);
  util::StatusOr<ListedKind> nodes = List("Node");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("you may not list nodes"), std::string::npos);
}

TEST_F(SnapshotTest, SizeWarningAboveTheLimits) {
  EXPECT_FALSE(SizeWarning("Node", kLargeNodeCount).has_value());
  EXPECT_TRUE(SizeWarning("Node", kLargeNodeCount + 1).has_value());
  EXPECT_FALSE(SizeWarning("Pod", kLargePodCount).has_value());
  ASSERT_TRUE(SizeWarning("Pod", 120000).has_value());
  EXPECT_NE(SizeWarning("Pod", 120000)->find("about 120000 pods"), std::string::npos);
  EXPECT_NE(SizeWarning("Pod", 120000)->find("memory"), std::string::npos);
  EXPECT_FALSE(SizeWarning("Service", 1000000).has_value());
}

TEST_F(SnapshotTest, TheFirstPagesRemainingCountWarnsBeforeTheRest) {
  AddNodes(3);
  api.PretendMore("/api/v1/nodes", kLargeNodeCount);
  so.chunk_size = 1;
  ASSERT_TRUE(List("Node").ok());
  ASSERT_EQ(warnings.size(), 1u);  // once, from the first page
  EXPECT_NE(warnings[0].find("about 5003 nodes"), std::string::npos);
  EXPECT_EQ(log.str().find("warning:"), 0u);  // before the progress line
}

TEST_F(SnapshotTest, WithoutARemainingCountTheWarningComesPastTheLimit) {
  const nlohmann::json pod = {{"kind", "Pod"}, {"metadata", {{"name", "p"}, {"namespace", "default"}}}};
  for (int64_t i = 0; i < kLargePodCount + 1; ++i) api.Add("/api/v1/pods", pod);
  api.HideRemainingCount();
  so.chunk_size = 20000;
  ASSERT_TRUE(List("Pod").ok());
  ASSERT_EQ(warnings.size(), 1u);  // once, at the page that passed the limit
  EXPECT_NE(warnings[0].find("about 50001 pods"), std::string::npos) << warnings[0];
}

TEST_F(SnapshotTest, TakeSnapshotFeedsTheLoaderAndOnlyReads) {
  AddNodes(3);
  api.Add("/api/v1/pods", {{"kind", "Pod"},
                           {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                           {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}}}}}}});
  api.Add("/apis/scheduling.k8s.io/v1/priorityclasses",
          {{"kind", "PriorityClass"}, {"metadata", {{"name", "high"}}}, {"value", 1000}});
  so.chunk_size = 2;
  simulate::ClusterLoader loader;
  util::StatusOr<SnapshotStats> stats = TakeSnapshot(api.AsFetch(), so, loader, log);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  simulate::ClusterObjects c = loader.Finish();
  EXPECT_EQ(c.nodes.size(), 3u);
  ASSERT_EQ(c.pods.size(), 1u);
  EXPECT_EQ(c.pods[0]->spec.node_name, "n1");
  EXPECT_EQ(stats->kinds.size(), SnapshotKinds().size());
  for (const client::Request& r : api.requests()) {
    EXPECT_EQ(r.verb, "GET") << r.path;
    EXPECT_TRUE(r.body.empty()) << r.path;
  }
  EXPECT_TRUE(loader.warnings().empty()) << loader.warnings().front();
}

}  // namespace
}  // namespace ksched::kubectl_ksched
