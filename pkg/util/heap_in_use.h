// HeapBytesInUse: the bytes glibc's malloc has handed out and not taken
// back, over every arena (mallinfo2's uordblks). Footprint tests count with
// it: deterministic for a given glibc, unlike RSS, so a check cannot flake.
// Under ASan or TSan their own allocator owns the heap and the count means
// nothing: kHeapBytesCounted is false there.
// Thread-safety: callable from any thread; the count is a snapshot.
#pragma once

#include <malloc.h>

#include <cstddef>

namespace ksched::util {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kHeapBytesCounted = false;
#else
inline constexpr bool kHeapBytesCounted = true;
#endif

inline size_t HeapBytesInUse() { return mallinfo2().uordblks; }

}  // namespace ksched::util
