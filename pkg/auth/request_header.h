// RequestHeaderAuthenticator: front-proxy ("requestheader") authentication
// as kube's apiserver does it (k8s.io/apiserver headerrequest), for a
// request whose client certificate verified against the front-proxy CA
// (--requestheader-client-ca-file); the caller checks that and passes the
// certificate's CommonName here:
//
//   - allowed_names not empty: the CommonName must be one of them;
//   - the user is the value of the first username header that has a
//     non-empty value (none: not authenticated by this authenticator);
//   - groups: every non-empty value of every group header, in order;
//   - extra: every header whose name starts with one of the extra prefixes
//     (case-insensitively), keyed by the rest of the name lower-cased and
//     URL-unescaped (kept as is when the escape is malformed), with all its
//     values;
//   - uid: the first non-empty value of the uid headers.
// Header names match case-insensitively. The headers count only for a
// request authenticated this way: on any other request they are ignored.
//
// Thread-safety: immutable; Authenticate() from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/auth/reviewers.h"
#include "pkg/net/http_message.h"

namespace ksched::auth {

struct RequestHeaderOptions {
  // kube-scheduler's defaults (DelegatingAuthenticationOptions).
  std::vector<std::string> username_headers = {"x-remote-user"};
  std::vector<std::string> group_headers = {"x-remote-group"};
  std::vector<std::string> extra_headers_prefixes = {"x-remote-extra-"};
  std::vector<std::string> uid_headers;
  // CommonNames a front proxy's certificate may have; empty: any.
  std::vector<std::string> allowed_names;
};

class RequestHeaderAuthenticator {
 public:
  explicit RequestHeaderAuthenticator(RequestHeaderOptions options);

  // Whether a front proxy whose certificate has this CommonName may assert
  // users.
  bool AllowedName(std::string_view common_name) const;
  // The user the headers name, or nullopt (no username header).
  std::optional<UserInfo> Authenticate(const net::Headers& headers) const;

  const RequestHeaderOptions& options() const { return options_; }

  // url.PathUnescape: "%XX" decoded; nullopt when an escape is malformed.
  static std::optional<std::string> PathUnescape(std::string_view s);

 private:
  RequestHeaderOptions options_;
};

}  // namespace ksched::auth
