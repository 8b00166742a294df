#include "pkg/net/url.h"

#include "pkg/util/ascii.h"

namespace ksched::net {

namespace {

bool IsUnreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.' || c == '~';
}

void AppendEscaped(unsigned char c, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xf]);
}

}  // namespace

util::StatusOr<std::string> PercentDecode(std::string_view s, bool plus_as_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      int hi = i + 2 < s.size() ? util::HexDigitValue(s[i + 1]) : -1;
      int lo = hi >= 0 ? util::HexDigitValue(s[i + 2]) : -1;
      if (lo < 0) {
        return util::Status(util::StatusCode::kInvalidArgument,
                            "invalid URL escape \"" + std::string(s.substr(i, 3)) + "\"");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

util::StatusOr<QueryParams> ParseQuery(std::string_view raw) {
  QueryParams out;
  while (!raw.empty()) {
    size_t amp = raw.find('&');
    std::string_view part = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    auto key = PercentDecode(part.substr(0, eq), true);
    if (!key.ok()) return key.status();
    auto value = PercentDecode(eq == std::string_view::npos ? "" : part.substr(eq + 1), true);
    if (!value.ok()) return value.status();
    out.emplace_back(std::move(*key), std::move(*value));
  }
  return out;
}

std::pair<std::string_view, std::string_view> SplitTarget(std::string_view target) {
  size_t hash = target.find('#');
  if (hash != std::string_view::npos) target = target.substr(0, hash);
  size_t q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

std::string QueryEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (IsUnreserved(c)) {
      out.push_back(c);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      AppendEscaped(static_cast<unsigned char>(c), &out);
    }
  }
  return out;
}

std::string PathEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    // As Go's shouldEscape(c, encodePathSegment): of the reserved
    // characters only '/', ';', ',' and '?' are escaped; everything outside
    // the unreserved and reserved sets is.
    bool keep = IsUnreserved(c) || c == '$' || c == '&' || c == '+' || c == '=' || c == ':' ||
                c == '@';
    if (keep) {
      out.push_back(c);
    } else {
      AppendEscaped(static_cast<unsigned char>(c), &out);
    }
  }
  return out;
}

std::string EncodeQuery(const QueryParams& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out.push_back('&');
    out.append(QueryEscape(k)).append("=").append(QueryEscape(v));
  }
  return out;
}

}  // namespace ksched::net
