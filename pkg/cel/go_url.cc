#include "pkg/cel/go_url.h"

#include <algorithm>
#include <map>

#include "pkg/cel/go_quote.h"
#include "pkg/cel/net_addr.h"

namespace ksched::cel {
namespace {

// The parts of a URL, each with its own set of bytes written as they are.
enum class Part { kPath, kPathSegment, kHost, kZone, kUserPassword, kQueryComponent, kFragment };

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

uint8_t HexValue(char c) {
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<uint8_t>(c - 'a' + 10);
  return static_cast<uint8_t>(c - 'A' + 10);
}

bool OneOf(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

// Whether Go writes byte `c` of this part as a %XX escape (RFC 3986's
// unreserved and, per part, reserved characters stay as they are).
bool ShouldEscape(char c, Part part) {
  if (IsAlnum(c)) return false;
  if ((part == Part::kHost || part == Part::kZone) && OneOf(c, "!$&'()*+,;=:[]<>\"")) return false;
  if (OneOf(c, "-_.~")) return false;
  if (OneOf(c, "$&+,/:;=?@")) {
    switch (part) {
      case Part::kPath: return c == '?';
      case Part::kPathSegment: return OneOf(c, "/;,?");
      case Part::kUserPassword: return OneOf(c, "@/?:");
      case Part::kQueryComponent: return true;
      case Part::kFragment: return false;
      case Part::kHost:
      case Part::kZone: return true;
    }
  }
  if (part == Part::kFragment && OneOf(c, "!()*")) return false;
  return true;
}

util::Status EscapeError(std::string_view s) { return util::InvalidArgument("invalid URL escape " + GoQuote(s)); }

// Go's unescape: %XX decoded (and '+' as a space in a query component);
// a malformed escape is an error, and so, in a host, is an escape of an
// ASCII byte other than %25, or an ASCII byte a host may not hold.
util::StatusOr<std::string> Unescape(std::string_view s, Part part) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !IsHex(s[i + 1]) || !IsHex(s[i + 2])) return EscapeError(s.substr(i, 3));
      const auto v = static_cast<uint8_t>(HexValue(s[i + 1]) << 4 | HexValue(s[i + 2]));
      const bool is_25 = s.substr(i, 3) == "%25";
      if (part == Part::kHost && HexValue(s[i + 1]) < 8 && !is_25) return EscapeError(s.substr(i, 3));
      // A zone may spell with escapes only bytes it could hold (or a space).
      if (part == Part::kZone && !is_25 && v != ' ' && ShouldEscape(static_cast<char>(v), Part::kHost)) {
        return EscapeError(s.substr(i, 3));
      }
      out += static_cast<char>(v);
      i += 3;
      continue;
    }
    if ((part == Part::kHost || part == Part::kZone) && static_cast<uint8_t>(c) < 0x80 && ShouldEscape(c, part)) {
      return util::InvalidArgument("invalid character " + GoQuote(std::string_view(&c, 1)) + " in host name");
    }
    out += (c == '+' && part == Part::kQueryComponent) ? ' ' : c;
    ++i;
  }
  return out;
}

std::string Escape(std::string_view s, Part part) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    if (c == ' ' && part == Part::kQueryComponent) {
      out += '+';
    } else if (ShouldEscape(c, part)) {
      const auto b = static_cast<uint8_t>(c);
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Whether `s` holds only bytes this part may write unescaped (or '%').
bool ValidEncoded(std::string_view s, Part part) {
  return std::all_of(s.begin(), s.end(),
                     [&](char c) { return OneOf(c, "!$&'()*+,;=:@[]%") || !ShouldEscape(c, part); });
}

// "" or ':' followed by digits only.
bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  return std::all_of(port.begin() + 1, port.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool ValidUserinfo(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || OneOf(c, "-._:~!$&'()*+,;=%@"); });
}

util::StatusOr<std::string> ParseHost(std::string_view scheme, std::string_view host, bool lenient_colons) {
  const size_t open = host.rfind('[');
  if (open != std::string_view::npos && open > 0) return util::InvalidArgument("invalid IP-literal");
  if (open == 0) {
    const size_t close = host.rfind(']');
    if (close == std::string_view::npos) return util::InvalidArgument("missing ']' in host");
    const std::string_view colon_port = host.substr(close + 1);
    if (!ValidOptionalPort(colon_port)) {
      return util::InvalidArgument("invalid port " + GoQuote(colon_port) + " after host");
    }
    const std::string_view name = host.substr(1, close - 1);
    std::string unescaped;
    const size_t zone = name.find("%25");
    util::StatusOr<std::string> addr_part = Unescape(name.substr(0, zone), Part::kHost);
    if (!addr_part.ok()) return addr_part.status();
    unescaped = *addr_part;
    if (zone != std::string_view::npos) {
      util::StatusOr<std::string> zone_part = Unescape(name.substr(zone), Part::kZone);
      if (!zone_part.ok()) return zone_part.status();
      unescaped += *zone_part;
    }
    util::StatusOr<IpAddr> addr = IpAddr::Parse(unescaped);
    if (!addr.ok()) return util::InvalidArgument("invalid host: " + addr.status().message());
    if (addr->is4) return util::InvalidArgument("invalid IP-literal");
    return "[" + unescaped + "]" + std::string(colon_port);
  }
  if (size_t i = host.find(':'); i != std::string_view::npos) {
    // Go 1.26 reads an http(s) port from the first colon, others from the last.
    if (lenient_colons || (scheme != "http" && scheme != "https")) i = host.rfind(':');
    const std::string_view colon_port = host.substr(i);
    if (!ValidOptionalPort(colon_port)) {
      return util::InvalidArgument("invalid port " + GoQuote(colon_port) + " after host");
    }
  }
  return Unescape(host, Part::kHost);
}

util::Status ParseAuthority(GoUrl& u, std::string_view authority, bool lenient_colons) {
  const size_t at = authority.rfind('@');
  util::StatusOr<std::string> host =
      ParseHost(u.scheme, at == std::string_view::npos ? authority : authority.substr(at + 1), lenient_colons);
  if (!host.ok()) return host.status();
  u.host = *host;
  if (at == std::string_view::npos) return util::Status::Ok();
  const std::string_view info = authority.substr(0, at);
  if (!ValidUserinfo(info)) return util::InvalidArgument("net/url: invalid userinfo");
  const size_t colon = info.find(':');
  util::StatusOr<std::string> name = Unescape(info.substr(0, colon), Part::kUserPassword);
  if (!name.ok()) return name.status();
  u.has_user = true;
  u.username = *name;
  if (colon != std::string_view::npos) {
    util::StatusOr<std::string> password = Unescape(info.substr(colon + 1), Part::kUserPassword);
    if (!password.ok()) return password.status();
    u.has_password = true;
    u.password = *password;
  }
  return util::Status::Ok();
}

// Go's parse(): `via_request` is ParseRequestURI's stricter reading.
util::StatusOr<GoUrl> ParseWithoutFragment(std::string_view raw, bool via_request, bool lenient_colons) {
  if (std::any_of(raw.begin(), raw.end(), [](char c) { return static_cast<uint8_t>(c) < ' ' || c == 0x7f; })) {
    return util::InvalidArgument("net/url: invalid control character in URL");
  }
  if (raw.empty() && via_request) return util::InvalidArgument("empty url");
  GoUrl u;
  if (raw == "*") {
    u.path = "*";
    return u;
  }
  // The scheme: a letter, then letters, digits, '+', '-' or '.', before a ':'.
  std::string_view rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) return util::InvalidArgument("missing protocol scheme");
      u.scheme = std::string(raw.substr(0, i));
      rest = raw.substr(i + 1);
    }
    break;
  }
  std::transform(u.scheme.begin(), u.scheme.end(), u.scheme.begin(),
                 [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
  if (!rest.empty() && rest.back() == '?' && std::count(rest.begin(), rest.end(), '?') == 1) {
    u.force_query = true;
    rest.remove_suffix(1);
  } else if (size_t q = rest.find('?'); q != std::string_view::npos) {
    u.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!rest.starts_with('/')) {
    if (!u.scheme.empty()) {
      u.opaque = std::string(rest);
      return u;
    }
    if (via_request) return util::InvalidArgument("invalid URI for request");
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos) {
      return util::InvalidArgument("first path segment in URL cannot contain colon");
    }
  }
  if ((!u.scheme.empty() || (!via_request && !rest.starts_with("///"))) && rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = "";
    if (size_t slash = authority.find('/'); slash != std::string_view::npos) {
      rest = authority.substr(slash);
      authority = authority.substr(0, slash);
    }
    if (util::Status s = ParseAuthority(u, authority, lenient_colons); !s.ok()) return s;
  } else if (!u.scheme.empty() && rest.starts_with('/')) {
    u.omit_host = true;
  }
  util::StatusOr<std::string> path = Unescape(rest, Part::kPath);
  if (!path.ok()) return path.status();
  u.path = *path;
  if (Escape(u.path, Part::kPath) != rest) u.raw_path = std::string(rest);
  return u;
}

util::Status Wrap(std::string_view raw, const util::Status& s) {
  return util::InvalidArgument("parse " + GoQuote(raw) + ": " + s.message());
}

// The query component's pairs, unescaped; Go stops at 10,000 parameters.
std::map<std::string, std::vector<std::string>> ParseQuery(std::string_view query) {
  std::map<std::string, std::vector<std::string>> m;
  if (std::count(query.begin(), query.end(), '&') + 1 > 10000) return m;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    const size_t eq = pair.find('=');
    util::StatusOr<std::string> key = Unescape(pair.substr(0, eq), Part::kQueryComponent);
    if (!key.ok()) continue;
    util::StatusOr<std::string> value =
        Unescape(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), Part::kQueryComponent);
    if (!value.ok()) continue;
    m[*key].push_back(*value);
  }
  return m;
}

// Go's splitHostPort: the port after the last colon if all digits, and the
// host without the brackets of an IPv6 literal.
std::pair<std::string, std::string> SplitHostPort(const std::string& host_port) {
  std::string host = host_port, port;
  const size_t colon = host.rfind(':');
  if (colon != std::string::npos && ValidOptionalPort(std::string_view(host).substr(colon))) {
    port = host.substr(colon + 1);
    host.resize(colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, port};
}

}  // namespace

util::StatusOr<GoUrl> GoUrl::Parse(std::string_view raw, bool lenient_colons) {
  const size_t hash = raw.find('#');
  const std::string_view before = raw.substr(0, hash);
  util::StatusOr<GoUrl> u = ParseWithoutFragment(before, false, lenient_colons);
  if (!u.ok()) return Wrap(before, u.status());
  if (hash == std::string_view::npos || hash + 1 == raw.size()) return u;
  const std::string_view frag = raw.substr(hash + 1);
  util::StatusOr<std::string> f = Unescape(frag, Part::kFragment);
  if (!f.ok()) return Wrap(raw, f.status());
  u->fragment = *f;
  if (Escape(u->fragment, Part::kFragment) != frag) u->raw_fragment = std::string(frag);
  return u;
}

util::StatusOr<GoUrl> GoUrl::ParseRequestUri(std::string_view raw, bool lenient_colons) {
  util::StatusOr<GoUrl> u = ParseWithoutFragment(raw, true, lenient_colons);
  if (!u.ok()) return Wrap(raw, u.status());
  return u;
}

std::string GoUrl::Hostname() const { return SplitHostPort(host).first; }

std::string GoUrl::Port() const { return SplitHostPort(host).second; }

std::string GoUrl::EscapedPath() const {
  if (!raw_path.empty() && ValidEncoded(raw_path, Part::kPath)) {
    util::StatusOr<std::string> p = Unescape(raw_path, Part::kPath);
    if (p.ok() && *p == path) return raw_path;
  }
  if (path == "*") return "*";
  return Escape(path, Part::kPath);
}

std::vector<std::pair<std::string, std::vector<std::string>>> GoUrl::Query() const {
  std::map<std::string, std::vector<std::string>> m = ParseQuery(raw_query);
  return {m.begin(), m.end()};
}

std::string GoUrl::String() const {
  std::string out;
  if (!scheme.empty()) out += scheme + ":";
  if (!opaque.empty()) {
    out += opaque;
  } else {
    if ((!scheme.empty() || !host.empty() || has_user) && !(omit_host && host.empty() && !has_user)) {
      if (!host.empty() || !path.empty() || has_user) out += "//";
      if (has_user) {
        out += Escape(username, Part::kUserPassword);
        if (has_password) out += ":" + Escape(password, Part::kUserPassword);
        out += "@";
      }
      out += Escape(host, Part::kHost);
    }
    const std::string p = EscapedPath();
    if (!p.empty() && p[0] != '/' && !host.empty()) out += '/';
    // A first segment with a colon would read as a scheme.
    if (out.empty() && p.substr(0, p.find('/')).find(':') != std::string::npos) out += "./";
    out += p;
  }
  if (force_query || !raw_query.empty()) out += "?" + raw_query;
  if (!fragment.empty()) {
    std::string f = Escape(fragment, Part::kFragment);
    if (!raw_fragment.empty() && ValidEncoded(raw_fragment, Part::kFragment)) {
      util::StatusOr<std::string> back = Unescape(raw_fragment, Part::kFragment);
      if (back.ok() && *back == fragment) f = raw_fragment;
    }
    out += "#" + f;
  }
  return out;
}

}  // namespace ksched::cel
