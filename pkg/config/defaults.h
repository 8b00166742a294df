// kube-scheduler v1.34 defaulting of a decoded KubeSchedulerConfiguration.
//
// SetDefaults fills every unset field as pkg/scheduler/apis/config/v1
// (defaults.go, default_plugins.go) does:
//   parallelism 16; percentageOfNodesToScore 0; podInitialBackoffSeconds 1;
//   podMaxBackoffSeconds 10; enableProfiling true; enableContentionProfiling
//   = enableProfiling; leaderElection {leaderElect true, leaseDuration 15s,
//   renewDeadline 10s, retryPeriod 2s, resourceLock leases, resourceName
//   kube-scheduler, resourceNamespace kube-system}; clientConnection
//   {contentType application/vnd.kubernetes.protobuf, qps 50, burst 100};
//   no profiles -> one empty profile; a single profile without schedulerName
//   -> default-scheduler (with several profiles each must name itself).
// For each profile the plugins are merged into the known plugins' default
// set (KnownPlugins::default_plugins(); the in-tree registry supplies
// kube-scheduler v1.34's) point by point (MergePluginSet), then every
// pluginConfig entry's args are defaulted by their codec and every enabled
// plugin that has an args codec but no pluginConfig entry gets one with
// default args, appended in name order.
//
// The same defaults apply to a v1beta3 document (its default plugin weights
// equal v1's). SetDefaults is idempotent.
//
// Thread-safety: pure functions.
#pragma once

#include "pkg/config/known_plugins.h"
#include "pkg/config/types.h"

namespace ksched::config {

// Merges a user's set into the default set of one extension point:
// - disabled "*" drops every default; a disabled name drops that default;
// - an enabled entry named like a remaining default replaces it in place
//   (keeping the default's position, taking the user's weight);
// - the other enabled entries are appended in the user's order;
// - the result's disabled list is the user's followed by the defaults'.
PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& custom);

// MergePluginSet at every extension point.
Plugins MergePlugins(const Plugins& defaults, const Plugins& custom);

void SetDefaults(KubeSchedulerConfiguration* c, const KnownPlugins& known);
void SetProfileDefaults(KubeSchedulerProfile* p, const KnownPlugins& known);

// Applies the args' own codec's defaults (none for untyped or empty args).
void SetArgsDefaults(PluginArgs* args);

// `plugin_name`'s args with every default applied; empty for a plugin
// without an args codec.
PluginArgs DefaultPluginArgs(std::string_view plugin_name, const KnownPlugins& known);

// A configuration with nothing set, defaulted: what the daemon runs with when
// no --config is given.
KubeSchedulerConfiguration DefaultConfiguration(const KnownPlugins& known);

}  // namespace ksched::config
