// Constraint: one topology spread constraint compiled for matching (kube's
// internal topologySpreadConstraint), and the rules that turn a pod's spec
// (or the plugin's default constraints) into a list of them.
//
// - A constraint whose labelSelector is unset selects nothing; matchLabelKeys
//   add "key=<the pod's value>" requirements for the keys the pod has.
// - minDomains defaults to 1, nodeAffinityPolicy to Honor, nodeTaintsPolicy to
//   Ignore (the NodeInclusionPolicy and MatchLabelKeys features are GA).
// - Default constraints apply only to pods without constraints of their own,
//   and select the pods that DefaultSelector (default_selector.h) returns:
//   those of the Services and the controller selecting the pod. A pod for
//   which that selector is empty gets no default constraints.
//
// Thread-safety: immutable values; functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/api/labels.h"
#include "pkg/api/node_selector.h"
#include "pkg/api/types.h"
#include "pkg/scheduler/framework/listers.h"
#include "pkg/util/status.h"

namespace ksched::scheduler::plugins::podtopologyspread {

inline constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
inline constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";
inline constexpr std::string_view kPolicyHonor = "Honor";
inline constexpr std::string_view kPolicyIgnore = "Ignore";
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";

struct Constraint {
  int32_t max_skew = 0;
  std::string topology_key;
  api::Selector selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;
  bool honor_node_taints = false;

  // Whether the constraint selects `pod` by its labels. Namespace and
  // deletion are the caller's business.
  bool Selects(const api::Pod& pod) const;
  // kube counts no existing pods for an empty ({}) selector.
  bool CountsNoPods() const { return selector.Empty(); }
};

// The pod's required node affinity and tolerations, which decide whether a
// node counts for constraints with Honor policies. Owns copies: it may
// outlive the pod it was built from.
class NodeInclusion {
 public:
  explicit NodeInclusion(const api::Pod& pod);
  // kube's matchNodeInclusionPolicies.
  bool Includes(const Constraint& c, const api::Node& node) const;

 private:
  api::RequiredNodeAffinity affinity_;
  std::vector<api::Toleration> tolerations_;
};

// Whether the node has a label for every constraint's topology key.
bool NodeHasAllTopologyKeys(const api::StringMap& node_labels, const std::vector<Constraint>& constraints);
// Whether any constraint selects the pod.
bool AnySelects(const std::vector<Constraint>& constraints, const api::Pod& pod);

// Pods of `pods` that count for `c`: not terminating, in `ns`, selected.
template <class PodInfos>
int32_t CountMatchingPods(const PodInfos& pods, const Constraint& c, const std::string& ns) {
  if (c.CountsNoPods()) return 0;
  int32_t n = 0;
  for (const auto& pi : pods) {
    const api::Pod& p = pi->pod();
    if (p.metadata.deletion_timestamp || p.metadata.namespace_ != ns) continue;
    if (c.Selects(p)) ++n;
  }
  return n;
}

// Compiles the constraints of `specs` whose whenUnsatisfiable is `action`.
util::StatusOr<std::vector<Constraint>> CompileConstraints(const std::vector<api::TopologySpreadConstraint>& specs,
                                                           const api::StringMap& pod_labels, std::string_view action);

// The pod's constraints for `action`: its own if it declares any, else
// those of `defaults` for `action` with DefaultSelector(pod, listers) as
// their selector (none when it is empty).
util::StatusOr<std::vector<Constraint>> PodConstraints(const api::Pod& pod, std::string_view action,
                                                       const std::vector<api::TopologySpreadConstraint>& defaults,
                                                       const framework::SharedListers& listers);

// A string equal for two (pod, constraints) pairs exactly when every node
// contributes the same counts for them: the namespace, each constraint's key,
// selector and policies, and the pod's node affinity / tolerations when a
// policy honours them. `tag` distinguishes callers with different rules.
std::string CountingSignature(const api::Pod& pod, const std::vector<Constraint>& constraints, std::string_view tag);

}  // namespace ksched::scheduler::plugins::podtopologyspread
