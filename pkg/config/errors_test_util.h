// Test helper: an ErrorList as the strings its errors print.
#pragma once

#include <string>
#include <vector>

#include "pkg/config/errors.h"

namespace ksched::config {

inline std::vector<std::string> Messages(const ErrorList& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

}  // namespace ksched::config
