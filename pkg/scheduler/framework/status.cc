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

const std::vector<std::string> Status::kNoReasons;
const std::string Status::kNoPlugin;
const util::Status Status::kNoError;

Status::Status(Code code, std::vector<std::string> reasons) : code_(code) {
  if (!reasons.empty()) MutableDetails().reasons = std::move(reasons);
}

Status::Status(Code code, std::string reason) : code_(code) { MutableDetails().reasons.push_back(std::move(reason)); }

Status Status::FromError(util::Status error) {
  Status s(Code::kError, error.message());
  s.MutableDetails().error = std::move(error);
  return s;
}

Status Status::Error(std::string message) {
  return FromError(util::Status(util::StatusCode::kInternal, std::move(message)));
}

std::string Status::Message() const {
  std::string out;
  const std::vector<std::string>& rs = reasons();
  for (size_t i = 0; i < rs.size(); ++i) {
    if (i > 0) out += ", ";
    out += rs[i];
  }
  return out;
}

std::string Status::ToString() const {
  if (IsSuccess() && reasons().empty()) return "Success";
  std::string out = CodeName(code_);
  std::string msg = Message();
  if (!msg.empty()) out += ": " + msg;
  return out;
}

}  // namespace ksched::scheduler::framework
