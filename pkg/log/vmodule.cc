#include "pkg/log/vmodule.h"

#include <fnmatch.h>

#include <charconv>

namespace ksched::log {

util::StatusOr<VModule> VModule::Parse(std::string_view spec) {
  VModule m;
  size_t start = 0;
  while (start < spec.size()) {
    size_t comma = spec.find(',', start);
    std::string_view entry = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? spec.size() : comma + 1;
    if (entry.empty()) continue;
    size_t eq = entry.find('=');
    int level = -1;
    if (eq != std::string_view::npos && eq > 0) {
      std::string_view n = entry.substr(eq + 1);
      auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), level);
      if (ec != std::errc() || ptr != n.data() + n.size() || n.empty()) level = -1;
    }
    if (level < 0) {
      return util::InvalidArgument("invalid value \"" + std::string(spec) + "\" for flag --vmodule: \"" +
                                   std::string(entry) + "\" is not pattern=N with N a non-negative integer");
    }
    m.rules_.emplace_back(std::string(entry.substr(0, eq)), level);
  }
  return m;
}

int VModule::LevelFor(std::string_view file) const {
  std::string path(file);
  if (size_t dot = path.rfind('.'); dot != std::string::npos && path.find('/', dot) == std::string::npos) {
    path.resize(dot);
  }
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const auto& [pattern, level] : rules_) {
    if (pattern.find('/') == std::string::npos) {
      if (fnmatch(pattern.c_str(), base.c_str(), 0) == 0) return level;
      continue;
    }
    // Anchored at the start of the path or after any '/'.
    if (fnmatch(pattern.c_str(), path.c_str(), 0) == 0) return level;
    for (size_t p = path.find('/'); p != std::string::npos; p = path.find('/', p + 1)) {
      if (fnmatch(pattern.c_str(), path.c_str() + p + 1, 0) == 0) return level;
    }
  }
  return -1;
}

}  // namespace ksched::log
