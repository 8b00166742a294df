#include "test/fuzz/fuzz_target.h"

#include <cstdio>
#include <cstdlib>

namespace ksched::fuzz {

std::map<std::string, TargetFn>& Targets() {
  static auto* targets = new std::map<std::string, TargetFn>();
  return *targets;
}

std::string& CurrentInput() {
  static auto* input = new std::string();
  return *input;
}

void CheckFailed(const char* file, int line, const char* what) {
  std::fprintf(stderr, "%s:%d: fuzz property broken: %s\n", file, line, what);
  if (!CurrentInput().empty()) std::fprintf(stderr, "input: %s\n", CurrentInput().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace ksched::fuzz
