#include "pkg/net/http_message.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace ksched::net {

namespace {

using util::Status;
using util::StatusCode;
using util::StatusOr;

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar);
}

// Field values: visible characters, spaces, tabs and obs-text.
bool IsFieldValue(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u != 0x7f);
  });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HeadParse MalformedHead(std::string error) {
  HeadParse p;
  p.state = HeadParse::State::kMalformed;
  p.error = std::move(error);
  return p;
}

HeadParse TooLarge(const HeadLimits& limits) {
  HeadParse p;
  p.state = HeadParse::State::kTooLarge;
  p.error = "message head exceeds " + std::to_string(limits.max_head_bytes) + " bytes";
  return p;
}

// Splits the buffer into head lines. Next() yields the next line without
// its terminator, or nullopt when no complete line is buffered.
class LineScanner {
 public:
  explicit LineScanner(std::string_view buffer) : buffer_(buffer) {}

  std::optional<std::string_view> Next() {
    size_t nl = buffer_.find('\n', pos_);
    if (nl == std::string_view::npos) return std::nullopt;
    std::string_view line = buffer_.substr(pos_, nl - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl + 1;
    return line;
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view buffer_;
  size_t pos_ = 0;
};

// "HTTP/1.x" -> x (0 or 1).
std::optional<int> ParseVersion(std::string_view v) {
  if (v == "HTTP/1.1") return 1;
  if (v == "HTTP/1.0") return 0;
  return std::nullopt;
}

// Parses the header fields after the start line, up to and including the
// blank line. `start` is the scanner positioned after the start line.
HeadParse ParseFields(std::string_view buffer, LineScanner& lines, const HeadLimits& limits,
                      Headers* headers) {
  headers->Reserve(std::min<size_t>(limits.max_headers, 16));  // a response from the API server has 7
  while (true) {
    std::optional<std::string_view> line = lines.Next();
    if (!line) {
      if (buffer.size() > limits.max_head_bytes) return TooLarge(limits);
      return HeadParse{};
    }
    if (lines.pos() > limits.max_head_bytes) return TooLarge(limits);
    if (line->empty()) {
      HeadParse done;
      done.state = HeadParse::State::kComplete;
      done.consumed = lines.pos();
      return done;
    }
    if (line->front() == ' ' || line->front() == '\t') {
      return MalformedHead("obsolete line folding in header fields");
    }
    size_t colon = line->find(':');
    if (colon == std::string_view::npos) {
      return MalformedHead("header field without a colon: \"" + std::string(line->substr(0, 64)) +
                           "\"");
    }
    std::string_view name = line->substr(0, colon);
    if (!IsToken(name)) {
      return MalformedHead("invalid header field name \"" + std::string(name.substr(0, 64)) + "\"");
    }
    std::string_view value = Trim(line->substr(colon + 1));
    if (!IsFieldValue(value)) {
      return MalformedHead("invalid characters in header field \"" + std::string(name) + "\"");
    }
    if (headers->size() >= limits.max_headers) {
      HeadParse p;
      p.state = HeadParse::State::kTooLarge;
      p.error = "more than " + std::to_string(limits.max_headers) + " header fields";
      return p;
    }
    headers->Add(std::string(name), std::string(value));
  }
}

// The next start line; skips leading blank lines when `skip_blank`.
// Returns nullopt with `result` set when the caller should return it.
std::optional<std::string_view> StartLine(std::string_view buffer, LineScanner& lines,
                                          const HeadLimits& limits, bool skip_blank,
                                          HeadParse* result) {
  while (true) {
    std::optional<std::string_view> line = lines.Next();
    if (!line) {
      *result = buffer.size() > limits.max_head_bytes ? TooLarge(limits) : HeadParse{};
      return std::nullopt;
    }
    if (lines.pos() > limits.max_head_bytes) {
      *result = TooLarge(limits);
      return std::nullopt;
    }
    if (line->empty() && skip_blank) continue;
    return line;
  }
}

StatusOr<uint64_t> ParseContentLength(const Headers& headers) {
  std::optional<uint64_t> length;
  for (const auto& [name, value] : headers.entries()) {
    if (!EqualsIgnoreCase(name, "Content-Length")) continue;
    // A list of identical values ("42, 42") is allowed (RFC 9110 8.6).
    std::string_view rest = value;
    while (true) {
      size_t comma = rest.find(',');
      std::string_view item = Trim(rest.substr(0, comma));
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
      if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
        return Status(StatusCode::kInvalidArgument,
                      "invalid Content-Length \"" + std::string(value) + "\"");
      }
      if (length && *length != n) {
        return Status(StatusCode::kInvalidArgument, "conflicting Content-Length values");
      }
      length = n;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return length.value_or(0);
}

// Transfer-Encoding present: the body is chunked when "chunked" is the last
// coding; any other coding is not supported here.
StatusOr<bool> IsChunked(const Headers& headers) {
  bool any = false;
  std::string_view last;
  for (const auto& [name, value] : headers.entries()) {
    if (!EqualsIgnoreCase(name, "Transfer-Encoding")) continue;
    any = true;
    std::string_view rest = value;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view item = Trim(rest.substr(0, comma));
      if (!item.empty()) last = item;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (!any) return false;
  if (!EqualsIgnoreCase(last, "chunked")) {
    return Status(StatusCode::kInvalidArgument,
                  "unsupported Transfer-Encoding \"" + std::string(last) + "\"");
  }
  return true;
}

// Appends `s` with CR and LF turned into spaces, so a field cannot end the
// head early or inject another.
void AppendSanitized(std::string_view s, std::string* out) {
  const size_t from = out->size();
  out->append(s);
  for (size_t i = from; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
}

void AppendField(std::string_view name, std::string_view value, std::string* out) {
  AppendSanitized(name, out);
  out->append(": ");
  AppendSanitized(value, out);
  out->append("\r\n");
}

void AppendFields(const Headers& headers, std::string* out) {
  for (const auto& [name, value] : headers.entries()) AppendField(name, value, out);
  out->append("\r\n");
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

void Headers::Add(std::string name, std::string value) {
  entries_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  Add(std::move(name), std::move(value));
}

void Headers::Remove(std::string_view name) {
  std::erase_if(entries_, [&](const auto& e) { return EqualsIgnoreCase(e.first, name); });
}

const std::string* Headers::Get(std::string_view name) const {
  for (const auto& [n, v] : entries_) {
    if (EqualsIgnoreCase(n, name)) return &v;
  }
  return nullptr;
}

std::string_view Headers::GetOr(std::string_view name, std::string_view fallback) const {
  const std::string* v = Get(name);
  return v ? std::string_view(*v) : fallback;
}

bool Headers::HasToken(std::string_view name, std::string_view token) const {
  for (const auto& [n, v] : entries_) {
    if (!EqualsIgnoreCase(n, name)) continue;
    std::string_view rest = v;
    while (true) {
      size_t comma = rest.find(',');
      if (EqualsIgnoreCase(Trim(rest.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

HeadParse ParseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead* out) {
  LineScanner lines(buffer);
  HeadParse result;
  std::optional<std::string_view> line = StartLine(buffer, lines, limits, true, &result);
  if (!line) return result;
  // method SP request-target SP HTTP-version
  size_t sp1 = line->find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line->find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line->find(' ', sp2 + 1) != std::string_view::npos) {
    return MalformedHead("malformed request line \"" + std::string(line->substr(0, 128)) + "\"");
  }
  std::string_view method = line->substr(0, sp1);
  std::string_view target = line->substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line->substr(sp2 + 1);
  if (!IsToken(method)) return MalformedHead("invalid request method");
  if (target.empty() || !std::all_of(target.begin(), target.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u > 0x20 && u != 0x7f;
      })) {
    return MalformedHead("invalid request target");
  }
  std::optional<int> minor = ParseVersion(version);
  if (!minor) return MalformedHead("unsupported HTTP version \"" + std::string(version.substr(0, 16)) + "\"");
  RequestHead head;
  head.method = std::string(method);
  head.target = std::string(target);
  head.version_minor = *minor;
  result = ParseFields(buffer, lines, limits, &head.headers);
  if (result.state == HeadParse::State::kComplete) *out = std::move(head);
  return result;
}

HeadParse ParseResponseHead(std::string_view buffer, const HeadLimits& limits,
                            ResponseHead* out) {
  LineScanner lines(buffer);
  HeadParse result;
  std::optional<std::string_view> line = StartLine(buffer, lines, limits, false, &result);
  if (!line) return result;
  // HTTP-version SP status-code SP [reason-phrase]
  size_t sp1 = line->find(' ');
  std::optional<int> minor =
      sp1 == std::string_view::npos ? std::nullopt : ParseVersion(line->substr(0, sp1));
  if (!minor) {
    return MalformedHead("malformed status line \"" + std::string(line->substr(0, 128)) + "\"");
  }
  std::string_view code = line->substr(sp1 + 1, 3);
  int status = 0;
  auto [end, ec] = std::from_chars(code.data(), code.data() + code.size(), status);
  if (code.size() != 3 || ec != std::errc() || end != code.data() + 3 || status < 100 ||
      (line->size() > sp1 + 4 && (*line)[sp1 + 4] != ' ')) {
    return MalformedHead("malformed status code in \"" + std::string(line->substr(0, 128)) + "\"");
  }
  ResponseHead head;
  head.version_minor = *minor;
  head.status = status;
  if (line->size() > sp1 + 5) head.reason = std::string(line->substr(sp1 + 5));
  result = ParseFields(buffer, lines, limits, &head.headers);
  if (result.state == HeadParse::State::kComplete) *out = std::move(head);
  return result;
}

StatusOr<BodyFraming> RequestBodyFraming(const RequestHead& head) {
  StatusOr<bool> chunked = IsChunked(head.headers);
  if (!chunked.ok()) return chunked.status();
  if (*chunked) {
    if (head.headers.Has("Content-Length")) {
      return Status(StatusCode::kInvalidArgument,
                    "both Transfer-Encoding and Content-Length in a request");
    }
    return BodyFraming{BodyFraming::Kind::kChunked, 0};
  }
  StatusOr<uint64_t> length = ParseContentLength(head.headers);
  if (!length.ok()) return length.status();
  if (*length == 0) return BodyFraming{};
  return BodyFraming{BodyFraming::Kind::kContentLength, *length};
}

StatusOr<BodyFraming> ResponseBodyFraming(const ResponseHead& head,
                                          std::string_view request_method) {
  if (request_method == "HEAD" || head.status < 200 || head.status == 204 ||
      head.status == 304) {
    return BodyFraming{};
  }
  StatusOr<bool> chunked = IsChunked(head.headers);
  if (!chunked.ok()) return chunked.status();
  // Transfer-Encoding overrides Content-Length in a response (RFC 9112 6.3).
  if (*chunked) return BodyFraming{BodyFraming::Kind::kChunked, 0};
  if (head.headers.Has("Content-Length")) {
    StatusOr<uint64_t> length = ParseContentLength(head.headers);
    if (!length.ok()) return length.status();
    if (*length == 0) return BodyFraming{};
    return BodyFraming{BodyFraming::Kind::kContentLength, *length};
  }
  return BodyFraming{BodyFraming::Kind::kUntilClose, 0};
}

bool KeepAlive(int version_minor, const Headers& headers) {
  if (headers.HasToken("Connection", "close")) return false;
  if (version_minor >= 1) return true;
  return headers.HasToken("Connection", "keep-alive");
}

const char* StatusText(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Request Entity Too Large";
    case 414: return "Request-URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string FormatResponseHead(int status, const Headers& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + StatusText(status) + "\r\n";
  AppendFields(headers, &out);
  return out;
}

std::string FormatRequestHead(std::string_view method, std::string_view target,
                              const Headers& headers) {
  std::string out;
  AppendRequestHead(method, target, headers, {}, &out);
  return out;
}

void AppendRequestHead(std::string_view method, std::string_view target, const Headers& headers,
                       std::span<const std::pair<std::string_view, std::string_view>> set, std::string* out) {
  AppendSanitized(method, out);
  out->append(" ");
  AppendSanitized(target, out);
  out->append(" HTTP/1.1\r\n");
  for (const auto& field : headers.entries()) {
    auto same_name = [&field](const auto& given) { return EqualsIgnoreCase(given.first, field.first); };
    if (std::none_of(set.begin(), set.end(), same_name)) AppendField(field.first, field.second, out);
  }
  for (const auto& [name, value] : set) AppendField(name, value, out);
  out->append("\r\n");
}

}  // namespace ksched::net
