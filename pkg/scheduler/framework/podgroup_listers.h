// PodGroupListers: the optional capability of a SharedListers to list
// scheduler-plugins' PodGroups (api/podgroup.h). SharedListers does not name
// PodGroups because only Coscheduling reads them; an implementation that
// has them (the informer listers when a profile enables Coscheduling, the
// in-memory listers) implements this interface too, and the plugin finds it
// with dynamic_cast on Handle::Listers().
//
// Thread-safety: as SharedListers.
#pragma once

#include "pkg/api/podgroup.h"
#include "pkg/scheduler/framework/listers.h"

namespace ksched::scheduler::framework {

class PodGroupListers {
 public:
  virtual ~PodGroupListers() = default;
  virtual const ObjectLister<api::PodGroup>& PodGroups() const = 0;
};

}  // namespace ksched::scheduler::framework
