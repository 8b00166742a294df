// Prefetch: a cache-line prefetch hint that the compiler keeps.
//
// GCC 12 deletes a __builtin_prefetch that sits alone in a conditional
// block of an inlined function (the block then has no side effects): e.g.
// `if (!v.empty()) __builtin_prefetch(&v[i]);` compiles to nothing. The
// batch moves and heap operations here rely on their prefetches to overlap
// cache misses, so on x86 the hint is an asm statement the optimizer cannot
// drop. It never faults, even on an invalid address, and changes no
// memory.
//
// Thread-safety: stateless.
#pragma once

namespace ksched::scheduler::queue {

inline void Prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

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
