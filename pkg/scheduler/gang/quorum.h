// The Permit quorum of a gang: members are held at Permit until minMember of
// them are assigned (assumed or bound), then released together; one failing
// member releases the waiting others to be rejected. Works on the
// framework's waiting pods (Handle) and the cycle's snapshot.
//
// Thread-safety: free functions; the Handle and GangSource they use are
// thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "pkg/scheduler/framework/cycle_state.h"
#include "pkg/scheduler/framework/handle.h"
#include "pkg/scheduler/gang/gang.h"

namespace ksched::scheduler::gang {

// Members of `key` the snapshot holds on some node: bound or assumed (a pod
// waiting at Permit is assumed). O(pods in the snapshot).
int32_t CountAssigned(const framework::NodeInfoList& nodes, const GangKey& key,
                      const GangSource& source);

// Whether the pod being permitted completes the quorum: it is not in the
// snapshot yet, so assigned + 1 >= minMember.
inline bool QuorumReached(int32_t assigned, const GangPolicy& policy) {
  return assigned + 1 >= policy.min_member;
}

// Allows every pod of `key` waiting at Permit, for `plugin`. Returns how
// many were waiting.
int AllowWaitingMembers(framework::Handle& handle, const GangKey& key, const GangSource& source,
                        std::string_view plugin);
// Rejects every pod of `key` waiting at Permit, attributed to `plugin`.
// Returns how many were waiting.
int RejectWaitingMembers(framework::Handle& handle, const GangKey& key, const GangSource& source,
                         std::string_view plugin, std::string_view message);

// Puts the other members of `key` (from the source, not yet assigned) into
// the cycle's PodsToActivate, so that they leave the unschedulable and
// backoff queues and meet the quorum while this pod waits.
void ActivateOtherMembers(framework::CycleState& state, const api::Pod& pod, const GangKey& key,
                          const GangSource& source);

}  // namespace ksched::scheduler::gang
