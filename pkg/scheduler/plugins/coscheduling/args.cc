#include "pkg/scheduler/plugins/coscheduling/args.h"

#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::coscheduling {
namespace {

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, CoschedulingArgs* a) {
  config::ReadField(m, "permitWaitingTimeSeconds", [&](const config::Value& x) {
    if (std::optional<int64_t> v = r->Int64(x)) a->permit_waiting_time_seconds = *v;
  });
  config::ReadField(m, "podGroupBackoffSeconds", [&](const config::Value& x) {
    if (std::optional<int64_t> v = r->Int64(x)) a->pod_group_backoff_seconds = *v;
  });
}

// The struct's initializers are the defaults.
void SetDefaults(CoschedulingArgs*) {}

void Encode(const CoschedulingArgs& a, nlohmann::ordered_json* out) {
  (*out)["permitWaitingTimeSeconds"] = a.permit_waiting_time_seconds;
  (*out)["podGroupBackoffSeconds"] = a.pod_group_backoff_seconds;
}

}  // namespace

CoschedulingArgs DefaultArgs() { return CoschedulingArgs{}; }

config::ErrorList ValidateCoschedulingArgs(const std::string& path, const CoschedulingArgs& args) {
  config::ErrorList errs;
  auto non_negative = [&](const char* field, int64_t value) {
    if (value < 0) {
      errs.push_back(config::Invalid(config::ChildPath(path, field), std::to_string(value),
                                     "must be greater than or equal to 0"));
    }
  };
  non_negative("permitWaitingTimeSeconds", args.permit_waiting_time_seconds);
  non_negative("podGroupBackoffSeconds", args.pod_group_backoff_seconds);
  return errs;
}

util::Status ValidateArgs(const CoschedulingArgs& args) {
  config::ErrorList errs = ValidateCoschedulingArgs("", args);
  return errs.empty() ? util::Status::Ok() : util::InvalidArgument(config::JoinErrors(errs));
}

const config::ArgsCodec& CoschedulingArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<CoschedulingArgs>(
      {"CoschedulingArgs", &Decode, &SetDefaults, &ValidateCoschedulingArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::coscheduling
