#include "pkg/log/formatter.h"

#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "pkg/util/json_escape.h"

namespace ksched::log {

namespace detail {
const Structured*& CurrentStructured() {
  thread_local const Structured* current = nullptr;
  return current;
}
int& CurrentV() {
  thread_local int v = 0;
  return v;
}
}  // namespace detail

namespace {

void Append(spdlog::memory_buf_t& dest, std::string_view s) { dest.append(s.data(), s.data() + s.size()); }

void AppendJsonString(spdlog::memory_buf_t& dest, std::string_view s) {
  dest.push_back('"');
  util::AppendJsonEscaped(dest, s);
  dest.push_back('"');
}

// Go's %q-style quoting as klog's text format uses for messages and string
// values.
void AppendQuoted(spdlog::memory_buf_t& dest, std::string_view s) { AppendJsonString(dest, s); }

void AppendDouble(spdlog::memory_buf_t& dest, double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  Append(dest, buf);
}

void AppendJsonValue(spdlog::memory_buf_t& dest, const Field::Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) {
    AppendJsonString(dest, *s);
  } else if (const auto* i = std::get_if<int64_t>(&v)) {
    Append(dest, std::to_string(*i));
  } else if (const auto* d = std::get_if<double>(&v)) {
    AppendDouble(dest, *d);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    Append(dest, *b ? "true" : "false");
  } else if (const auto* r = std::get_if<ObjectRef>(&v)) {
    Append(dest, "{\"name\":");
    AppendJsonString(dest, r->name);
    if (!r->namespace_.empty()) {
      Append(dest, ",\"namespace\":");
      AppendJsonString(dest, r->namespace_);
    }
    dest.push_back('}');
  }
}

void AppendTextValue(spdlog::memory_buf_t& dest, const Field::Value& v) {
  if (const auto* r = std::get_if<ObjectRef>(&v)) {
    AppendQuoted(dest, r->namespace_.empty() ? r->name : r->namespace_ + "/" + r->name);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    AppendQuoted(dest, *s);
  } else {
    AppendJsonValue(dest, v);
  }
}

// "dir/file.cc" of a __FILE__ path, as zap's short caller.
std::string_view ShortFile(const char* file, int keep_dirs) {
  std::string_view f(file);
  size_t pos = f.size();
  for (int i = 0; i <= keep_dirs; ++i) {
    size_t slash = pos == 0 ? std::string_view::npos : f.rfind('/', pos - 1);
    if (slash == std::string_view::npos) return f;
    pos = slash;
  }
  return f.substr(pos + 1);
}

char LevelLetter(spdlog::level::level_enum l) {
  switch (l) {
    case spdlog::level::warn: return 'W';
    case spdlog::level::err: return 'E';
    case spdlog::level::critical: return 'F';
    default: return 'I';
  }
}

}  // namespace

void KlogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const detail::Structured* s = detail::CurrentStructured();
  std::string_view payload(msg.payload.data(), msg.payload.size());
  const bool has_caller = msg.source.filename != nullptr && msg.source.line > 0;
  if (format_ == Format::kJson) {
    const auto since_epoch = msg.time.time_since_epoch();
    const double millis =
        static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count()) / 1000.0;
    char ts[64];
    std::snprintf(ts, sizeof(ts), "%.3f", millis);
    Append(dest, "{\"ts\":");
    Append(dest, ts);
    if (has_caller) {
      Append(dest, ",\"caller\":\"");
      util::AppendJsonEscaped(dest, ShortFile(msg.source.filename, 1));
      dest.push_back(':');
      Append(dest, std::to_string(msg.source.line));
      dest.push_back('"');
    }
    Append(dest, ",\"msg\":");
    AppendJsonString(dest, payload);
    if (msg.level < spdlog::level::err) {
      Append(dest, ",\"v\":");
      Append(dest, std::to_string(detail::CurrentV()));
    }
    if (s != nullptr) {
      for (const Field& f : s->fields) {
        dest.push_back(',');
        AppendJsonString(dest, f.key);
        dest.push_back(':');
        AppendJsonValue(dest, f.value);
      }
      if (!s->err.empty()) {
        Append(dest, ",\"err\":");
        AppendJsonString(dest, s->err);
      }
    }
    Append(dest, "}\n");
    return;
  }
  // klog's header: Lmmdd hh:mm:ss.uuuuuu threadid file:line]
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(msg.time);
  const time_t t = std::chrono::system_clock::to_time_t(secs);
  tm local{};
  localtime_r(&t, &local);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(msg.time - secs).count();
  char head[64];
  std::snprintf(head, sizeof(head), "%c%02d%02d %02d:%02d:%02d.%06" PRId64 " %7zu", LevelLetter(msg.level),
                local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int64_t>(micros), msg.thread_id);
  Append(dest, head);
  if (has_caller) {
    dest.push_back(' ');
    Append(dest, ShortFile(msg.source.filename, 0));
    dest.push_back(':');
    Append(dest, std::to_string(msg.source.line));
  }
  Append(dest, "] ");
  if (s == nullptr) {
    Append(dest, payload);
  } else {
    AppendQuoted(dest, payload);
    if (!s->err.empty()) {
      Append(dest, " err=");
      AppendQuoted(dest, s->err);
    }
    for (const Field& f : s->fields) {
      dest.push_back(' ');
      Append(dest, f.key);
      dest.push_back('=');
      AppendTextValue(dest, f.value);
    }
  }
  dest.push_back('\n');
}

}  // namespace ksched::log
