// Diagnosis and FitError: why a scheduling cycle found no node for a pod
// (kube-scheduler's framework.Diagnosis and framework.FitError).
//
// A Diagnosis collects, during one cycle, the per-node filter statuses, the
// plugins that rejected the pod (they decide which cluster events may
// requeue it), and the messages of PreFilter and PostFilter. A FitError is a
// Diagnosis plus the number of nodes considered; Message() renders the text
// users see in FailedScheduling events and in the PodScheduled condition,
// byte for byte as kube-scheduler 1.34 does:
//
//   "0/<N> nodes are available:"
//   + " <PreFilter message>."                 when PreFilter rejected the pod
//   + " <histogram>."                         otherwise, if any reason exists
//   + " <PostFilter message>"                 when PostFilter said something
//
// where <histogram> is "<count> <reason>" for every distinct reason (each
// explicit node status contributes each of its reasons once; nodes without
// an explicit status count the absent-nodes status's reasons), sorted as
// strings and joined by ", ". For example
//   "0/5 nodes are available: 2 node(s) had untolerated taint(s), 3 Insufficient cpu."
//
// Thread-safety: value types; fill a Diagnosis from one thread.
#pragma once

#include <string>

#include "pkg/scheduler/framework/cycle_plugins.h"
#include "pkg/scheduler/framework/plugin_set.h"
#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler {

// The message of a cycle that ran with no node in the cluster.
inline constexpr char kNoNodesAvailableMsg[] = "no nodes available to schedule pods";

struct Diagnosis {
  framework::NodeToStatus node_to_status;
  // Plugins that rejected the pod (Unschedulable, UnschedulableAndUnresolvable
  // or Pending), and the subset that returned Pending.
  framework::PluginSet unschedulable_plugins;
  framework::PluginSet pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;

  // Records the plugin of a rejecting status (no-op for statuses without a
  // plugin or that are not rejections).
  void AddPluginStatus(const framework::Status& status);
};

struct FitError {
  int num_all_nodes = 0;
  Diagnosis diagnosis;

  // See the header comment.
  std::string Message() const;
};

}  // namespace ksched::scheduler
