// ImageLocality: a Score plugin that favours nodes which already hold the
// pod's container images (kube's ImageLocality).
//
// For each container and init container whose image (normalized: ":latest"
// appended when the name has no tag) is on the node, the image's size is
// scaled by the fraction of the snapshot's nodes that have it, which keeps
// pods from piling onto the few nodes that hold a rare image. The sum, clamped
// to [23 MiB, 1000 MiB x number of images], maps linearly onto 0-100. From
// kube 1.36 (FeatureGates::image_locality_image_volumes) the pod's image
// volumes count as images too.
//
// It never rejects pods, so it registers no events. Score allocates nothing
// (image names needing a tag are built in a per-thread buffer).
//
// Thread-safety: immutable after construction; safe to call concurrently.
// The Handle must outlive the plugin.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <span>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/framework/pod_signature.h"

namespace ksched::scheduler::plugins::imagelocality {

inline constexpr std::string_view kName = "ImageLocality";

inline constexpr int64_t kMB = 1024 * 1024;
// Bounds of the summed image score, covering the sizes of most images in
// registries.
inline constexpr int64_t kMinThreshold = 23 * kMB;
inline constexpr int64_t kMaxContainerThreshold = 1000 * kMB;

// The CRI name of an image reference: "name:latest" when it has no tag.
std::string NormalizedImageName(std::string_view name);
// The node score for `sum_scores` over `num_images` images.
int64_t CalculatePriority(int64_t sum_scores, int num_images);

class ImageLocality final : public framework::SignPlugin,
                            public framework::ScorePlugin {
 public:
  ImageLocality(const framework::Handle& handle, bool image_volumes) : handle_(handle), image_volumes_(image_volumes) {}

  std::string_view Name() const override { return kName; }
  framework::Status SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const override;
  std::pair<int64_t, framework::Status> Score(framework::CycleState& state, const api::Pod& pod,
                                              const framework::NodeInfo& node_info) override;
  framework::Status ScoreNodes(framework::CycleState& state, const api::Pod& pod,
                               std::span<const framework::NodeInfo* const> nodes, framework::NodeScore* out) override;

 private:
  const framework::Handle& handle_;
  const bool image_volumes_;
};

std::unique_ptr<ImageLocality> New(const framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::imagelocality
