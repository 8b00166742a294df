#include "pkg/scheduler/plugins/imagelocality/image_locality.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

namespace ksched::scheduler::plugins::imagelocality {

namespace {

constexpr std::string_view kDefaultTag = ":latest";

bool NeedsDefaultTag(std::string_view name) {
  // As kube: the last ':' must come after the last '/', else the ':' (if
  // any) belongs to a registry host:port.
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  if (colon == std::string_view::npos) return true;
  return slash != std::string_view::npos && colon < slash;
}

// An image name with the default tag, ordered against the states' keys as
// the concatenated string would be: Score looks it up without building it.
struct WithDefaultTag {
  std::string_view name;
};

// <0, 0 or >0 as `key` orders before, as or after name + kDefaultTag.
int Compare(std::string_view key, WithDefaultTag image) {
  const size_t common = std::min(key.size(), image.name.size());
  if (const int c = key.substr(0, common).compare(image.name.substr(0, common)); c != 0) return c;
  if (key.size() < image.name.size()) return -1;
  return key.substr(image.name.size()).compare(kDefaultTag);
}
bool operator<(const std::string& key, WithDefaultTag image) { return Compare(key, image) < 0; }
bool operator<(WithDefaultTag image, const std::string& key) { return Compare(key, image) > 0; }

// The node's state of `image`, or nullptr.
const framework::ImageStateSummary* FindImage(const framework::ImageStates& states, std::string_view image) {
  auto it = NeedsDefaultTag(image) ? states.find(WithDefaultTag{image}) : states.find(image);
  return it == states.end() ? nullptr : &it->second;
}

// The image's size scaled by how widely it has spread.
int64_t ScaledImageScore(const framework::ImageStateSummary& state, size_t total_num_nodes) {
  const double spread = static_cast<double>(state.num_nodes) / static_cast<double>(total_num_nodes);
  return static_cast<int64_t>(static_cast<double>(state.size) * spread);
}

int64_t SumImageScores(const framework::NodeInfo& node_info, const api::Pod& pod, size_t total_num_nodes,
                       bool image_volumes) {
  const framework::ImageStates& states = node_info.image_states();
  if (states.empty()) return 0;
  int64_t sum = 0;
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& c : *containers) {
      if (const framework::ImageStateSummary* s = FindImage(states, c.image))
        sum += ScaledImageScore(*s, total_num_nodes);
    }
  }
  if (image_volumes) {
    for (const api::Volume& v : pod.spec.volumes) {
      if (!v.image) continue;
      if (const framework::ImageStateSummary* s = FindImage(states, v.image->reference))
        sum += ScaledImageScore(*s, total_num_nodes);
    }
  }
  return sum;
}

// How many images the pod pulls: its containers', and its image volumes'
// when they count.
int ImageCount(const api::Pod& pod, bool image_volumes) {
  int n = static_cast<int>(pod.spec.init_containers.size() + pod.spec.containers.size());
  if (image_volumes) {
    for (const api::Volume& v : pod.spec.volumes) n += v.image ? 1 : 0;
  }
  return n;
}

}  // namespace

std::string NormalizedImageName(std::string_view name) {
  std::string out(name);
  if (NeedsDefaultTag(name)) out.append(kDefaultTag);
  return out;
}

int64_t CalculatePriority(int64_t sum_scores, int num_images) {
  const int64_t max_threshold = kMaxContainerThreshold * num_images;
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

std::pair<int64_t, framework::Status> ImageLocality::Score(framework::CycleState& /*state*/, const api::Pod& pod,
                                                           const framework::NodeInfo& node_info) {
  const size_t total_num_nodes = handle_.SnapshotSharedLister().NodeInfos().List().size();
  const int64_t sum = total_num_nodes == 0 ? 0 : SumImageScores(node_info, pod, total_num_nodes, image_volumes_);
  return {CalculatePriority(sum, ImageCount(pod, image_volumes_)), framework::Status()};
}

framework::Status ImageLocality::ScoreNodes(framework::CycleState& /*state*/, const api::Pod& pod,
                                            std::span<const framework::NodeInfo* const> nodes,
                                            framework::NodeScore* out) {
  const size_t total_num_nodes = handle_.SnapshotSharedLister().NodeInfos().List().size();
  const int num_images = ImageCount(pod, image_volumes_);
  // Most nodes report no images (clusters where kubelets list none, or
  // nodes still being set up): they all score what a sum of zero gives.
  const int64_t without_images = CalculatePriority(0, num_images);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (total_num_nodes == 0 || nodes[i]->image_states().empty()) {
      out[i].score = without_images;
      continue;
    }
    out[i].score = CalculatePriority(SumImageScores(*nodes[i], pod, total_num_nodes, image_volumes_), num_images);
  }
  return framework::Status();
}

std::unique_ptr<ImageLocality> New(const framework::Handle& handle) {
  return std::make_unique<ImageLocality>(handle, handle.Features().image_locality_image_volumes);
}

framework::Status ImageLocality::SignPod(const api::Pod& pod, std::vector<framework::SignFragment>& out) const {
  std::set<std::string> names;
  for (const auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
    for (const api::Container& c : *containers) names.insert(NormalizedImageName(c.image));
  }
  std::string value;
  for (const std::string& n : names) framework::AppendSignatureString(value, n);
  out.push_back({framework::signer::kImageNames, std::move(value)});
  return framework::Status();
}

}  // namespace ksched::scheduler::plugins::imagelocality
