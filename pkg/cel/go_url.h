// GoUrl: a URL as Go's net/url parses it (Go 1.26: at most 10,000 query
// parameters; strict colons in http and https hosts, Go 1.26's default,
// unless the caller asks for the earlier reading), for Kubernetes' CEL URL library (lib_url.cc), which keeps
// what url.Parse returns after url.ParseRequestURI has accepted the string.
//
// Only what that library reads is kept and computed: the scheme, host,
// path, query, Hostname(), Port(), EscapedPath(), Query() and String()
// (its equality). Error messages are Go's: `parse "<url>": <reason>`.
//
// Thread-safety: an immutable value type.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::cel {

struct GoUrl {
  std::string scheme;  // lower case
  std::string opaque;  // the rest after "scheme:" when it does not start with '/'
  bool has_user = false;
  bool has_password = false;
  std::string username, password;  // unescaped
  std::string host;                // unescaped; "[v6]:port" keeps its brackets
  std::string path;                // unescaped
  std::string raw_path;            // the path as written, when escaping `path` does not give it back
  std::string raw_query;
  bool force_query = false;  // a lone trailing '?'
  std::string fragment, raw_fragment;
  bool omit_host = false;

  // url.Parse: a URL reference, with its fragment. `lenient_colons`: a
  // host's port follows its last colon whatever the scheme (Go before 1.26,
  // or GODEBUG urlstrictcolons=0); otherwise an http or https host's port
  // starts at its first colon.
  static util::StatusOr<GoUrl> Parse(std::string_view raw, bool lenient_colons = false);
  // url.ParseRequestURI: an absolute URI or an absolute path, no fragment
  // ('#' belongs to the path or query).
  static util::StatusOr<GoUrl> ParseRequestUri(std::string_view raw, bool lenient_colons = false);

  // The host without its port, and brackets of an IPv6 literal removed.
  std::string Hostname() const;
  // The port's digits after the host's last colon, or "".
  std::string Port() const;
  // The path as written when that is a valid escaping of it, else escaped.
  std::string EscapedPath() const;
  // The parsed query, keys sorted (Go's map has no order); pairs that fail
  // to unescape, or hold ';', are skipped, as url.Values drops them.
  std::vector<std::pair<std::string, std::vector<std::string>>> Query() const;
  // The URL reassembled (url.URL.String), which Kubernetes compares.
  std::string String() const;
};

}  // namespace ksched::cel
