// Status and StatusOr<T>: errors as values (architecture decision 4).
//
// A Status is OK or carries a code and a message. StatusOr<T> holds either a
// T or a non-OK Status. Both are cheap to move and have value semantics.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace ksched::util {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // malformed input: a decode error, a bad flag, a bad config
  kNotFound,
  kAlreadyExists,
  kConflict,         // optimistic-concurrency or binding conflict (HTTP 409)
  kGone,             // resourceVersion too old (HTTP 410)
  kUnavailable,      // transient: connection refused, 5xx, 429
  kDeadlineExceeded,
  kCancelled,
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: spec.containers[1].resources.requests.cpu: ..."
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string msg) { return Status(StatusCode::kInvalidArgument, std::move(msg)); }
inline Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
inline Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

template <class T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  const T& value() const& { assert(ok()); return *value_; }
  T& value() & { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace ksched::util
