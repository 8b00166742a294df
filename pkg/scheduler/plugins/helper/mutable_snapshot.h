// MutableSnapshot: a framework::SharedLister whose NodeInfos plugin tests and
// benchmarks change in place between cycles, as the cache updates a real
// snapshot's NodeInfos (so plugins that remember NodeInfo addresses across
// cycles see what they would see in the scheduler). Test-only.
//
// The affinity lists follow pods added through AddPod; pods added to a
// NodeInfo directly (through at()) are not reflected in them.
// Thread-safety: none; a test mutates it only between plugin calls.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/scheduler/framework/node_info.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::helper::testing {

class MutableSnapshot final : public framework::SharedLister,
                              public framework::NodeInfoLister,
                              public framework::StorageInfoLister {
 public:
  const framework::NodeInfoLister& NodeInfos() const override { return *this; }
  const framework::StorageInfoLister& StorageInfos() const override { return *this; }
  const framework::NodeInfoList& List() const override { return list_; }
  const framework::NodeInfoList& HavePodsWithAffinityList() const override { return with_affinity_; }
  const framework::NodeInfoList& HavePodsWithRequiredAntiAffinityList() const override {
    return with_required_anti_affinity_;
  }
  util::StatusOr<const framework::NodeInfo*> Get(std::string_view) const override {
    return util::NotFound("not supported");
  }
  bool IsPVCUsedByPods(std::string_view) const override { return false; }

  framework::NodeInfo& Add(std::shared_ptr<const api::Node> node) {
    infos_.push_back(std::make_unique<framework::NodeInfo>(std::move(node)));
    list_.push_back(infos_.back().get());
    return *infos_.back();
  }
  // Drops the node at list position `i` (later nodes move up).
  void Remove(size_t i) {
    const framework::NodeInfo* gone = infos_[i].get();
    for (framework::NodeInfoList* l : {&with_affinity_, &with_required_anti_affinity_}) {
      l->erase(std::remove(l->begin(), l->end(), gone), l->end());
    }
    list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(i));
    infos_.erase(infos_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  // Adds `pod` to the node at list position `i`, keeping the affinity lists.
  void AddPod(size_t i, std::shared_ptr<const api::Pod> pod) {
    framework::NodeInfo& ni = *infos_[i];
    const bool had_affinity = !ni.pods_with_affinity().empty();
    const bool had_anti_affinity = !ni.pods_with_required_anti_affinity().empty();
    ni.AddPod(std::move(pod));
    if (!had_affinity && !ni.pods_with_affinity().empty()) with_affinity_.push_back(&ni);
    if (!had_anti_affinity && !ni.pods_with_required_anti_affinity().empty()) {
      with_required_anti_affinity_.push_back(&ni);
    }
  }
  framework::NodeInfo& at(size_t i) { return *infos_[i]; }
  size_t size() const { return infos_.size(); }

 private:
  std::vector<std::unique_ptr<framework::NodeInfo>> infos_;
  framework::NodeInfoList list_;
  framework::NodeInfoList with_affinity_;
  framework::NodeInfoList with_required_anti_affinity_;
};

}  // namespace ksched::scheduler::plugins::helper::testing
