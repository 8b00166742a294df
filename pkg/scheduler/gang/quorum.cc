#include "pkg/scheduler/gang/quorum.h"

#include <memory>
#include <string>

namespace ksched::scheduler::gang {

namespace {

bool InGang(const api::Pod& pod, const GangKey& key, const GangSource& source) {
  if (pod.metadata.namespace_ != key.namespace_) return false;
  auto k = source.KeyOf(pod);
  return k && *k == key;
}

}  // namespace

int32_t CountAssigned(const framework::NodeInfoList& nodes, const GangKey& key,
                      const GangSource& source) {
  int32_t n = 0;
  for (const framework::NodeInfo* node : nodes) {
    for (const auto& pi : node->pods()) {
      const api::Pod& pod = pi->pod();
      if (!pod.spec.node_name.empty() && InGang(pod, key, source)) ++n;
    }
  }
  return n;
}

int AllowWaitingMembers(framework::Handle& handle, const GangKey& key, const GangSource& source,
                        std::string_view plugin) {
  int n = 0;
  handle.IterateOverWaitingPods([&](framework::WaitingPod& wp) {
    if (!InGang(*wp.pod(), key, source)) return;
    wp.Allow(plugin);
    ++n;
  });
  return n;
}

int RejectWaitingMembers(framework::Handle& handle, const GangKey& key, const GangSource& source,
                         std::string_view plugin, std::string_view message) {
  int n = 0;
  handle.IterateOverWaitingPods([&](framework::WaitingPod& wp) {
    if (!InGang(*wp.pod(), key, source)) return;
    wp.Reject(plugin, message);
    ++n;
  });
  return n;
}

void ActivateOtherMembers(framework::CycleState& state, const api::Pod& pod, const GangKey& key,
                          const GangSource& source) {
  auto to_activate = state.Get<framework::PodsToActivate>(framework::PodsToActivateKey());
  if (!to_activate) return;
  for (auto& member : source.Members(key)) {
    if (member->metadata.uid == pod.metadata.uid || !member->spec.node_name.empty()) continue;
    to_activate->Add(std::move(member));
  }
}

}  // namespace ksched::scheduler::gang
