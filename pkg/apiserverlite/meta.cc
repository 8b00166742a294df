#include "pkg/apiserverlite/meta.h"

#include <fmt/format.h>

#include <ctime>
#include <random>

namespace ksched::apiserver {

namespace {

std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

std::string MetaString(const nlohmann::json& obj, const char* field) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto f = m->find(field);
  if (f == m->end() || !f->is_string()) return "";
  return f->get<std::string>();
}

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsLabelPart(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

std::string ObjectKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).push_back('/');
  key.append(name);
  return key;
}

std::string ObjectName(const nlohmann::json& obj) { return MetaString(obj, "name"); }
std::string ObjectNamespace(const nlohmann::json& obj) { return MetaString(obj, "namespace"); }

std::string FormatTime(util::WallTime t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string FormatMicroTime(util::WallTime t) {
  auto since_epoch = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  auto micros = since_epoch.count() % 1000000;
  if (micros < 0) micros += 1000000;
  std::string s = FormatTime(t);
  s.pop_back();  // 'Z'
  return fmt::format("{}.{:06}Z", s, micros);
}

std::string NewUid() {
  std::uniform_int_distribution<uint64_t> dist;
  uint64_t hi = dist(Rng());
  uint64_t lo = dist(Rng());
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffULL);
}

std::string GenerateName(std::string_view prefix) {
  // The real server avoids vowels and look-alike characters.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> dist(0, kAlphabet.size() - 1);
  std::string name(prefix);
  for (int i = 0; i < 5; ++i) name.push_back(kAlphabet[dist(Rng())]);
  return name;
}

std::optional<uint64_t> ParseResourceVersion(std::string_view rv) {
  if (rv.empty()) return 0;
  if (rv.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : rv) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

bool IsDnsSubdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!IsLabelPart(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsDnsLabel(std::string_view name) { return IsLabelPart(name); }

}  // namespace ksched::apiserver
