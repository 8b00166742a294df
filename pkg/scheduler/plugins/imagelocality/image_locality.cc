#include "pkg/scheduler/plugins/imagelocality/image_locality.h"

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

// The node's state of `image`, or nullptr.
const framework::ImageStateSummary* FindImage(const framework::ImageStates& states, std::string_view image) {
  if (!NeedsDefaultTag(image)) {
    auto it = states.find(image);
    return it == states.end() ? nullptr : &it->second;
  }
  // Reused per thread so that Score does not allocate once warmed up.
  thread_local std::string buffer;
  buffer.assign(image);
  buffer.append(kDefaultTag);
  auto it = states.find(std::string_view(buffer));
  return it == states.end() ? nullptr : &it->second;
}

// The image's size scaled by how widely it has spread.
int64_t ScaledImageScore(const framework::ImageStateSummary& state, size_t total_num_nodes) {
  const double spread = static_cast<double>(state.num_nodes) / static_cast<double>(total_num_nodes);
  return static_cast<int64_t>(static_cast<double>(state.size) * spread);
}

int64_t SumImageScores(const framework::NodeInfo& node_info, const api::Pod& pod, size_t total_num_nodes) {
  const framework::ImageStates& states = node_info.image_states();
  if (states.empty()) return 0;
  int64_t sum = 0;
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& c : *containers) {
      if (const framework::ImageStateSummary* s = FindImage(states, c.image))
        sum += ScaledImageScore(*s, total_num_nodes);
    }
  }
  return sum;
}

}  // namespace

std::string NormalizedImageName(std::string_view name) {
  std::string out(name);
  if (NeedsDefaultTag(name)) out.append(kDefaultTag);
  return out;
}

int64_t CalculatePriority(int64_t sum_scores, int num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
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
  const int num_containers = static_cast<int>(pod.spec.init_containers.size() + pod.spec.containers.size());
  const int64_t sum = total_num_nodes == 0 ? 0 : SumImageScores(node_info, pod, total_num_nodes);
  return {CalculatePriority(sum, num_containers), framework::Status()};
}

std::unique_ptr<ImageLocality> New(const framework::Handle& handle) { return std::make_unique<ImageLocality>(handle); }

}  // namespace ksched::scheduler::plugins::imagelocality
