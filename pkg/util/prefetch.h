// Prefetch: a cache-line prefetch hint that the compiler keeps.
//
// GCC 12 deletes a __builtin_prefetch that sits alone in a conditional
// block of an inlined function (the block then has no side effects): e.g.
// `if (!v.empty()) __builtin_prefetch(&v[i]);` compiles to nothing, and so
// did every NodeInfo prefetch of the Filter and Score loops. On x86 the hint
// is therefore an asm statement the optimizer cannot drop. It never
// faults, even on an invalid address, and changes no memory.
//
// Thread-safety: stateless.
#pragma once

namespace ksched::util {

inline void Prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace ksched::util
