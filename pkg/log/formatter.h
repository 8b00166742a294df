// KlogFormatter: the spdlog formatter behind both log formats (log.h shows
// a line of each). It renders plain spdlog records and the structured
// records of KLOG_INFOS/KLOG_ERRORS, whose fields reach it through a
// thread-local set for the duration of the spdlog call (spdlog's
// synchronous loggers format on the calling thread).
//
// Thread-safety: stateless apart from the format; spdlog calls format()
// under its sink's mutex.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

#include "pkg/log/log.h"

namespace ksched::log {

class KlogFormatter : public spdlog::formatter {
 public:
  explicit KlogFormatter(Format format) : format_(format) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<KlogFormatter>(format_); }

 private:
  Format format_;
};

namespace detail {
// The structured part of the record being logged on this thread, if any.
struct Structured {
  std::initializer_list<Field> fields;
  std::string_view err;
};
const Structured*& CurrentStructured();
int& CurrentV();
}  // namespace detail

}  // namespace ksched::log
