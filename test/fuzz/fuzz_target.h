// One fuzz target: a function of arbitrary input bytes that returns for
// every input and aborts when a property its parser promises is broken.
//
//   KSCHED_FUZZ_TARGET(chunked) { ... `input` is a std::string_view ... }
//
// The same function runs in two builds. In the libFuzzer build (clang,
// KSCHED_FUZZ_LIBFUZZER defined, one target per binary) it is the binary's
// LLVMFuzzerTestOneInput. In the normal build it registers itself under its
// name, and fuzz_replay_test runs it on every file of
// test/fuzz/corpus/<name>/ and test/fuzz/regressions/<name>/, so a crash
// once found stays fixed without clang.
//
// Properties are checked with KSCHED_FUZZ_CHECK, which prints what broke
// (and, in the replay test, which file) and aborts: a crash to libFuzzer, a
// failed test to ctest.
//
// Thread-safety: targets and the registry are used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ksched::fuzz {

using TargetFn = void (*)(std::string_view input);

// Every target linked into this binary, by name (replay build only).
std::map<std::string, TargetFn>& Targets();

// The file being replayed, named when a check fails; empty under libFuzzer,
// which reports its own reproducer.
std::string& CurrentInput();

[[noreturn]] void CheckFailed(const char* file, int line, const char* what);

struct Registrar {
  Registrar(const char* name, TargetFn fn) { Targets()[name] = fn; }
};

}  // namespace ksched::fuzz

#define KSCHED_FUZZ_CHECK(cond, what)                                    \
  do {                                                                   \
    if (!(cond)) ::ksched::fuzz::CheckFailed(__FILE__, __LINE__, what); \
  } while (false)

#ifdef KSCHED_FUZZ_LIBFUZZER
#define KSCHED_FUZZ_TARGET(name)                                                   \
  static void KschedFuzz_##name(std::string_view input);                           \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {        \
    KschedFuzz_##name(std::string_view(reinterpret_cast<const char*>(data), size)); \
    return 0;                                                                      \
  }                                                                                \
  static void KschedFuzz_##name(std::string_view input)
#else
#define KSCHED_FUZZ_TARGET(name)                                                   \
  static void KschedFuzz_##name(std::string_view input);                           \
  static const ::ksched::fuzz::Registrar kschedFuzzRegistrar_##name(#name, KschedFuzz_##name); \
  static void KschedFuzz_##name(std::string_view input)
#endif
