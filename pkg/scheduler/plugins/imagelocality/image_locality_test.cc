#include "pkg/scheduler/plugins/imagelocality/image_locality.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/helper/fake_handle.h"
#include "pkg/scheduler/plugins/score_nodes_test_util.h"

namespace ksched::scheduler::plugins::imagelocality {
namespace {

using framework::Code;
using helper::testing::FakeHandle;

// A snapshot lister over NodeInfos owned by the test.
class FakeNodeInfoLister final : public framework::NodeInfoLister {
 public:
  const framework::NodeInfoList& List() const override { return nodes; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return empty_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override { return empty_; }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view name) const override {
    for (const framework::NodeInfo* n : nodes) {
      if (n->node_name() == name) return n;
    }
    return util::NotFound("nodeinfo not found for node name \"" + std::string(name) + "\"");
  }
  framework::NodeInfoList nodes;

 private:
  framework::NodeInfoList empty_;
};

class FakeStorageInfoLister final : public framework::StorageInfoLister {
 public:
  bool IsPVCUsedByPods(std::string_view) const override { return false; }
};

class FakeSharedLister final : public framework::SharedLister {
 public:
  const framework::NodeInfoLister& NodeInfos() const override { return node_infos; }
  const framework::StorageInfoLister& StorageInfos() const override { return storage_; }
  FakeNodeInfoLister node_infos;

 private:
  FakeStorageInfoLister storage_;
};

struct Image {
  std::vector<std::string> names;
  int64_t size_mb;
};

// NodeInfos with image states counted across all of them, as the cache's
// snapshot does.
std::vector<framework::NodeInfo> MakeNodes(const std::vector<std::vector<Image>>& node_images) {
  std::map<std::string, std::set<size_t>> nodes_with;
  for (size_t i = 0; i < node_images.size(); ++i) {
    for (const Image& img : node_images[i]) {
      for (const std::string& name : img.names) nodes_with[name].insert(i);
    }
  }
  std::vector<framework::NodeInfo> out;
  for (size_t i = 0; i < node_images.size(); ++i) {
    auto node = std::make_shared<api::Node>();
    node->metadata.name = "node" + std::to_string(i + 1);
    auto states = std::make_shared<framework::ImageStates>();
    for (const Image& img : node_images[i]) {
      api::ContainerImage ci;
      ci.names = img.names;
      ci.size_bytes = img.size_mb * kMB;
      node->status.images.push_back(ci);
      for (const std::string& name : img.names) {
        (*states)[name] = framework::ImageStateSummary{img.size_mb * kMB, static_cast<int>(nodes_with[name].size())};
      }
    }
    framework::NodeInfo ni(node);
    ni.SetImageStates(states);
    out.push_back(std::move(ni));
  }
  return out;
}

api::Pod MakePod(const std::vector<std::string>& images, const std::vector<std::string>& init_images = {}) {
  api::Pod p;
  p.metadata.name = "pod";
  for (const std::string& image : images) {
    api::Container c;
    c.image = image;
    p.spec.containers.push_back(c);
  }
  for (const std::string& image : init_images) {
    api::Container c;
    c.image = image;
    p.spec.init_containers.push_back(c);
  }
  return p;
}

TEST(ImageLocalityTest, NormalizedImageName) {
  EXPECT_EQ(NormalizedImageName("gcr.io/40"), "gcr.io/40:latest");
  EXPECT_EQ(NormalizedImageName("gcr.io/40:v1"), "gcr.io/40:v1");
  EXPECT_EQ(NormalizedImageName("nginx"), "nginx:latest");
  EXPECT_EQ(NormalizedImageName("localhost:5000/nginx"), "localhost:5000/nginx:latest");
  EXPECT_EQ(NormalizedImageName("localhost:5000/nginx:1.2"), "localhost:5000/nginx:1.2");
}

TEST(ImageLocalityTest, Score) {
  const std::vector<Image> node403002000 = {
      {{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40},
      {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300},
      {{"gcr.io/2000:latest"}, 2000},
  };
  const std::vector<Image> node25010 = {{{"gcr.io/250:latest"}, 250}, {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10}};
  const std::vector<Image> node60040900 = {
      {{"gcr.io/600:latest"}, 600}, {{"gcr.io/40:latest"}, 40}, {{"gcr.io/900:latest"}, 900}};
  const std::vector<Image> node300600900 = {
      {{"gcr.io/300:latest"}, 300}, {{"gcr.io/600:latest"}, 600}, {{"gcr.io/900:latest"}, 900}};
  const std::vector<Image> node400030 = {{{"gcr.io/4000:latest"}, 4000}, {{"gcr.io/30:latest"}, 30}};
  const std::vector<Image> node203040 = {
      {{"gcr.io/20:latest"}, 20}, {{"gcr.io/30:latest"}, 30}, {{"gcr.io/40:latest"}, 40}};
  struct Case {
    const char* name;
    api::Pod pod;
    std::vector<std::vector<Image>> nodes;
    std::vector<int64_t> want;
  };
  const Case cases[] = {
      // node1: 40 MiB on half the nodes -> 20 MiB, below the minimum -> 0.
      // node2: 250 MiB / 2 = 125 MiB -> 100 * (125 - 23) / (2000 - 23) = 5.
      {"two images spread on two nodes, prefer the larger image one",
       MakePod({"gcr.io/40", "gcr.io/250"}),
       {node403002000, node25010},
       {0, 5}},
      // node1: (40 + 300) / 2 = 170 MiB -> 7.
      {"two images on one node, prefer this node",
       MakePod({"gcr.io/40", "gcr.io/300"}),
       {node403002000, node25010},
       {7, 0}},
      // node1: 4000 / 2 = 2000 MiB, the maximum -> 100.
      {"if exceed limit, use limit", MakePod({"gcr.io/10", "gcr.io/4000"}), {node400030, node25010}, {100, 0}},
      // node1: 4000 / 3 = 1333 MiB -> 66.
      {"if exceed limit, use limit (with a node without images)",
       MakePod({"gcr.io/10", "gcr.io/4000"}),
       {node400030, node25010, {}},
       {66, 0, 0}},
      // node1: (600 + 900) * 2/3 = 1000 MiB -> 100 * 977 / 2977 = 32;
      // node2: 300/3 + 1000 = 1100 MiB -> 36; node3: nothing.
      {"images on several nodes",
       MakePod({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {node60040900, node300600900, node400030},
       {32, 36, 0}},
      // Init containers count: node1 has 300 MiB on 1 of 3 nodes -> 100 MiB,
      // over two containers -> 100 * 77 / 1977 = 3.
      {"init containers", MakePod({"gcr.io/30"}, {"gcr.io/300"}), {node403002000, node203040, node400030}, {3, 0, 0}},
      // 300 MiB on half the nodes, one container: 100 * (150 - 23) / (1000 - 23) = 12.
      {"tagged image names match as given", MakePod({"gcr.io/300:v1"}), {node403002000, node25010}, {12, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<framework::NodeInfo> infos = MakeNodes(c.nodes);
    FakeSharedLister lister;
    for (const auto& ni : infos) lister.node_infos.nodes.push_back(&ni);
    FakeHandle handle;
    handle.SetLister(&lister);
    auto pl = New(handle);
    EXPECT_EQ(pl->Name(), "ImageLocality");
    std::vector<int64_t> got;
    framework::CycleState state;
    for (const auto& ni : infos) {
      auto [score, status] = pl->Score(state, c.pod, ni);
      EXPECT_TRUE(status.IsSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, c.pod, lister.node_infos.nodes), c.want);
  }
}

// From kube 1.36 an image volume's image scores and counts as an image.
TEST(ImageLocalityTest, ImageVolumesCountFromKube136) {
  api::Pod pod = MakePod({"gcr.io/250"});
  api::Volume model;
  model.name = "model";
  model.image = api::ImageVolumeSource{"gcr.io/2000", "IfNotPresent"};
  pod.spec.volumes.push_back(model);
  std::vector<framework::NodeInfo> infos =
      MakeNodes({{{{"gcr.io/2000:latest"}, 2000}}, {{{"gcr.io/250:latest"}, 250}}});
  FakeSharedLister lister;
  for (const auto& ni : infos) lister.node_infos.nodes.push_back(&ni);
  // 1.35: node1 has nothing the containers use; node2 has 250 MiB on half
  // the nodes, one image: 100 * (125 - 23) / (1000 - 23) = 10.
  // 1.36: node1 has the volume's 2000 MiB on half the nodes, two images:
  // 100 * (1000 - 23) / (2000 - 23) = 49; node2: 100 * 102 / 1977 = 5.
  for (auto [minor, want] : {std::pair{35, std::vector<int64_t>{0, 10}}, std::pair{36, std::vector<int64_t>{49, 5}}}) {
    SCOPED_TRACE(minor);
    FakeHandle handle(framework::FeatureGates::ForMinor(minor));
    handle.SetLister(&lister);
    auto pl = New(handle);
    std::vector<int64_t> got;
    framework::CycleState state;
    for (const auto& ni : infos) got.push_back(pl->Score(state, pod, ni).first);
    EXPECT_EQ(got, want);
    EXPECT_EQ(plugins::testing::ScoreNodesOf(*pl, state, pod, lister.node_infos.nodes), want);
  }
}

TEST(ImageLocalityTest, CalculatePriority) {
  EXPECT_EQ(CalculatePriority(0, 1), 0);
  EXPECT_EQ(CalculatePriority(kMinThreshold, 1), 0);
  EXPECT_EQ(CalculatePriority(kMaxContainerThreshold, 1), 100);
  EXPECT_EQ(CalculatePriority(10 * kMaxContainerThreshold, 2), 100);
  EXPECT_EQ(CalculatePriority(0, 0), 0);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::imagelocality
