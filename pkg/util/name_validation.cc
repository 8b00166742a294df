#include "pkg/util/name_validation.h"

namespace ksched::util {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

constexpr char kLabelFmt[] = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character";
constexpr char kSubdomainFmt[] = R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)";
constexpr char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character";
constexpr char kQualifiedNameFmt[] = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr char kQualifiedNameMsg[] =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
constexpr char kLabelValueFmt[] = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr char kLabelValueMsg[] =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";

// apimachinery's RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')".
std::string RegexError(std::string_view msg, std::string_view fmt, const std::vector<std::string>& examples) {
  std::string out(msg);
  out += " (";
  if (!examples.empty()) {
    out += "e.g. ";
    for (size_t i = 0; i < examples.size(); ++i) out += (i > 0 ? " or '" : "'") + examples[i] + "', ";
  }
  return out + "regex used for validation is '" + std::string(fmt) + "')";
}

std::string MaxLenError(size_t n, NameWording w) {
  return "must be no more than " + std::to_string(n) + (w == NameWording::kContent ? " bytes" : " characters");
}

}  // namespace

bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool MatchesDnsLabel(std::string_view s, bool letter_first) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  if (letter_first && !(s.front() >= 'a' && s.front() <= 'z')) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDnsSubdomain(std::string_view s) {
  for (;;) {
    const size_t dot = s.find('.');
    if (!MatchesDnsLabel(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

std::vector<std::string> IsQualifiedName(std::string_view value, NameWording w) {
  std::vector<std::string> errs;
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = value.find('/', start);
    parts.push_back(value.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string_view name = parts[0];
  if (parts.size() == 2) {
    name = parts[1];
    if (parts[0].empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& m : IsDNS1123Subdomain(parts[0], w)) errs.push_back("prefix part " + m);
    }
  } else if (parts.size() > 2) {
    errs.push_back(std::string(w == NameWording::kContent ? "a valid label key " : "a qualified name ") +
                   RegexError(kQualifiedNameMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63, w));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value, NameWording w) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, w));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(kLabelValueMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value, NameWording w) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253, w));
  if (!MatchesDnsSubdomain(value)) errs.push_back(RegexError(kSubdomainMsg, kSubdomainFmt, {"example.com"}));
  return errs;
}

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, NameWording::kValidation));
  if (!MatchesDnsLabel(value)) {
    errs.push_back(MatchesDnsSubdomain(value) ? "must not contain dots"
                                              : RegexError(kLabelMsg, kLabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63, NameWording::kValidation));
  if (!MatchesDnsLabel(value, /*letter_first=*/true)) {
    errs.push_back(RegexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?", {"my-name", "abc-123"}));
  }
  return errs;
}

}  // namespace ksched::util
