#include "pkg/util/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>

namespace ksched::util {

std::optional<MallocTuning> DecideMallocTuning(const std::function<const char*(const char*)>& getenv) {
  if (getenv("MALLOC_TOP_PAD_") != nullptr || getenv("MALLOC_TRIM_THRESHOLD_") != nullptr) return std::nullopt;
  return MallocTuning{4u << 20, 16u << 20};
}

bool KeepFreedHeapForReuse() {
  std::optional<MallocTuning> tuning = DecideMallocTuning([](const char* name) { return std::getenv(name); });
  if (!tuning) return false;
  const bool pad = mallopt(M_TOP_PAD, static_cast<int>(tuning->top_pad)) == 1;
  const bool trim = mallopt(M_TRIM_THRESHOLD, static_cast<int>(tuning->trim_threshold)) == 1;
  return pad && trim;
}

}  // namespace ksched::util
