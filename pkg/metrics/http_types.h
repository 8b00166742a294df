// The request and response types of ksched's endpoint server, and its
// handler signature. Value types: thread-compatible.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::metrics {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // decoded, without the query
  // Decoded query parameters in order; a key without '=' has an empty value.
  std::vector<std::pair<std::string, std::string>> query;

  bool HasQuery(std::string_view key) const;
  std::vector<std::string> QueryValues(std::string_view key) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Parses a raw request target ("/readyz?verbose&exclude=a%20b") into path
// and decoded query. kInvalidArgument for a malformed escape.
util::StatusOr<HttpRequest> ParseRequestTarget(std::string method, std::string_view target);

}  // namespace ksched::metrics
