#include "pkg/informer/indexers.h"

namespace ksched::informer {

std::vector<std::string> PodNodeNameIndexFunc(const api::Pod& pod) {
  if (pod.spec.node_name.empty()) return {};
  return {pod.spec.node_name};
}

}  // namespace ksched::informer
