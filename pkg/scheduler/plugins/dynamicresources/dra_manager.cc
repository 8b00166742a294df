#include "pkg/scheduler/plugins/dynamicresources/dra_manager.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pkg/api/node_selector.h"
#include "pkg/scheduler/framework/cel_options.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/scheduler/plugins/dynamicresources/cel_cache.h"
#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"
#include "pkg/scheduler/plugins/dynamicresources/pools.h"

namespace ksched::scheduler::dra {

namespace {

using framework::DeviceTotals;

// A slice selecting its nodes by a nodeSelector alone, compiled once.
struct SelectorSlice {
  const SlicePtr* slice;
  util::StatusOr<api::CompiledNodeSelector> selector;
};

class View final : public framework::DeviceCapacityView {
 public:
  View(std::vector<SlicePtr> slices, AllocatedState allocated, std::shared_ptr<CelCache> cel)
      : slices_(std::move(slices)), allocated_(std::move(allocated)), cel_(std::move(cel)) {
    for (const SlicePtr& s : slices_) {
      const api::ResourceSliceSpec& spec = s->spec;
      const std::string node_name = spec.node_name.value_or("");
      if (spec.per_device_node_selection.value_or(false)) {
        per_device_.push_back(&s);
      } else if (spec.all_nodes.value_or(false)) {
        everywhere_.push_back(&s);
      } else if (!node_name.empty()) {
        by_node_[node_name].push_back(&s);
      } else if (spec.node_selector) {
        by_selector_.push_back({&s, api::CompiledNodeSelector::Create(*spec.node_selector)});
      } else {
        // No node selection at all: kube counts such a slice on every node.
        everywhere_.push_back(&s);
      }
    }
  }

  util::StatusOr<DeviceTotals> Totals(const api::Node& node, const api::DeviceClass& device_class) const override {
    DeviceTotals totals;
    const auto count_all = [&](const SlicePtr& slice) -> util::Status {
      for (const api::Device& device : slice->spec.devices) {
        util::Status s = Count(slice, device, device_class, &totals);
        if (!s.ok()) return s;
      }
      return util::Status::Ok();
    };
    if (auto it = by_node_.find(node.metadata.name); it != by_node_.end()) {
      for (const SlicePtr* slice : it->second) {
        if (util::Status s = count_all(*slice); !s.ok()) return s;
      }
    }
    for (const SlicePtr* slice : everywhere_) {
      if (util::Status s = count_all(*slice); !s.ok()) return s;
    }
    for (const SelectorSlice& selected : by_selector_) {
      if (!selected.selector.ok()) return selected.selector.status();
      if (!selected.selector->Match(node)) continue;
      if (util::Status s = count_all(*selected.slice); !s.ok()) return s;
    }
    for (const SlicePtr* slice : per_device_) {
      for (const api::Device& device : (*slice)->spec.devices) {
        util::StatusOr<bool> reaches = DeviceReachesNode(device, node);
        if (!reaches.ok()) return reaches.status();
        if (!*reaches) continue;
        if (util::Status s = Count(*slice, device, device_class, &totals); !s.ok()) return s;
      }
    }
    return totals;
  }

 private:
  // Adds `device` to *totals when the class selects it.
  util::Status Count(const SlicePtr& slice, const api::Device& device, const api::DeviceClass& device_class,
                     DeviceTotals* totals) const {
    util::StatusOr<bool> selected = ClassSelects(device_class, slice, device);
    if (!selected.ok()) return selected.status();
    if (!*selected) return util::Status::Ok();
    ++totals->capacity;
    const DeviceId id{slice->spec.driver, slice->spec.pool.name, device.name};
    if (allocated_.Holds(id)) ++totals->allocated;
    return util::Status::Ok();
  }

  // Every CEL selector of the class is true for the device (verdicts
  // remembered across cycles, as the allocator's).
  util::StatusOr<bool> ClassSelects(const api::DeviceClass& device_class, const SlicePtr& slice,
                                    const api::Device& device) const {
    // kube hands the scorer's CEL only the driver, attributes and capacity.
    constexpr bool kHideMultipleAllocations = true;
    std::optional<cel::Device> cel_device;
    for (const api::DeviceSelector& selector : device_class.spec.selectors) {
      if (!selector.cel) continue;
      CelCache::Compiled program = cel_->GetOrCompile(selector.cel->expression);
      if (!program->ok()) return program->status();
      util::StatusOr<bool> matches =
          cel_->Evaluate(program, &slice, slice->spec.driver, device, kHideMultipleAllocations, cel_device);
      if (!matches.ok() || !*matches) return matches;
    }
    return true;
  }

  const std::vector<SlicePtr> slices_;  // owns what the indexes point into
  const AllocatedState allocated_;
  const std::shared_ptr<CelCache> cel_;
  // Pointers into slices_.
  std::map<std::string, std::vector<const SlicePtr*>, std::less<>> by_node_;
  std::vector<const SlicePtr*> everywhere_;
  std::vector<SelectorSlice> by_selector_;
  std::vector<const SlicePtr*> per_device_;
};

class Manager final : public framework::SharedDRAManager {
 public:
  Manager(const framework::SharedListers& listers, const framework::FeatureGates& features)
      : slices_(listers.ResourceSlices()),
        tracker_(SharedClaimTracker(listers.ResourceClaims())),
        classes_(listers.DeviceClasses()),
        cel_(std::make_shared<CelCache>(framework::CelCompileOptions(features))),
        consumable_capacity_(features.dra_consumable_capacity) {}

  std::shared_ptr<const framework::ExtendedResourceClasses> ExtendedResources() const override {
    return classes_.Snapshot();
  }

  std::shared_ptr<const framework::DeviceCapacityView> GatherDeviceCapacity() const override {
    return std::make_shared<View>(slices_.List(), tracker_->ListAllocatedState(consumable_capacity_), cel_);
  }

 private:
  const framework::ObjectLister<api::ResourceSlice>& slices_;
  const std::shared_ptr<ClaimTracker> tracker_;
  const framework::DeviceClassResolver classes_;
  const std::shared_ptr<CelCache> cel_;
  const bool consumable_capacity_;
};

}  // namespace

std::shared_ptr<const framework::SharedDRAManager> NewSharedDRAManager(const framework::SharedListers& listers,
                                                                       const framework::FeatureGates& features) {
  return std::make_shared<Manager>(listers, features);
}

}  // namespace ksched::scheduler::dra
