// TaintedSlices: the ResourceSlices as the allocator sees them, with the
// DeviceTaintRules' taints patched in (api::ApplyDeviceTaintRules), kept
// for as long as the informers hand out the same objects. kube's
// ResourceSlice tracker keeps its patched slices up to date on informer
// events; here the lists are compared instead, so a call costs one pointer
// comparison per slice and rule rather than O(rules × devices) and a copy
// of every tainted slice (PoolCache calls it only when the listers'
// revisions moved).
//
// Thread-safety: Get may be called concurrently (one mutex).
// Memory: holds the last lists and their patched result.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "pkg/api/resource_types.h"

namespace ksched::scheduler::dra {

class TaintedSlices {
 public:
  using Slices = std::vector<std::shared_ptr<const api::ResourceSlice>>;
  using Rules = std::vector<std::shared_ptr<const api::DeviceTaintRule>>;

  // `slices` with `rules` applied; the previous result when both lists hold
  // the same objects as in the previous call. O(slices + rules) then.
  Slices Get(Slices slices, Rules rules);

 private:
  std::mutex mu_;
  Slices slices_;
  Rules rules_;
  Slices patched_;
};

}  // namespace ksched::scheduler::dra
