#include "test/bench/instruction_count.h"

// The header comes from Debian's valgrind package; builds without it keep
// the harness and just count nothing.
#if defined(__has_include) && __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define KSCHED_HAVE_CALLGRIND 1
#endif

namespace ksched::bench {

void StartInstructionCount() {
#ifdef KSCHED_HAVE_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
#endif
}

void StopInstructionCount() {
#ifdef KSCHED_HAVE_CALLGRIND
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
}

bool UnderValgrind() {
#ifdef KSCHED_HAVE_CALLGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

}  // namespace ksched::bench
