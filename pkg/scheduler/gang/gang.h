// The gang (all-or-nothing) scheduling machinery's view of a group, whatever
// declares it: scheduler-plugins' PodGroup CRD today
// (plugins/coscheduling adapts it), kube's native Workload API later.
//
// A gang is named by a GangKey (namespace, name). A GangSource says which
// gang a pod belongs to, what the gang demands (GangPolicy) and how many
// pods it has. The rest of this package — the queue order (queue_order.h),
// the Permit quorum (quorum.h), the capacity pre-check (capacity.h) and the
// group backoff (expiring_set.h) — works on these alone.
//
// Thread-safety: GangSource implementations must be safe for concurrent
// calls and must not block (they are read under the scheduling queue's
// lock by the queue order): informer-cache reads.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::gang {

struct GangKey {
  std::string namespace_;
  std::string name;

  // "namespace/name", as scheduler-plugins names a group in messages.
  std::string String() const { return namespace_ + "/" + name; }
  auto operator<=>(const GangKey&) const = default;
};

// What a gang demands.
struct GangPolicy {
  // Members that must be placed together (assumed or bound) before any binds.
  int32_t min_member = 0;
  // Total resources minMember members need; empty: not checked.
  api::ResourceList min_resources;
  // How long members wait at Permit for the quorum; unset: the caller's
  // default.
  std::optional<util::Duration> schedule_timeout;
  // When the gang was declared: the queue orders gangs by it.
  std::optional<api::Time> creation_time;
};

class GangSource {
 public:
  virtual ~GangSource() = default;
  // The gang `pod` names; nullopt when it names none.
  virtual std::optional<GangKey> KeyOf(const api::Pod& pod) const = 0;
  // The gang's policy; nullopt when the gang is not declared (no object).
  virtual std::optional<GangPolicy> Policy(const GangKey& key) const = 0;
  // Pods that name the gang, in any state (the informer's view).
  virtual std::vector<std::shared_ptr<const api::Pod>> Members(const GangKey& key) const = 0;
};

}  // namespace ksched::scheduler::gang
