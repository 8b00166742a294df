#include "pkg/scheduler/framework/feature_gates.h"

#include <optional>
#include <string>

namespace ksched::scheduler::framework {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return false;
  return std::nullopt;
}

}  // namespace

util::Status FeatureGates::Set(std::string_view spec) {
  FeatureGates next = *this;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return util::InvalidArgument("missing bool value for feature gate " + std::string(item));
    }
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view value = Trim(item.substr(eq + 1));
    std::optional<bool> on = ParseBool(value);
    if (!on) {
      return util::InvalidArgument("invalid value of " + std::string(name) + "=" + std::string(value) +
                                   ", err: strconv.ParseBool: parsing \"" + std::string(value) +
                                   "\": invalid syntax");
    }
    if (name == "SchedulerQueueingHints") {
      // GA in v1.34 and locked to true: kube-scheduler refuses to start with
      // it off, so ksched does too (the off path remains for tests).
      if (!*on) {
        return util::InvalidArgument("cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
      }
      next.scheduler_queueing_hints = true;
    } else if (name == "SchedulerPopFromBackoffQ") {
      next.scheduler_pop_from_backoff_q = *on;
    } else if (name == "SchedulerAsyncPreemption") {
      next.scheduler_async_preemption = *on;
    } else {
      return util::InvalidArgument("unrecognized feature gate: " + std::string(name));
    }
  }
  *this = next;
  return util::Status::Ok();
}

bool FeatureGates::IsKnown(std::string_view name) {
  return name == "SchedulerQueueingHints" || name == "SchedulerPopFromBackoffQ" || name == "SchedulerAsyncPreemption";
}

util::StatusOr<FeatureGates> FeatureGates::Parse(std::string_view spec) {
  FeatureGates g;
  util::Status s = g.Set(spec);
  if (!s.ok()) return s;
  return g;
}

}  // namespace ksched::scheduler::framework
