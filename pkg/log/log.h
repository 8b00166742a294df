// Logging: spdlog set up once per process, with klog-style verbosity.
//
// `--v=N` sets the verbosity. KLOG_V(n, ...) logs at info level only when the
// verbosity is at least n, as klog.V(n).Info does. Warnings and errors always
// log. At --v=0 the daemon prints warnings, errors and one line per start-up
// phase.
//
// Thread-safety: everything here is thread-safe; Init is meant to be called
// once from main() before threads start.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>

namespace ksched::log {

// Sets the global verbosity and the output pattern (klog-like:
// "I1122 00:18:37.123456 12345 file] message" is approximated by spdlog's
// level letter, time, thread id and message).
void Init(int verbosity);

int Verbosity();
void SetVerbosity(int v);

inline std::atomic<int>& VerbosityStorage() {
  static std::atomic<int> v{0};
  return v;
}

inline bool V(int n) { return VerbosityStorage().load(std::memory_order_relaxed) >= n; }

}  // namespace ksched::log

#define KLOG_V(n, ...)                        \
  do {                                        \
    if (::ksched::log::V(n)) spdlog::info(__VA_ARGS__); \
  } while (0)
