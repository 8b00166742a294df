// Pod signatures (kube 1.35+, opportunistic batching): two pods with equal
// signatures get the same Filter verdicts and the same scores on the same
// nodes in the same cluster state, so the second may take the next node of
// the first's ranking instead of a full cycle.
//
// A plugin that reads a pod in Filter or Score says which parts of the pod
// it reads by implementing SignPlugin: it appends fragments (a key naming
// the part, kube's signer names below, and a canonical encoding of its
// value), or refuses to sign a pod whose outcome it cannot capture that way
// (a pod with inter-pod affinity, say). Plugins that read the same part use
// the same key and encoding: a signature holds each key once.
//
// PodSigner signs for one profile: when one of its PreFilter, Filter,
// PreScore or Score plugins does not implement SignPlugin, it signs nothing
// (kube logs "Disabling signatures for profile ...").
//
// Equality is what matters, not the bytes: ksched's encodings are not
// kube's JSON, but equal values encode equally and unequal ones do not, with
// one exception documented in docs/conformance.md (volume sources ksched
// does not model compare by kind).
//
// Thread-safety: SignPod and PodSigner::Sign are const and safe to call
// concurrently when the plugins' SignPod are.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/api/types.h"
#include "pkg/scheduler/framework/metrics_recorder.h"
#include "pkg/scheduler/framework/resource.h"
#include "pkg/scheduler/framework/status.h"
#include "pkg/util/clock.h"

namespace ksched::scheduler::framework {

// kube's signer names (k8s.io/kube-scheduler/framework/signers.go).
namespace signer {
inline constexpr std::string_view kImageNames = "v1.Pod.Spec.CanonicalImageNames()";
inline constexpr std::string_view kLabels = "v1.Pod.Labels";
inline constexpr std::string_view kNodeName = "v1.Pod.Spec.NodeName";
inline constexpr std::string_view kNodeAffinity = "v1.Pod.Spec.Affinity.NodeAffinity";
inline constexpr std::string_view kNodeSelector = "v1.Pod.Spec.Affinity.NodeSelector";
inline constexpr std::string_view kHostPorts = "v1.Pod.Spec.HostPorts()";
inline constexpr std::string_view kResources = "v1.Pod.Spec.ContainerRequestsAndOverheads()";
inline constexpr std::string_view kSchedulerName = "v1.Pod.Spec.SchedulerName";
inline constexpr std::string_view kTolerations = "v1.Pod.Spec.Tolerations";
inline constexpr std::string_view kVolumes = "v1.Pod.Spec.Volumes.NonSyntheticSources()";
inline constexpr std::string_view kFeatures = "v1.Pod.Spec.RequiredFeatures()";
}  // namespace signer

struct SignFragment {
  std::string_view key;  // one of signer::k* (static storage)
  std::string value;     // canonical encoding
};

class SignPlugin {
 public:
  virtual ~SignPlugin() = default;
  // Appends the pod's parts this plugin reads to `out`; any other code than
  // Success means the pod cannot be signed (kube: Unschedulable with a
  // reason; Error is logged).
  virtual Status SignPod(const api::Pod& pod, std::vector<SignFragment>& out) const = 0;
  // True when SignPod refuses every pod (its configuration decides, not the
  // pod): the profile then signs nothing, without asking per pod.
  virtual bool NeverSigns() const { return false; }
};

// The common signers, as kube's: host ports (init containers too, sorted,
// each once); tolerations sorted by (key, value); non-synthetic volume
// sources (every source but configMap and secret, in order, names left
// out); node affinity (requirements with sorted values, then sorted; terms
// sorted); the node selector and labels (sorted maps).
std::string HostPortsSignature(const api::Pod& pod);
std::string TolerationsSignature(const api::Pod& pod);
std::string VolumesSignature(const api::Pod& pod);
std::string NodeAffinitySignature(const api::Pod& pod);
std::string StringMapSignature(const api::StringMap& map);
// A pod's requests as NodeResourcesFit computes them (scalars by name).
std::string ResourceRequestSignature(const Resource& request);

// Appends `s` length-prefixed, so concatenations stay unambiguous.
void AppendSignatureString(std::string& out, std::string_view s);

// Signs pods for one profile. Holds plugin pointers owned by the profile's
// framework, which outlives it.
class PodSigner {
 public:
  // `plugins`: the profile's PreFilter, Filter, PreScore and Score plugins
  // (repeats allowed), each as SignPlugin or null when it does not sign;
  // their names for the log line. One that NeverSigns disables signing.
  PodSigner(std::vector<std::pair<std::string_view, const SignPlugin*>> plugins);

  // False when some plugin does not (or never) sign: Sign always answers
  // nullopt.
  bool Enabled() const { return enabled_; }
  // Where Sign reports each plugin's SignPod time, as kube's
  // plugin_execution_duration_seconds{extension_point="Sign"} (every call,
  // not only in sampled cycles). Both outlive the call.
  struct Metrics {
    const util::Clock* clock;
    FrameworkMetricsRecorder* recorder;
  };

  // The pod's signature, or nullopt when the profile or a plugin cannot
  // sign it.
  std::optional<std::string> Sign(const api::Pod& pod, const Metrics* metrics = nullptr) const;

 private:
  bool enabled_ = true;
  // Each plugin once, first-seen order, with its name.
  std::vector<std::pair<std::string_view, const SignPlugin*>> plugins_;
};

}  // namespace ksched::scheduler::framework
