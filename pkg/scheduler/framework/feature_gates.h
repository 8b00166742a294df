// FeatureGates: the kube-scheduler feature gates ksched honours, settable
// with --feature-gates="SchedulerPopFromBackoffQ=false,...".
//
// Defaults and locks follow kube-scheduler v1.34: all on, and
// SchedulerQueueingHints (GA) cannot be turned off from the command line;
// its off path is kept for tests that set the field directly.
//
// Thread-safety: a value type; read-only after start-up.
#pragma once

#include <string_view>

#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

struct FeatureGates {
  // QueueingHints: hint functions decide requeueing, events seen while a pod
  // is in flight are replayed for it, Done() is meaningful. Off: the older
  // moveRequestCycle rule and AssignedPodAdded/Updated pre-filtering.
  bool scheduler_queueing_hints = true;
  // Pop takes the backoffQ head when activeQ is empty; backoff deadlines use
  // whole-second windows; PreEnqueue runs on entry to backoffQ.
  bool scheduler_pop_from_backoff_q = true;
  // Preemption's API calls (victims' DisruptionTarget condition and
  // deletion, clearing lower-priority nominations) run after the scheduling
  // cycle; DefaultPreemption's PreEnqueue holds the preemptor back until
  // they are done. Off: the calls are issued within PostFilter.
  bool scheduler_async_preemption = true;

  // Applies "Name=bool,Name=bool" on top of the current values. Names are
  // case-sensitive as in Kubernetes; values are Go ParseBool spellings
  // (true/false/1/0/t/f/TRUE/True/...). Unknown names, bad values and a
  // locked gate set against its lock are InvalidArgument errors (kube's
  // texts) and leave *this unchanged. Empty input is OK.
  util::Status Set(std::string_view spec);

  // Whether `name` is one of the gates above (an unknown name is another
  // component's or another kube-scheduler feature's gate).
  static bool IsKnown(std::string_view name);

  // Defaults with `spec` applied.
  static util::StatusOr<FeatureGates> Parse(std::string_view spec);

  bool operator==(const FeatureGates&) const = default;
};

}  // namespace ksched::scheduler::framework
