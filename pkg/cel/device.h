// Device: what a DRA selector sees of a device (resource.k8s.io/v1
// Device): its driver, typed attributes and capacities, keyed by qualified
// name ("gpu.example.com/model", or "model", which means the driver's domain).
// Capacities are kept as written in the ResourceSlice ("1.5Gi"), because
// Kubernetes' quantity functions depend on the written form
// (kube_quantity.h); they are parsed when a selector runs.
//
// Thread-safety: a plain value type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>


namespace ksched::cel {

// One of the four attribute value kinds; a version is kept as its text and
// parsed (strict semver) when a selector runs.
struct DeviceAttribute {
  enum class Kind { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kString;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string string_value;  // kString and kVersion

  static DeviceAttribute Int(int64_t v) { DeviceAttribute a; a.kind = Kind::kInt; a.int_value = v; return a; }
  static DeviceAttribute Bool(bool v) { DeviceAttribute a; a.kind = Kind::kBool; a.bool_value = v; return a; }
  static DeviceAttribute String(std::string v) {
    DeviceAttribute a; a.kind = Kind::kString; a.string_value = std::move(v); return a;
  }
  static DeviceAttribute Version(std::string v) {
    DeviceAttribute a; a.kind = Kind::kVersion; a.string_value = std::move(v); return a;
  }
};

struct Device {
  std::string driver;
  std::optional<bool> allow_multiple_allocations;
  std::map<std::string, DeviceAttribute> attributes;
  std::map<std::string, std::string> capacity;
};

}  // namespace ksched::cel
