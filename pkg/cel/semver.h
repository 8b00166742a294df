// Semver: a semantic version as k8s.io/apiserver's CEL semver library sees it
// (github.com/blang/semver/v4): MAJOR.MINOR.PATCH[-PRE][+BUILD].
//
// Parse is strict: three numeric parts without leading zeros, pre-release
// identifiers alphanumeric or hyphen (numeric ones without leading zeros),
// build identifiers alphanumeric or hyphen, none empty. ParseNormalized
// additionally accepts a leading "v" and a missing minor or patch part
// ("v1", "1.2"), as semver(s, true) does. Compare orders by precedence;
// build metadata is ignored, so "1.0.0+a" equals "1.0.0+b".
//
// Thread-safety: an immutable value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel {

class Semver {
 public:
  static util::StatusOr<Semver> Parse(std::string_view s);
  static util::StatusOr<Semver> ParseNormalized(std::string_view s);

  uint64_t major() const { return major_; }
  uint64_t minor() const { return minor_; }
  uint64_t patch() const { return patch_; }

  // -1, 0 or 1 by semver precedence.
  int Compare(const Semver& o) const;

 private:
  struct PreRelease {
    bool numeric = false;
    uint64_t number = 0;
    std::string text;
  };
  uint64_t major_ = 0;
  uint64_t minor_ = 0;
  uint64_t patch_ = 0;
  std::vector<PreRelease> pre_;
};

}  // namespace ksched::cel
