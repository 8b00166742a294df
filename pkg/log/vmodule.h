// VModule: the --vmodule rules ("pattern=N,..."), klog's per-file
// verbosity. A pattern is a glob (fnmatch) on the source file's base name
// without extension ("schedule_one=4"), or, when it holds a '/', on the
// file's path without extension, anchored at a directory boundary
// ("scheduler/*=4"). The first matching rule wins.
//
// Thread-safety: immutable after Parse.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::log {

class VModule {
 public:
  // "" is no rules. Errors name the flag and the bad entry.
  static util::StatusOr<VModule> Parse(std::string_view spec);

  // The level of the first rule matching `file` (a __FILE__ path); -1: none.
  int LevelFor(std::string_view file) const;

  bool empty() const { return rules_.empty(); }

 private:
  std::vector<std::pair<std::string, int>> rules_;
};

}  // namespace ksched::log
