// Logging: spdlog set up once per process, with klog-style verbosity and
// kube-scheduler's two output formats.
//
// `--v=N` sets the verbosity. KLOG_V(n, ...) logs at info level only when the
// verbosity is at least n (or --vmodule gives the calling file at least n),
// as klog.V(n).Info does. Warnings and errors always log. At --v=0 the
// daemon prints warnings, errors and one line per start-up phase.
//
// Structured records (KLOG_INFOS / KLOG_ERRORS) carry a constant message and
// key/value pairs, as kube-scheduler's logger.V(n).Info(msg, k, v, ...) does,
// so log queries written for kube-scheduler find ksched's lines:
//
//   text: I1126 10:52:27.123456   12345 schedule_one.cc:346] "Successfully bound pod to node" pod="ns/p" node="n1"
//   json: {"ts":1764154347123.456,"caller":"scheduler/schedule_one.cc:346","msg":"Successfully bound pod to node","v":2,"pod":{"name":"p","namespace":"ns"},"node":"n1"}
//
// Plain spdlog calls (spdlog::info("... {}", x)) keep working in both
// formats; their text is the message.
//
// Thread-safety: everything here is thread-safe; Init/Configure are meant to
// be called once from main() before threads start.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

#include "pkg/util/status.h"

namespace ksched::log {

enum class Format { kText, kJson };

struct Options {
  int verbosity = 0;
  Format format = Format::kText;
  // --vmodule: "pattern=N,..." (glob on the source file's base name without
  // extension, or on its path when the pattern holds a '/').
  std::string vmodule;
  // --log-flush-frequency: the longest an info line stays in a buffer.
  std::chrono::seconds flush_frequency = std::chrono::seconds(5);
  // --log-{text,json}-split-stream: info to stdout, errors to stderr
  // (default: everything to stderr, as klog).
  bool split_stream = false;
};

// Text format at `verbosity` on spdlog's default logger (stdout; the
// bundled API server and `ksched simulate`).
void Init(int verbosity);

// The daemon's set-up from its flags. Errors: a malformed --vmodule.
util::Status Configure(const Options& options);

// Builds the logger Configure would, writing to `sink` (tests).
void ConfigureForTest(const Options& options, spdlog::sink_ptr sink);

// "json" / "text" → Format; anything else is an error naming the flag.
util::StatusOr<Format> ParseFormat(std::string_view name);

int Verbosity();
void SetVerbosity(int v);

inline std::atomic<int>& VerbosityStorage() {
  static std::atomic<int> v{0};
  return v;
}

inline bool V(int n) { return VerbosityStorage().load(std::memory_order_relaxed) >= n; }

namespace detail {
// True when --vmodule was given (the slow path of VEnabled).
inline std::atomic<bool>& VModuleActive() {
  static std::atomic<bool> active{false};
  return active;
}
// The --vmodule level of `file` (cached per __FILE__ pointer); -1: none.
int VModuleLevel(const char* file);
}  // namespace detail

// Whether KLOG_V(n) in `file` logs: the global verbosity, else --vmodule.
inline bool VEnabled(int n, const char* file) {
  if (V(n)) return true;
  if (!detail::VModuleActive().load(std::memory_order_relaxed)) return false;
  return detail::VModuleLevel(file) >= n;
}

// A namespaced object's reference: "ns/name" in text, {"name","namespace"}
// in JSON (klog.KObj).
struct ObjectRef {
  std::string namespace_;
  std::string name;
};

// One key/value pair of a structured record. The value is copied: records
// are built only when they are logged.
struct Field {
  using Value = std::variant<std::string, int64_t, double, bool, ObjectRef>;
  Field(std::string_view k, std::string_view v) : key(k), value(std::string(v)) {}
  Field(std::string_view k, const std::string& v) : key(k), value(v) {}
  Field(std::string_view k, const char* v) : key(k), value(std::string(v)) {}
  Field(std::string_view k, bool v) : key(k), value(v) {}
  template <std::integral T>
  Field(std::string_view k, T v) : key(k), value(static_cast<int64_t>(v)) {}
  Field(std::string_view k, double v) : key(k), value(v) {}
  Field(std::string_view k, ObjectRef v) : key(k), value(std::move(v)) {}

  std::string_view key;
  Value value;
};

namespace detail {
// Logs a structured record through spdlog (the formatter adds the fields).
void EmitS(int v, spdlog::level::level_enum level, const char* file, int line, std::string_view msg,
           std::initializer_list<Field> fields, std::string_view err = {});

// Marks the records logged on this thread during its lifetime with
// verbosity `v` (KLOG_V's "v" in JSON).
class VScope {
 public:
  explicit VScope(int v);
  ~VScope();
  VScope(const VScope&) = delete;
  VScope& operator=(const VScope&) = delete;

 private:
  int previous_;
};
}  // namespace detail

}  // namespace ksched::log

#define KLOG_V(n, ...)                                                                          \
  do {                                                                                          \
    if (::ksched::log::VEnabled(n, __FILE__)) {                                                 \
      ::ksched::log::detail::VScope ksched_log_v_scope_(n);                                     \
      spdlog::log(spdlog::source_loc{__FILE__, __LINE__, ""}, spdlog::level::info, __VA_ARGS__); \
    }                                                                                           \
  } while (0)

// KLOG_INFOS(2, "Successfully bound pod to node", {"pod", ref}, {"node", host})
#define KLOG_INFOS(n, msg, ...)                                                                            \
  do {                                                                                                     \
    if (::ksched::log::VEnabled(n, __FILE__)) {                                                            \
      ::ksched::log::detail::EmitS(n, spdlog::level::info, __FILE__, __LINE__, msg, {__VA_ARGS__});        \
    }                                                                                                      \
  } while (0)

// KLOG_ERRORS(err_text, "Error scheduling pod; retrying", {"pod", ref})
#define KLOG_ERRORS(error_text, msg, ...) \
  ::ksched::log::detail::EmitS(0, spdlog::level::err, __FILE__, __LINE__, msg, {__VA_ARGS__}, error_text)
