// Validation of a defaulted KubeSchedulerConfiguration.
//
// Reproduces kube-scheduler's ValidateKubeSchedulerConfiguration (and the
// component-base checks it calls), returning every error, each with its field
// path and, given the ConfigSource from decoding, the file position of the
// value (or of its nearest written ancestor):
// - clientConnection.burst >= 0; with leaderElect: leaseDuration,
//   renewDeadline, retryPeriod > 0, leaseDuration > renewDeadline,
//   resourceLock/resourceName/resourceNamespace set and resourceLock "leases";
//   plus client-go's renewDeadline > 1.2 * retryPeriod (its JitterFactor),
//   which kube only checks when the elector starts;
// - parallelism > 0; percentageOfNodesToScore in [0, 100] (also per profile);
//   podInitialBackoffSeconds > 0; podMaxBackoffSeconds >= initial;
// - profiles present, each schedulerName set and unique;
// - at most one queueSort plugin in profile 0, and every profile's queueSort
//   set and queue-sort args equal to profile 0's;
// - removed plugins (AzureDiskLimits, CinderLimits, EBSLimits, GCEPDLimits)
//   named in any plugin set or pluginConfig: "was invalid in version ...";
// - pluginConfig names unique, args of the plugin's type, args validated
//   by the codec the plugin registered (known_plugins.h).
// ksched adds what kube-scheduler only finds when it builds the profiles, so
// that a bad file fails before anything touches the cluster:
// - every enabled plugin and pluginConfig name must be in `known` (an error
//   naming the plugin, with a "did you mean" hint);
// - a plugin enabled twice in one list; a negative weight;
// - args for a plugin that takes none;
// - extenders: "extenders are not supported by ksched".
// Warnings (returned separately, never fatal): a disabled name ksched does not
// know, a weight outside score/multiPoint.
//
// Thread-safety: pure functions.
#pragma once

#include "pkg/config/errors.h"
#include "pkg/config/known_plugins.h"
#include "pkg/config/types.h"

namespace ksched::config {

// Errors of `c`; locates them with `source` when given. Appends warnings to
// `warnings` when given.
ErrorList Validate(const KubeSchedulerConfiguration& c, const KnownPlugins& known, const ConfigSource* source = nullptr,
                   ErrorList* warnings = nullptr);

}  // namespace ksched::config
