#include "pkg/scheduler/framework/status.h"

namespace ksched::scheduler::framework {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kSuccess: return "Success";
    case Code::kError: return "Error";
    case Code::kUnschedulable: return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable: return "UnschedulableAndUnresolvable";
    case Code::kWait: return "Wait";
    case Code::kSkip: return "Skip";
    case Code::kPending: return "Pending";
  }
  return "";
}

Status Status::FromError(util::Status error) {
  Status s(Code::kError, error.message());
  s.error_ = std::move(error);
  return s;
}

Status Status::Error(std::string message) {
  return FromError(util::Status(util::StatusCode::kInternal, std::move(message)));
}

std::string Status::Message() const {
  std::string out;
  for (size_t i = 0; i < reasons_.size(); ++i) {
    if (i > 0) out += ", ";
    out += reasons_[i];
  }
  return out;
}

std::string Status::ToString() const {
  if (IsSuccess() && reasons_.empty()) return "Success";
  std::string out = CodeName(code_);
  std::string msg = Message();
  if (!msg.empty()) out += ": " + msg;
  return out;
}

}  // namespace ksched::scheduler::framework
