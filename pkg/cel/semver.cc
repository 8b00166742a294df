#include "pkg/cel/semver.h"

#include <string>

#include "pkg/cel/double_format.h"

namespace ksched::cel {
namespace {

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool AllAlnumOrHyphen(std::string_view s) {
  for (char c : s) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
    if (!ok) return false;
  }
  return true;
}


std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

util::Status Invalid(std::string_view s, const char* why) {
  return util::InvalidArgument("invalid semantic version \"" + std::string(s) + "\": " + why);
}

bool NumericPart(std::string_view p, uint64_t* out) {
  if (!AllDigits(p)) return false;
  if (p.size() > 1 && p[0] == '0') return false;
  return ParseGoDecimalUint(p, out);
}

}  // namespace

util::StatusOr<Semver> Semver::Parse(std::string_view s) {
  if (s.empty()) return Invalid(s, "empty");
  size_t dot1 = s.find('.');
  if (dot1 == std::string_view::npos) return Invalid(s, "no MAJOR.MINOR.PATCH");
  size_t dot2 = s.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return Invalid(s, "no MAJOR.MINOR.PATCH");
  Semver v;
  if (!NumericPart(s.substr(0, dot1), &v.major_)) return Invalid(s, "bad major version");
  if (!NumericPart(s.substr(dot1 + 1, dot2 - dot1 - 1), &v.minor_)) return Invalid(s, "bad minor version");
  std::string_view rest = s.substr(dot2 + 1);
  if (size_t plus = rest.find('+'); plus != std::string_view::npos) {
    for (std::string_view b : Split(rest.substr(plus + 1), '.')) {
      if (b.empty() || !AllAlnumOrHyphen(b)) return Invalid(s, "bad build metadata");
    }
    rest = rest.substr(0, plus);
  }
  if (size_t minus = rest.find('-'); minus != std::string_view::npos) {
    for (std::string_view p : Split(rest.substr(minus + 1), '.')) {
      if (p.empty()) return Invalid(s, "empty pre-release identifier");
      PreRelease pr;
      if (AllDigits(p)) {
        if (p.size() > 1 && p[0] == '0') return Invalid(s, "pre-release number with a leading zero");
        if (!ParseGoDecimalUint(p, &pr.number)) return Invalid(s, "pre-release number out of range");
        pr.numeric = true;
      } else if (AllAlnumOrHyphen(p)) {
        pr.text = std::string(p);
      } else {
        return Invalid(s, "bad pre-release identifier");
      }
      v.pre_.push_back(std::move(pr));
    }
    rest = rest.substr(0, minus);
  }
  if (!NumericPart(rest, &v.patch_)) return Invalid(s, "bad patch version");
  return v;
}

util::StatusOr<Semver> Semver::ParseNormalized(std::string_view s) {
  std::string_view in = s;
  if (!in.empty() && in[0] == 'v') in.remove_prefix(1);
  // Up to three dot-separated parts; the third keeps any further dots.
  std::vector<std::string> parts;
  size_t start = 0;
  while (parts.size() < 2) {
    size_t pos = in.find('.', start);
    if (pos == std::string_view::npos) break;
    parts.emplace_back(in.substr(start, pos - start));
    start = pos + 1;
  }
  parts.emplace_back(in.substr(start));
  for (std::string& p : parts) {
    if (p.size() > 1) {
      size_t nz = p.find_first_not_of('0');
      std::string t = nz == std::string::npos ? std::string() : p.substr(nz);
      if (t.empty() || t[0] < '0' || t[0] > '9') t = "0" + t;
      p = t;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return Invalid(s, "a short version cannot have pre-release or build metadata");
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return Parse(parts[0] + "." + parts[1] + "." + parts[2]);
}

int Semver::Compare(const Semver& o) const {
  auto cmp = [](uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); };
  if (int c = cmp(major_, o.major_)) return c;
  if (int c = cmp(minor_, o.minor_)) return c;
  if (int c = cmp(patch_, o.patch_)) return c;
  if (pre_.empty() || o.pre_.empty()) {
    // A release ranks above any of its pre-releases.
    return pre_.empty() == o.pre_.empty() ? 0 : (pre_.empty() ? 1 : -1);
  }
  size_t i = 0;
  for (; i < pre_.size() && i < o.pre_.size(); ++i) {
    const PreRelease& a = pre_[i];
    const PreRelease& b = o.pre_[i];
    int c = 0;
    if (a.numeric && b.numeric) {
      c = cmp(a.number, b.number);
    } else if (a.numeric != b.numeric) {
      c = a.numeric ? -1 : 1;  // numeric identifiers rank below alphanumeric ones
    } else {
      c = a.text.compare(b.text);
      c = c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (c != 0) return c;
  }
  if (pre_.size() == o.pre_.size()) return 0;
  return pre_.size() < o.pre_.size() ? -1 : 1;
}

}  // namespace ksched::cel
