// framework::Status: the result of running a plugin at an extension point,
// with kube-scheduler's codes, reasons and the plugin that produced it.
//
// A default-constructed Status is Success (kube's nil *Status). Reasons are
// user-visible strings (they end up in FailedScheduling events), so they
// are kept verbatim. A Status with code Error may also carry an underlying
// util::Status describing the failure.
//
// Thread-safety: a value type; distinct objects may be used concurrently.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::scheduler::framework {

// The numeric values match kube-scheduler's Code constants.
enum class Code : int {
  kSuccess = 0,
  // Internal or unexpected failure; the pod goes to the error backoff heap.
  kError = 1,
  // The pod does not fit now; preemption might help.
  kUnschedulable = 2,
  // The pod does not fit and preemption cannot help.
  kUnschedulableAndUnresolvable = 3,
  // A Permit plugin asks the pod to wait.
  kWait = 4,
  // The plugin has nothing to do for this pod (PreFilter, PreScore, Bind).
  kSkip = 5,
  // The pod waits for something outside the scheduler (e.g. an async API
  // call); an event from the plugin requeues it without backoff.
  kPending = 6,
};

// "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
// "Wait", "Skip", "Pending".
const char* CodeName(Code code);

class Status {
 public:
  Status() = default;  // Success
  explicit Status(Code code) : code_(code) {}
  Status(Code code, std::vector<std::string> reasons) : code_(code), reasons_(std::move(reasons)) {}
  Status(Code code, std::string reason) : code_(code) { reasons_.push_back(std::move(reason)); }

  // An Error status wrapping `error`; its message becomes the only reason.
  static Status FromError(util::Status error);
  static Status Error(std::string message);

  Code code() const { return code_; }
  const std::vector<std::string>& reasons() const { return reasons_; }
  // The plugin that produced this status ("" when not attributed).
  const std::string& plugin() const { return plugin_; }
  // The wrapped error of an Error status (OK otherwise).
  const util::Status& error() const { return error_; }

  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod was
  // rejected rather than failed.
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  // Reasons joined by ", " (kube's Status.Message()).
  std::string Message() const;
  // "<Code>: <message>" for logs; "Success" for a success.
  std::string ToString() const;

  Status& WithPlugin(std::string plugin) {
    plugin_ = std::move(plugin);
    return *this;
  }
  void AppendReason(std::string reason) { reasons_.push_back(std::move(reason)); }

  // Same code and reasons (kube's Status.Equal ignores the plugin as well).
  bool operator==(const Status& o) const { return code_ == o.code_ && reasons_ == o.reasons_; }

 private:
  Code code_ = Code::kSuccess;
  std::vector<std::string> reasons_;
  std::string plugin_;
  util::Status error_;
};

}  // namespace ksched::scheduler::framework
