// DelegatingAuth: kube's delegated authentication and authorization for a
// component's secure port (what kube-scheduler does on 10259), deciding one
// request from its credentials, path and method:
//
//   1. a path in always_allow_paths (exact, or a prefix when the entry ends
//      in '*') is served without looking at credentials (kube-scheduler:
//      /healthz, /readyz, /livez);
//   2. authentication, in the order of kube's union authenticator: the
//      user a front proxy asserted in request headers (its certificate
//      verified against the requestheader client CA, see
//      request_header.h); else a client certificate that verified against
//      the client CA names the user (CN) and groups (O); else a bearer
//      token is reviewed (TokenReview); no usable credential, an invalid
//      one or a failed review -> 401; an authenticated user is in the group
//      system:authenticated (added when missing, as kube does);
//   3. authorization: a user in always_allow_groups (system:masters) is
//      allowed; else a SubjectAccessReview for nonResourceAttributes
//      {path, verb} decides: allowed -> 200, otherwise 403; a failed review
//      -> 500 (kube's authorization filter answers an error the same way).
//
// Answers are cached as kube's delegating options do: token reviews for
// token_cache_ttl whatever the outcome (--authentication-token-webhook-cache-ttl,
// 10 s), access reviews for authorized_ttl when allowed and unauthorized_ttl
// otherwise (--authorization-webhook-cache-{authorized,unauthorized}-ttl,
// 10 s each). Failed reviews are not cached. Tokens are kept only as their
// SHA-256. Each cache holds at most max_cache_entries; when full, expired
// entries go first, then everything (kube uses LRUs; simpler, and a flood
// of distinct tokens costs one review each either way).
//
// Differences from kube-scheduler: a request without credentials is 401
// here; kube authenticates it as system:anonymous and asks a
// SubjectAccessReview (403 unless the cluster grants anonymous access).
// Concurrent misses for the same key each make a review (kube coalesces
// them).
//
// Thread-safety: Check() may be called from many threads at once; reviews
// run outside the cache lock. The reviewers and the clock must outlive this.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/auth/reviewers.h"
#include "pkg/util/clock.h"

namespace ksched::auth {

struct DelegatingAuthOptions {
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::vector<std::string> always_allow_groups = {"system:masters"};
  util::Duration token_cache_ttl = std::chrono::seconds(10);
  util::Duration authorized_ttl = std::chrono::seconds(10);
  util::Duration unauthorized_ttl = std::chrono::seconds(10);
  size_t max_cache_entries = 4096;
};

// What a request carried.
struct Credentials {
  // The user a verified front proxy named in request headers.
  std::optional<UserInfo> request_header_user;
  // The value of the Authorization header when present.
  std::optional<std::string> authorization;
  // A client certificate that verified against the client CA, as a user.
  std::optional<UserInfo> certificate_user;
};

struct Decision {
  int http_status = 200;  // 200, 401, 403 or 500
  std::string message;    // for the response body and the log
  std::optional<UserInfo> user;
};

class DelegatingAuth {
 public:
  // `tokens` null: bearer tokens are not accepted (only client
  // certificates). `access` null: only always-allowed paths and groups pass.
  DelegatingAuth(TokenReviewer* tokens, AccessReviewer* access, DelegatingAuthOptions options,
                 const util::Clock& clock);

  Decision Check(const Credentials& credentials, const std::string& path, std::string_view method);

  bool AlwaysAllowed(std::string_view path) const;
  // kube's verb for a non-resource request: the lower-cased method, "get"
  // for HEAD.
  static std::string Verb(std::string_view method);
  // The token of "Bearer <token>" (scheme case-insensitive), or nullopt.
  static std::optional<std::string> BearerToken(std::string_view authorization);

 private:
  template <class V>
  struct Entry {
    V value;
    util::TimePoint expires;
  };
  template <class V>
  class TtlCache {
   public:
    std::optional<V> Get(const std::string& key, util::TimePoint now);
    void Put(const std::string& key, V value, util::TimePoint expires, util::TimePoint now, size_t max);

   private:
    std::mutex mu_;
    std::map<std::string, Entry<V>> entries_;
  };

  util::StatusOr<TokenReviewResult> ReviewToken(const std::string& token);
  util::StatusOr<AccessReviewResult> ReviewAccess(const UserInfo& user, const std::string& path,
                                                  const std::string& verb);

  TokenReviewer* const tokens_;
  AccessReviewer* const access_;
  const DelegatingAuthOptions options_;
  const util::Clock& clock_;
  TtlCache<TokenReviewResult> token_cache_;
  TtlCache<AccessReviewResult> access_cache_;
};

}  // namespace ksched::auth
