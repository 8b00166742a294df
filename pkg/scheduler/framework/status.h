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

#include <memory>
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

class [[nodiscard]] Status {
 public:
  Status() = default;  // Success
  explicit Status(Code code) : code_(code) {}
  Status(Code code, std::vector<std::string> reasons);
  Status(Code code, std::string reason);

  // Copies share the text until one of them changes it (copy-on-write), so
  // a plugin can hand the same rejection to every node it rejects; a
  // moved-from status keeps its code and loses its text.
  Status(const Status& o) = default;
  Status& operator=(const Status& o) = default;
  Status(Status&& o) noexcept = default;
  Status& operator=(Status&& o) noexcept = default;
  ~Status() = default;

  // An Error status wrapping `error`; its message becomes the only reason.
  static Status FromError(util::Status error);
  static Status Error(std::string message);

  Code code() const { return code_; }
  const std::vector<std::string>& reasons() const { return details_ ? details_->reasons : kNoReasons; }
  // The plugin that produced this status ("" when not attributed).
  const std::string& plugin() const { return details_ ? details_->plugin : kNoPlugin; }
  // The wrapped error of an Error status (OK otherwise).
  const util::Status& error() const { return details_ ? details_->error : kNoError; }

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

  // Attributes the status to `plugin`; a status that already names it is
  // left as it is (shared text is not copied).
  Status& WithPlugin(std::string_view plugin) {
    if (plugin != this->plugin()) MutableDetails().plugin = plugin;
    return *this;
  }
  void AppendReason(std::string reason) { MutableDetails().reasons.push_back(std::move(reason)); }

  // Same code and reasons (kube's Status.Equal ignores the plugin as well).
  bool operator==(const Status& o) const { return code_ == o.code_ && reasons() == o.reasons(); }

 private:
  // Everything but the code lives behind one pointer, allocated only when a
  // status carries text: the per-node Filter and Score results, nearly all
  // plain successes, then cost three words to make, move and destroy.
  // Shared among copies and never changed while shared.
  struct Details {
    std::vector<std::string> reasons;
    std::string plugin;
    util::Status error;
  };
  static const std::vector<std::string> kNoReasons;
  static const std::string kNoPlugin;
  static const util::Status kNoError;

  // The details to change: this status's own, copied first when shared.
  // A use count of one means no other status holds them: copies on other
  // threads were released, and their reads came before the release (the
  // write below depends on the count it saw), as in Qt's implicit sharing.
  Details& MutableDetails() {
    if (!details_) {
      details_ = std::make_shared<Details>();
    } else if (details_.use_count() != 1) {
      details_ = std::make_shared<Details>(*details_);
    }
    return const_cast<Details&>(*details_);
  }

  Code code_ = Code::kSuccess;
  std::shared_ptr<const Details> details_;
};

// A rejection attributed to `plugin` as the framework attributes Filter
// failures. Built once (a function-local static) and returned by copy, it
// gives every node rejected alike the same shared text: no allocation per
// node, and the framework's WithPlugin leaves it shared.
inline Status Rejection(Code code, std::string_view reason, std::string_view plugin) {
  return Status(code, std::string(reason)).WithPlugin(plugin);
}

}  // namespace ksched::scheduler::framework
