#include "pkg/scheduler/plugins/dynamicresources/dynamic_resources_args.h"

#include "pkg/config/args_fields.h"
#include "pkg/config/config_gates.h"
#include "pkg/util/go_duration.h"
#include "pkg/config/yaml_reader.h"

namespace ksched::scheduler::plugins::dynamicresources {
namespace {

using config::Value;

void Decode(config::YamlReader* r, config::MapReader& m, std::string_view, DynamicResourcesArgs* a) {
  config::ReadField(m, "filterTimeout", [&](const Value& x) { a->filter_timeout = r->Duration(x); });
  config::ReadField(m, "bindingTimeout", [&](const Value& x) { a->binding_timeout = r->Duration(x); });
}

void SetDefaults(DynamicResourcesArgs* a) {
  if (!a->filter_timeout) a->filter_timeout = kDefaultFilterTimeout;
  if (!a->binding_timeout && config::CurrentConfigGates().dra_binding_conditions) {
    a->binding_timeout = kDefaultBindingTimeout;
  }
}

void Encode(const DynamicResourcesArgs& a, nlohmann::ordered_json* out) {
  if (a.filter_timeout) (*out)["filterTimeout"] = util::FormatGoDuration(*a.filter_timeout);
  if (a.binding_timeout) (*out)["bindingTimeout"] = util::FormatGoDuration(*a.binding_timeout);
}

}  // namespace

config::ErrorList ValidateDynamicResourcesArgs(const std::string& path, const DynamicResourcesArgs& a) {
  config::ErrorList errs;
  if (a.filter_timeout && *a.filter_timeout < util::Duration::zero()) {
    errs.push_back(config::Invalid(config::ChildPath(path, "filterTimeout"),
                                   config::Quote(util::FormatGoDuration(*a.filter_timeout)),
                                   "must be zero or positive"));
  }
  if (config::CurrentConfigGates().dra_binding_conditions) {
    if (a.binding_timeout && *a.binding_timeout < std::chrono::seconds(1)) {
      errs.push_back(config::Invalid(config::ChildPath(path, "bindingTimeout"),
                                     config::Quote(util::FormatGoDuration(*a.binding_timeout)),
                                     "must be at least 1 second"));
    }
  } else if (a.binding_timeout) {
    errs.push_back(config::Forbidden(config::ChildPath(path, "bindingTimeout"),
                                     "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"));
  }
  return errs;
}

const config::ArgsCodec& DynamicResourcesArgs::Codec() {
  static const auto* const kCodec = new config::TypedArgsCodec<DynamicResourcesArgs>(
      {"DynamicResourcesArgs", &Decode, &SetDefaults, &ValidateDynamicResourcesArgs, &Encode});
  return *kCodec;
}

}  // namespace ksched::scheduler::plugins::dynamicresources
