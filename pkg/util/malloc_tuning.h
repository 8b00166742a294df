// Keeps freed heap for reuse instead of handing it back to the kernel at
// once. With SSL_MODE_RELEASE_BUFFERS (pkg/client/tls.cc) every TLS read
// and write allocates and frees a record buffer of about 17 KB; with
// glibc's defaults that free shrinks the arena's top and the next read
// faults the pages in again (zeroed by the kernel) and consolidates the
// fast bins. On the DRA side-by-side workload that churn was 3–4 % of
// ksched's CPU (docs/performance.md). Setting these also fixes glibc's
// mmap threshold at its 128 KiB default instead of letting it grow; the
// measurements include that.
//
// An operator's MALLOC_TOP_PAD_ or MALLOC_TRIM_THRESHOLD_ wins: nothing is
// changed when either is set.
//
// Thread-safety: call once, before other threads allocate.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

namespace ksched::util {

struct MallocTuning {
  size_t top_pad = 0;         // M_TOP_PAD: extra bytes each time an arena's top grows
  size_t trim_threshold = 0;  // M_TRIM_THRESHOLD: free top kept before it is returned
};

// The tuning to apply, or nullopt when the environment (read through
// `getenv`) already tunes glibc's malloc.
std::optional<MallocTuning> DecideMallocTuning(const std::function<const char*(const char*)>& getenv);

// Applies DecideMallocTuning(::getenv) with mallopt; whether it was applied
// (false too where mallopt refuses, as under sanitizers).
bool KeepFreedHeapForReuse();

}  // namespace ksched::util
