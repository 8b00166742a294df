// Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go,
// in DRA's environment at every release ksched emulates), over evaluated
// arguments: format.named(name) (optional.none() for an unknown name), one
// constant function per format (format.dns1123Label(), ...), and
// <format>.validate(s), which is optional.none() for a valid s and
// otherwise holds the validation's messages, as apimachinery and
// kube-openapi's strfmt word them (1.34's apimachinery words two of
// qualifiedName's and labelValue's differently: CompileOptions'
// legacy_label_key_messages).
//
// Cost: Kubernetes' runtime price for validate(): a tenth of the string's
// code points plus one, rounded up, times a quarter of the format's
// estimated regex size, rounded up; 1 for the others (the call's node).
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/eval.h"
#include "pkg/cel/go_url.h"
#include "pkg/cel/utf8.h"
#include "pkg/util/name_validation.h"

namespace ksched::cel {
// Named, so that a unity build's other files cannot clash with these helpers.
namespace kube_format {
namespace {

using K = Value::Kind;
using Messages = std::vector<std::string>;

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// apimachinery's maskTrailingDash, which drops the last two bytes of a
// name ending in '-' and appends an 'a'.
std::string MaskTrailingDash(std::string_view s) {
  if (s.size() > 1 && s.back() == '-') return std::string(s.substr(0, s.size() - 2)) + "a";
  return std::string(s);
}

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// strfmt's (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$.
bool IsUuid(std::string_view s) {
  size_t i = 0;
  const int groups[] = {8, 4, 4, 4, 12};
  for (int g = 0; g < 5; ++g) {
    if (g > 0 && i < s.size() && s[i] == '-') ++i;
    for (int k = 0; k < groups[g]; ++k, ++i) {
      if (i >= s.size() || !IsHex(s[i])) return false;
    }
  }
  return i == s.size();
}

bool IsBase64Char(char c) { return IsAlnum(c) || c == '+' || c == '/'; }

// govalidator's ^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$:
// whole quads, the last padded with at most two '='.
bool IsBase64(std::string_view s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  size_t pad = 0;
  while (pad < 2 && s[s.size() - 1 - pad] == '=') ++pad;
  for (size_t i = 0; i + pad < s.size(); ++i) {
    if (!IsBase64Char(s[i])) return false;
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Go's time.Parse("2006-01-02", s): four digits, two, two, a real day of
// the proleptic Gregorian calendar.
bool IsDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = std::stoi(std::string(s.substr(0, 4)));
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  if (month < 1 || month > 12 || day < 1) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool IsTwoDigits(std::string_view s, size_t i) { return i + 2 <= s.size() && IsDigit(s[i]) && IsDigit(s[i + 1]); }

// z, or [+-]HH:MM with any two digits.
bool IsZone(std::string_view s) {
  if (s == "z") return true;
  return s.size() == 6 && (s[0] == '+' || s[0] == '-') && IsTwoDigits(s, 1) && s[3] == ':' && IsTwoDigits(s, 4);
}

// strfmt's IsDateTime: lower-cased and split at every 't', the first piece
// is a date and the second (the rest is ignored) matches
// ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
// (any character before the fraction) with hours to 23 and minutes and
// seconds to 59.
bool IsDateTime(std::string_view in) {
  if (in.size() < 4) return false;
  std::string lower(in);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t t1 = lower.find('t');
  if (t1 == std::string::npos || !IsDate(std::string_view(lower).substr(0, t1))) return false;
  const size_t t2 = lower.find('t', t1 + 1);
  std::string_view s = std::string_view(lower).substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
  if (!IsTwoDigits(s, 0) || s.size() < 8 || s[2] != ':' || !IsTwoDigits(s, 3) || s[5] != ':' || !IsTwoDigits(s, 6)) {
    return false;
  }
  if (s.substr(0, 2) > "23" || s.substr(3, 2) > "59" || s.substr(6, 2) > "59") return false;
  std::string_view rest = s.substr(8);
  if (IsZone(rest)) return true;
  // The fraction: one character (a code point, or one invalid byte; not a
  // newline), digits, then the zone.
  if (rest.empty() || rest[0] == '\n') return false;
  size_t width = 1;
  const auto lead = static_cast<unsigned char>(rest[0]);
  const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n > 1 && n <= rest.size() && IsValidUtf8(rest.substr(0, n))) width = n;
  size_t k = width;
  while (k < rest.size() && IsDigit(rest[k])) ++k;
  return k > width && IsZone(rest.substr(k));
}

struct NamedFormat {
  const char* name;
  int max_regex_size;  // Kubernetes' estimate of the regex, for the cost
};

constexpr NamedFormat kFormats[] = {
    {"dns1123Label", 30},     {"dns1123Subdomain", 60},       {"dns1035Label", 30},
    {"qualifiedName", 60},    {"dns1123LabelPrefix", 30},     {"dns1123SubdomainPrefix", 60},
    {"dns1035LabelPrefix", 30}, {"labelValue", 40},           {"uri", 1103},
    {"uuid", 70},             {"byte", 84},                   {"date", 71},
    {"datetime", 71},
};

const NamedFormat* FindFormat(std::string_view name) {
  for (const NamedFormat& f : kFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

Messages Validate(const std::string& format, const std::string& s, const CostBudget& options) {
  const util::NameWording wording =
      options.legacy_label_key_messages ? util::NameWording::kValidation : util::NameWording::kContent;
  if (format == "dns1123Label") return util::IsDNS1123Label(s);
  if (format == "dns1123Subdomain") return util::IsDNS1123Subdomain(s);
  if (format == "dns1035Label") return util::IsDNS1035Label(s);
  if (format == "qualifiedName") return util::IsQualifiedName(s, wording);
  if (format == "dns1123LabelPrefix") return util::IsDNS1123Label(MaskTrailingDash(s));
  if (format == "dns1123SubdomainPrefix") return util::IsDNS1123Subdomain(MaskTrailingDash(s));
  if (format == "dns1035LabelPrefix") return util::IsDNS1035Label(MaskTrailingDash(s));
  if (format == "labelValue") return util::IsValidLabelValue(s, wording);
  if (format == "uri") {
    util::StatusOr<GoUrl> u = GoUrl::ParseRequestUri(s, options.url_lenient_colons);
    if (!u.ok()) return {u.status().message()};
    return {};
  }
  if (format == "uuid") return IsUuid(s) ? Messages{} : Messages{"does not match the UUID format"};
  if (format == "byte") return IsBase64(s) ? Messages{} : Messages{"invalid base64"};
  if (format == "date") return IsDate(s) ? Messages{} : Messages{"invalid date"};
  return IsDateTime(s) ? Messages{} : Messages{"invalid datetime"};
}

}  // namespace
}  // namespace kube_format

using kube_format::FindFormat;

bool IsKubeFormatFunction(const std::string& name) {
  if (name == "format.named" || name == "validate") return true;
  return name.rfind("format.", 0) == 0 && FindFormat(std::string_view(name).substr(7)) != nullptr;
}

Value CallKubeFormatFunction(const std::string& n, bool member, const std::vector<Value>& a, CostBudget* budget) {
  if (n == "validate") {
    if (!member || a.size() != 2 || a[0].kind != K::kFormat || a[1].kind != K::kString) {
      return Value::NoSuchOverload("validate");
    }
    const kube_format::NamedFormat* f = FindFormat(a[0].s);
    // In floating point, as Kubernetes computes it.
    const auto str_cost = static_cast<uint64_t>(std::ceil((1.0 + static_cast<double>(CountRunes(a[1].s))) * 0.1));
    const auto regex_cost = static_cast<uint64_t>(std::ceil(f->max_regex_size * 0.25));
    if (!budget->Charge(str_cost * regex_cost)) return Value::Error(kCostLimitExceeded);
    kube_format::Messages m = kube_format::Validate(a[0].s, a[1].s, *budget);
    if (m.empty()) return Value::OptionalNone();
    ValueList list;
    for (std::string& s : m) list.push_back(Value::String(std::move(s)));
    return Value::OptionalOf(Value::List(std::move(list)));
  }
  if (member) return Value::NoSuchOverload(n.c_str());
  if (n == "format.named") {
    if (a.size() != 1 || a[0].kind != K::kString) return Value::NoSuchOverload(n.c_str());
    return FindFormat(a[0].s) ? Value::OptionalOf(Value::Format(a[0].s)) : Value::OptionalNone();
  }
  if (!a.empty()) return Value::NoSuchOverload(n.c_str());
  return Value::Format(n.substr(7));
}

}  // namespace ksched::cel
