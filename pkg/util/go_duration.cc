#include "pkg/util/go_duration.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "pkg/util/ascii.h"

namespace ksched::util {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |INT64_MIN|

std::string GoQuote(std::string_view s) { return "\"" + std::string(s) + "\""; }

util::Status Invalid(std::string_view orig) { return util::InvalidArgument("time: invalid duration " + GoQuote(orig)); }

std::optional<uint64_t> UnitNanos(std::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" /* U+00B5 */ || u == "\xCE\xBCs" /* U+03BC */) return 1000;
  if (u == "ms") return 1000000;
  if (u == "s") return 1000000000;
  if (u == "m") return uint64_t{60} * 1000000000;
  if (u == "h") return uint64_t{3600} * 1000000000;
  return std::nullopt;
}

// Go's Duration.format: the text is written backwards from the end of a
// fixed buffer, least significant part first.
class BackwardBuffer {
 public:
  void Put(char c) { buf_[--w_] = c; }
  void Put(std::string_view s) {
    for (size_t i = s.size(); i > 0; --i) Put(s[i - 1]);
  }
  // The fraction of v / 10^prec without trailing zeros (and without the point
  // when it is zero); returns v / 10^prec.
  uint64_t PutFraction(uint64_t v, int prec) {
    bool print = false;
    for (int i = 0; i < prec; ++i) {
      int digit = static_cast<int>(v % 10);
      print = print || digit != 0;
      if (print) Put(static_cast<char>('0' + digit));
      v /= 10;
    }
    if (print) Put('.');
    return v;
  }
  void PutInt(uint64_t v) {
    if (v == 0) {
      Put('0');
      return;
    }
    while (v > 0) {
      Put(static_cast<char>('0' + v % 10));
      v /= 10;
    }
  }
  std::string str() const { return std::string(buf_ + w_, buf_ + sizeof(buf_)); }

 private:
  char buf_[32];
  size_t w_ = sizeof(buf_);
};

}  // namespace

util::StatusOr<util::Duration> ParseGoDuration(std::string_view orig) {
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return util::Duration(0);
  if (s.empty()) return Invalid(orig);
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || util::IsAsciiDigit(s[0]))) return Invalid(orig);
    // Integer part.
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && util::IsAsciiDigit(s[i]); ++i) {
      if (v > (kMaxMagnitude - 1) / 10) return Invalid(orig);
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kMaxMagnitude) return Invalid(orig);
    }
    bool pre = i > 0;
    s.remove_prefix(i);
    // Fraction: digits beyond what fits are consumed but ignored, as Go does.
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t j = 0;
      for (; j < s.size() && util::IsAsciiDigit(s[j]); ++j) {
        if (overflow) continue;
        if (f > (UINT64_MAX >> 1) / 10) {
          overflow = true;
          continue;
        }
        uint64_t y = f * 10 + static_cast<uint64_t>(s[j] - '0');
        if (y > kMaxMagnitude) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return Invalid(orig);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !util::IsAsciiDigit(s[u])) ++u;
    if (u == 0) return util::InvalidArgument("time: missing unit in duration " + GoQuote(orig));
    std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    std::optional<uint64_t> unit = UnitNanos(unit_name);
    if (!unit) {
      return util::InvalidArgument("time: unknown unit " + GoQuote(unit_name) + " in duration " + GoQuote(orig));
    }
    if (v > kMaxMagnitude / *unit) return Invalid(orig);
    v *= *unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(*unit) / scale));
      if (v > kMaxMagnitude) return Invalid(orig);
    }
    total += v;
    if (total > kMaxMagnitude) return Invalid(orig);
  }
  if (neg) return util::Duration(static_cast<int64_t>(0 - total));
  if (total > kMaxMagnitude - 1) return Invalid(orig);
  return util::Duration(static_cast<int64_t>(total));
}

std::string FormatGoDuration(util::Duration d) {
  int64_t n = d.count();
  bool neg = n < 0;
  uint64_t u = neg ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  BackwardBuffer out;
  if (u < 1000000000) {
    if (u == 0) return "0s";
    int prec;
    if (u < 1000) {
      prec = 0;
      out.Put("ns");
    } else if (u < 1000000) {
      prec = 3;
      out.Put("\xC2\xB5s");  // Go writes U+00B5
    } else {
      prec = 6;
      out.Put("ms");
    }
    out.PutInt(out.PutFraction(u, prec));
  } else {
    out.Put('s');
    u = out.PutFraction(u, 9);
    out.PutInt(u % 60);
    u /= 60;
    if (u > 0) {
      out.Put('m');
      out.PutInt(u % 60);
      u /= 60;
      if (u > 0) {
        out.Put('h');
        out.PutInt(u);
      }
    }
  }
  if (neg) out.Put('-');
  return out.str();
}

}  // namespace ksched::util
