// The Events kube-scheduler emits (events.k8s.io/v1), described as
// EventRecords: what a recorder call (tools/events Eventf) supplies. The
// ApiWriter turns a record into an api::Event (name, time, reporting
// instance) and writes it, aggregating repeats into a series.
//
//   FailedScheduling  Warning  action Scheduling   note: the failure message,
//                                                   truncated to 1024 bytes
//   Scheduled         Normal   action Binding      "Successfully assigned ns/name to node"
//   Preempted         Normal   action Preempting   "Preempted by pod <uid> on node <node>",
//                                                   regarding the victim, related the preemptor
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "pkg/api/types.h"

namespace ksched::scheduler::apiwriter {

inline constexpr char kEventTypeNormal[] = "Normal";
inline constexpr char kEventTypeWarning[] = "Warning";
inline constexpr char kReasonFailedScheduling[] = "FailedScheduling";
inline constexpr char kReasonScheduled[] = "Scheduled";
inline constexpr char kReasonPreempted[] = "Preempted";
inline constexpr char kActionScheduling[] = "Scheduling";
inline constexpr char kActionBinding[] = "Binding";
inline constexpr char kActionPreempting[] = "Preempting";

// events.k8s.io validation limit on Event.note (NoteLengthLimit).
inline constexpr size_t kNoteLengthLimit = 1024;

struct EventRecord {
  api::ObjectReference regarding;
  std::optional<api::ObjectReference> related;
  std::string type;  // Normal or Warning
  std::string reason;
  std::string action;
  std::string note;
  std::string reporting_controller;  // the profile's schedulerName
};

// A message that fits kNoteLengthLimit: longer ones are cut and end in
// " ...", like kube-scheduler's truncateMessage. The cut never splits a
// UTF-8 sequence (the result stays valid UTF-8, which JSON requires).
std::string TruncateMessage(std::string_view message);

// The reference Events use for a pod (kind Pod, apiVersion v1).
api::ObjectReference PodReference(const api::Pod& pod);

EventRecord FailedSchedulingEvent(const api::Pod& pod, std::string_view scheduler_name,
                                  std::string_view message);
EventRecord ScheduledEvent(const api::Pod& pod, std::string_view scheduler_name,
                           std::string_view node_name);
// `in_memory` (kube 1.36 on): the victim was stopped at Permit, without an
// API call; the note says so.
EventRecord PreemptedEvent(const api::Pod& victim, const api::Pod& preemptor, std::string_view scheduler_name,
                           std::string_view node_name, bool in_memory = false);

}  // namespace ksched::scheduler::apiwriter
