// Percent-encoding (RFC 3986) as Go's net/url does it, for request targets:
// decoding paths and query strings on a server, escaping them on a client.
// Pure functions: thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::net {

// Decodes %XX escapes; with `plus_as_space`, '+' is a space (query strings).
// Error (kInvalidArgument) on a '%' not followed by two hex digits.
util::StatusOr<std::string> PercentDecode(std::string_view s, bool plus_as_space = false);

// A query string as Go's url.ParseQuery reads it: '&'-separated key=value
// pairs, '+' as space, escapes decoded, empty parts skipped, a key without
// '=' has the value "". Pairs are returned in order (repeated keys repeat).
// Error on the first malformed escape.
using QueryParams = std::vector<std::pair<std::string, std::string>>;
util::StatusOr<QueryParams> ParseQuery(std::string_view raw);

// Splits a request target "/path?query" into the raw path and the raw query
// (without '?'; a '#fragment' is dropped).
std::pair<std::string_view, std::string_view> SplitTarget(std::string_view target);

// Go's url.QueryEscape: everything but ALPHA DIGIT "-_.~" escaped, space as '+'.
std::string QueryEscape(std::string_view s);
// Go's url.PathEscape: escapes what may not appear in one path segment
// ('/', '?', '#', '%', ';', ',', spaces, controls, non-ASCII, ...).
std::string PathEscape(std::string_view s);
// "k1=v1&k2=v2" with QueryEscape'd keys and values, in the given order.
std::string EncodeQuery(const QueryParams& params);

}  // namespace ksched::net
