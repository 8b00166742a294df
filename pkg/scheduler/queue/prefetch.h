// Prefetch hints for the queue's batch moves and heap operations, which
// rely on them to overlap cache misses: util::Prefetch (an asm statement on
// x86, so GCC cannot drop it; see pkg/util/prefetch.h) and the lines a
// shared_ptr copy touches.
//
// Thread-safety: stateless.
#pragma once

#include "pkg/util/prefetch.h"

namespace ksched::scheduler::queue {

using util::Prefetch;

// The same, announcing a write (on x86 a read prefetch: prefetchw needs a
// CPU feature check).
inline void PrefetchForWrite(const void* p) { Prefetch(p); }

// Fetches what copying or dropping a std::shared_ptr to `p` touches: the
// reference counts. For an object from std::make_shared (every pod and
// record here) they sit in the 16 bytes just before the object, which may
// be the previous cache line; both lines are fetched. For other owners it
// fetches the object's first line, still a valid hint.
inline void PrefetchSharedCounts(const void* p) {
  Prefetch(static_cast<const char*>(p) - 16);
  Prefetch(p);
}

}  // namespace ksched::scheduler::queue
