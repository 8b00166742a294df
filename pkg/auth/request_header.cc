#include "pkg/auth/request_header.h"

#include <algorithm>
#include <cctype>

namespace ksched::auth {

namespace {

std::string TrimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// kube trims the configured names and drops nothing else; an empty name
// would match nothing here.
std::vector<std::string> TrimAll(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    std::string t = TrimSpaces(n);
    if (!t.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The first non-empty value among `names`, in order.
std::optional<std::string> FirstValue(const net::Headers& headers, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    // Go's Header.Get: the first field of that name, even when empty.
    const std::string* v = headers.Get(name);
    if (v != nullptr && !v->empty()) return *v;
  }
  return std::nullopt;
}

}  // namespace

RequestHeaderAuthenticator::RequestHeaderAuthenticator(RequestHeaderOptions options) {
  options_.username_headers = TrimAll(options.username_headers);
  options_.group_headers = TrimAll(options.group_headers);
  options_.extra_headers_prefixes = TrimAll(options.extra_headers_prefixes);
  options_.uid_headers = TrimAll(options.uid_headers);
  options_.allowed_names = std::move(options.allowed_names);
}

bool RequestHeaderAuthenticator::AllowedName(std::string_view common_name) const {
  if (options_.allowed_names.empty()) return true;
  return std::find(options_.allowed_names.begin(), options_.allowed_names.end(), common_name) !=
         options_.allowed_names.end();
}

std::optional<std::string> RequestHeaderAuthenticator::PathUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::optional<UserInfo> RequestHeaderAuthenticator::Authenticate(const net::Headers& headers) const {
  std::optional<std::string> name = FirstValue(headers, options_.username_headers);
  if (!name) return std::nullopt;
  UserInfo user;
  user.name = std::move(*name);
  for (const std::string& g : options_.group_headers) {
    for (const auto& [field, value] : headers.entries()) {
      if (net::EqualsIgnoreCase(field, g) && !value.empty()) user.groups.push_back(value);
    }
  }
  // Prefix by prefix, so values keep the prefixes' order (as kube).
  for (const std::string& prefix : options_.extra_headers_prefixes) {
    for (const auto& [field, value] : headers.entries()) {
      if (field.size() < prefix.size() || !net::EqualsIgnoreCase(std::string_view(field).substr(0, prefix.size()),
                                                                  prefix)) {
        continue;
      }
      const std::string raw = Lower(std::string_view(field).substr(prefix.size()));
      std::optional<std::string> key = PathUnescape(raw);
      user.extra[key ? *key : raw].push_back(value);
    }
  }
  if (std::optional<std::string> uid = FirstValue(headers, options_.uid_headers)) user.uid = std::move(*uid);
  return user;
}

}  // namespace ksched::auth
