// HTTP/1.1 message heads (RFC 9112): parsing request and status lines with
// their header fields, body framing (Content-Length, chunked, until close),
// the keep-alive rules, and writing heads. No I/O here: message_reader.h
// reads messages from a Stream, chunked.h codes chunked bodies.
//
// Everything here is a value type or a pure function: thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::net {

// Header fields in arrival order. Names compare case-insensitively; values
// are stored with surrounding whitespace trimmed.
class Headers {
 public:
  void Add(std::string name, std::string value);
  void Reserve(size_t fields) { entries_.reserve(fields); }
  // Replaces every field named `name` with one.
  void Set(std::string name, std::string value);
  void Remove(std::string_view name);
  // The first value of `name`, or null.
  const std::string* Get(std::string_view name) const;
  // The value of `name`, or "" when absent.
  std::string_view GetOr(std::string_view name, std::string_view fallback = "") const;
  bool Has(std::string_view name) const { return Get(name) != nullptr; }
  // Whether any field `name` lists `token` among its comma-separated
  // elements, case-insensitively ("Connection: keep-alive, Upgrade").
  bool HasToken(std::string_view name, std::string_view token) const;

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

struct RequestHead {
  std::string method;  // "GET"; case-sensitive, as sent
  std::string target;  // request-target as sent: "/api/v1/pods?watch=1"
  int version_minor = 1;  // HTTP/1.<minor>
  Headers headers;
};

struct ResponseHead {
  int version_minor = 1;
  int status = 0;
  std::string reason;
  Headers headers;
};

struct HeadLimits {
  // Request/status line plus header fields plus the blank line.
  size_t max_head_bytes = 64 * 1024;
  size_t max_headers = 256;
};

// The outcome of parsing a message head from the start of a buffer.
struct HeadParse {
  enum class State {
    kIncomplete,  // no blank line yet, and within the limits: read more
    kComplete,    // `consumed` bytes were the head
    kMalformed,   // `error` says why (a 400 for a server)
    kTooLarge,    // over HeadLimits (a 431 for a server)
  };
  State state = State::kIncomplete;
  size_t consumed = 0;
  std::string error;
};

// Parses a request head at the start of `buffer`. Empty lines before the
// request line are skipped (RFC 9112 section 2.2); lines may end in CRLF or
// a bare LF. Obsolete line folding, whitespace before a colon and invalid
// tokens are malformed. Only HTTP/1.0 and HTTP/1.1 are accepted.
HeadParse ParseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead* out);
// Parses a status line and headers at the start of `buffer`.
HeadParse ParseResponseHead(std::string_view buffer, const HeadLimits& limits,
                            ResponseHead* out);

// How a message body is delimited.
struct BodyFraming {
  enum class Kind {
    kNone,           // no body
    kContentLength,  // exactly `length` bytes
    kChunked,        // chunked transfer coding (chunked.h)
    kUntilClose,     // until the peer closes (responses only)
  };
  Kind kind = Kind::kNone;
  uint64_t length = 0;
};

// The framing of a request body: chunked when Transfer-Encoding ends in
// "chunked"; otherwise Content-Length (repeated values must agree); none
// without either. Errors (kInvalidArgument): both headers (a smuggling
// vector), a transfer coding other than chunked, a malformed length.
util::StatusOr<BodyFraming> RequestBodyFraming(const RequestHead& head);
// The framing of a response to a `request_method` request: none for HEAD,
// 1xx, 204 and 304; then chunked, Content-Length, or until close.
util::StatusOr<BodyFraming> ResponseBodyFraming(const ResponseHead& head,
                                                std::string_view request_method);

// Whether the connection stays open after this message: HTTP/1.1 unless
// "Connection: close"; HTTP/1.0 only with "Connection: keep-alive".
bool KeepAlive(int version_minor, const Headers& headers);

// "OK", "Not Found", ...; "Unknown" for codes without a standard phrase.
const char* StatusText(int status);

// "HTTP/1.1 <status> <reason>\r\n" + fields + "\r\n". CR and LF in names or
// values are replaced by spaces, so a value cannot inject fields.
std::string FormatResponseHead(int status, const Headers& headers);
// "<method> <target> HTTP/1.1\r\n" + fields + "\r\n", with the same rule.
std::string FormatRequestHead(std::string_view method, std::string_view target,
                              const Headers& headers);
// Appends the head FormatRequestHead would write, with the fields of `set`
// in place of any field of `headers` with the same name (the transport's
// Host and Content-Length), without copying `headers`.
void AppendRequestHead(std::string_view method, std::string_view target, const Headers& headers,
                       std::span<const std::pair<std::string_view, std::string_view>> set, std::string* out);

}  // namespace ksched::net
