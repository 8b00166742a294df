#include "pkg/cel/net_addr.h"

#include <cstdio>

#include "pkg/cel/go_quote.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

// ParseAddr's failure: Go's message, with the unparsed rest when known.
util::Status AddrError(std::string_view in, const std::string& msg, std::string_view at = {}) {
  std::string text = "ParseAddr(" + GoQuote(in) + "): " + msg;
  if (!at.empty()) text += " (at " + GoQuote(at) + ")";
  return util::InvalidArgument(text);
}

// The four fields of in[off, end) into out[0..3]; errors name all of `in`
// (the embedded tail of an IPv6 address reports the whole address).
util::Status ParseV4Fields(std::string_view in, size_t off, size_t end, uint8_t* out) {
  std::string_view s = in.substr(off, end - off);
  int val = 0, field = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits == 1 && val == 0) return AddrError(in, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - '0');
      ++digits;
      if (val > 255) return AddrError(in, "IPv4 field has value >255");
    } else if (c == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.') {
        return AddrError(in, "IPv4 field must have at least one digit", s.substr(i));
      }
      if (field == 3) return AddrError(in, "IPv4 address too long");
      out[field++] = static_cast<uint8_t>(val);
      val = 0;
      digits = 0;
    } else {
      return AddrError(in, "unexpected character", s.substr(i));
    }
  }
  if (field < 3) return AddrError(in, "IPv4 address too short");
  out[3] = static_cast<uint8_t>(val);
  return util::Status::Ok();
}

IpAddr V4(const uint8_t* f) {
  IpAddr a;
  a.is4 = true;
  a.bytes[10] = a.bytes[11] = 0xff;
  for (int k = 0; k < 4; ++k) a.bytes[12 + k] = f[k];
  return a;
}

util::StatusOr<IpAddr> ParseV4(std::string_view s) {
  uint8_t f[4] = {};
  util::Status st = ParseV4Fields(s, 0, s.size(), f);
  if (!st.ok()) return st;
  return V4(f);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

util::StatusOr<IpAddr> ParseV6(std::string_view in) {
  std::string_view s = in;
  std::string zone;
  if (size_t pct = s.find('%'); pct != std::string_view::npos) {
    zone = std::string(s.substr(pct + 1));
    s = s.substr(0, pct);
    if (zone.empty()) return AddrError(in, "zone must be a non-empty string");
  }
  IpAddr a;
  a.zone = zone;
  int ellipsis = -1;  // the byte where "::" stands
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return a;
  }
  int i = 0;
  while (i < 16) {
    size_t off = 0;
    uint32_t acc = 0;
    for (; off < s.size(); ++off) {
      const int d = HexDigit(s[off]);
      if (d < 0) break;
      acc = (acc << 4) + static_cast<uint32_t>(d);
      if (off > 3) return AddrError(in, "each group must have 4 or less digits", s);
      if (acc > 0xffff) return AddrError(in, "IPv6 field has value >=2^16", s);
    }
    if (off == 0) return AddrError(in, "each colon-separated field must have at least one digit", s);
    if (off < s.size() && s[off] == '.') {
      // A dotted tail: the last four bytes, parsed from the start of this
      // field.
      if (ellipsis < 0 && i != 12) {
        return AddrError(in, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16) {
        return AddrError(in, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      }
      size_t end = in.size() - (zone.empty() ? 0 : zone.size() + 1);
      util::Status st = ParseV4Fields(in, end - s.size(), end, &a.bytes[static_cast<size_t>(i)]);
      if (!st.ok()) return st;
      s = {};
      i += 4;
      break;
    }
    a.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(acc >> 8);
    a.bytes[static_cast<size_t>(i) + 1] = static_cast<uint8_t>(acc);
    i += 2;
    s.remove_prefix(off);
    if (s.empty()) break;
    if (s[0] != ':') return AddrError(in, "unexpected character, want colon", s);
    if (s.size() == 1) return AddrError(in, "colon must be followed by more characters", s);
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return AddrError(in, "multiple :: in address", s);
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return AddrError(in, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return AddrError(in, "address string too short");
    // Slide what follows "::" to the end and zero the gap.
    const int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) a.bytes[static_cast<size_t>(j + n)] = a.bytes[static_cast<size_t>(j)];
    for (int j = ellipsis; j < ellipsis + n; ++j) a.bytes[static_cast<size_t>(j)] = 0;
  } else if (ellipsis >= 0) {
    return AddrError(in, "the :: must expand to at least one field of zeros");
  }
  return a;
}

uint16_t Group(const IpAddr& a, int k) {
  return static_cast<uint16_t>(a.bytes[static_cast<size_t>(2 * k)] << 8 | a.bytes[static_cast<size_t>(2 * k + 1)]);
}

std::string Dotted(const IpAddr& a) {
  return std::to_string(a.bytes[12]) + "." + std::to_string(a.bytes[13]) + "." + std::to_string(a.bytes[14]) + "." +
         std::to_string(a.bytes[15]);
}

bool FirstBitsEqual(const IpAddr& a, const IpAddr& b, int bits) {
  for (int k = 0; k < 16 && bits > 0; ++k, bits -= 8) {
    const uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((a.bytes[static_cast<size_t>(k)] ^ b.bytes[static_cast<size_t>(k)]) & mask) return false;
  }
  return true;
}

}  // namespace

util::StatusOr<IpAddr> IpAddr::Parse(std::string_view s) {
  // The first '.', ':' or '%' decides the family, as in Go.
  for (char c : s) {
    if (c == '.') return ParseV4(s);
    if (c == ':') return ParseV6(s);
    if (c == '%') return AddrError(s, "missing IPv6 address");
  }
  return AddrError(s, "unable to parse IP");
}

bool IpAddr::Is4In6() const {
  if (is4) return false;
  for (int k = 0; k < 10; ++k) {
    if (bytes[static_cast<size_t>(k)] != 0) return false;
  }
  return bytes[10] == 0xff && bytes[11] == 0xff;
}

std::string IpAddr::String() const {
  if (is4) return Dotted(*this);
  std::string out;
  if (Is4In6()) {
    out = "::ffff:" + Dotted(*this);
  } else {
    // The first longest run of at least two zero groups becomes "::".
    int zero_start = -1, zero_len = 0;
    for (int k = 0; k < 8; ++k) {
      int j = k;
      while (j < 8 && Group(*this, j) == 0) ++j;
      if (j - k >= 2 && j - k > zero_len) {
        zero_start = k;
        zero_len = j - k;
      }
    }
    char hex[8];
    for (int k = 0; k < 8; ++k) {
      if (k == zero_start) {
        out += "::";
        k += zero_len - 1;
        continue;
      }
      if (k > 0 && k != zero_start + zero_len) out += ':';
      std::snprintf(hex, sizeof hex, "%x", Group(*this, k));
      out += hex;
    }
  }
  if (!zone.empty()) out += "%" + zone;
  return out;
}

bool IpAddr::IsUnspecified() const {
  if (!zone.empty()) return false;
  for (int k = 0; k < 16; ++k) {
    if (k >= 10 && k < 12 && is4) continue;  // the 0xffff of the IPv4 layout
    if (bytes[static_cast<size_t>(k)] != 0) return false;
  }
  return true;
}

// The predicates look through an IPv4-mapped address to its IPv4 form, as
// Go's do (ip() and cidr() refuse those, so only for completeness).
bool IpAddr::IsLoopback() const {
  if (is4 || Is4In6()) return bytes[12] == 127;
  for (int k = 0; k < 15; ++k) {
    if (bytes[static_cast<size_t>(k)] != 0) return false;
  }
  return bytes[15] == 1;
}

bool IpAddr::IsMulticast() const {
  if (is4 || Is4In6()) return (bytes[12] & 0xf0) == 0xe0;
  return bytes[0] == 0xff;
}

bool IpAddr::IsLinkLocalMulticast() const {
  if (is4 || Is4In6()) return bytes[12] == 224 && bytes[13] == 0 && bytes[14] == 0;
  return (Group(*this, 0) & 0xff0f) == 0xff02;
}

bool IpAddr::IsLinkLocalUnicast() const {
  if (is4 || Is4In6()) return bytes[12] == 169 && bytes[13] == 254;
  return (Group(*this, 0) & 0xffc0) == 0xfe80;
}

bool IpAddr::IsGlobalUnicast() const {
  if (is4 || Is4In6()) {
    const bool zero = bytes[12] == 0 && bytes[13] == 0 && bytes[14] == 0 && bytes[15] == 0;
    const bool broadcast = bytes[12] == 255 && bytes[13] == 255 && bytes[14] == 255 && bytes[15] == 255;
    if (zero || broadcast) return false;
  } else {
    bool zero = true;
    for (uint8_t b : bytes) zero = zero && b == 0;
    // Go compares with :: including the zone, so a zoned :: passes this test.
    if (zero && zone.empty()) return false;
  }
  return !IsLoopback() && !IsMulticast() && !IsLinkLocalUnicast();
}

IpAddr IpAddr::Masked(int bits) const {
  IpAddr out = *this;
  int keep = bits + (is4 ? 96 : 0);
  for (size_t k = 0; k < 16; ++k, keep -= 8) {
    if (keep >= 8) continue;
    out.bytes[k] = keep <= 0 ? 0 : static_cast<uint8_t>(out.bytes[k] & (0xff << (8 - keep)));
  }
  return out;
}

util::StatusOr<IpPrefix> IpPrefix::Parse(std::string_view s) {
  auto fail = [&](const std::string& msg) {
    return util::InvalidArgument("netip.ParsePrefix(" + GoQuote(s) + "): " + msg);
  };
  const size_t slash = s.rfind('/');
  if (slash == std::string_view::npos) return fail("no '/'");
  util::StatusOr<IpAddr> ip = IpAddr::Parse(s.substr(0, slash));
  if (!ip.ok()) return fail(ip.status().message());
  if (!ip->is4 && !ip->zone.empty()) return fail("IPv6 zones cannot be present in a prefix");
  std::string_view digits = s.substr(slash + 1);
  // Decimal without sign or leading zeros, within an int64 (strconv.Atoi).
  bool ok = !digits.empty() && (digits.size() == 1 || (digits[0] >= '1' && digits[0] <= '9'));
  uint64_t bits = 0;
  for (char c : digits) {
    if (!ok) break;
    ok = c >= '0' && c <= '9' && bits <= (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(c - '0')) / 10;
    if (ok) bits = bits * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok) return fail("bad bits after slash: " + GoQuote(digits));
  if (bits > static_cast<uint64_t>(ip->BitLen())) return fail("prefix length out of range");
  return IpPrefix{*ip, static_cast<int>(bits)};
}

bool IpPrefix::Contains(const IpAddr& ip) const {
  if (!ip.zone.empty() || ip.is4 != addr.is4) return false;
  return FirstBitsEqual(addr, ip, bits + (ip.is4 ? 96 : 0));
}

bool IpPrefix::Overlaps(const IpPrefix& o) const {
  if (*this == o) return true;
  if (addr.is4 != o.addr.is4) return false;
  const int min_bits = bits < o.bits ? bits : o.bits;
  return addr.Masked(min_bits) == o.addr.Masked(min_bits);
}

}  // namespace ksched::cel
