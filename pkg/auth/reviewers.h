// What delegated authentication and authorization ask of the API server,
// as interfaces: a TokenReviewer answers "who carries this bearer token"
// (authentication.k8s.io/v1 TokenReview), an AccessReviewer "may this user
// do this verb on this non-resource path" (authorization.k8s.io/v1
// SubjectAccessReview). rest_reviewers.h implements them over RestClient;
// tests fake them.
//
// Thread-safety: implementations must be safe to call from many threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::auth {

// An authenticated user (kube's user.Info).
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct TokenReviewResult {
  bool authenticated = false;
  UserInfo user;       // when authenticated
  std::string error;   // status.error, when the API server gave one
};

struct AccessReviewResult {
  bool allowed = false;
  bool denied = false;  // an explicit deny (no other authorizer may allow)
  std::string reason;
};

class TokenReviewer {
 public:
  virtual ~TokenReviewer() = default;
  // An error status means the review could not be made (API server down,
  // forbidden to review): not the same as "not authenticated".
  virtual util::StatusOr<TokenReviewResult> Review(const std::string& token) = 0;
};

class AccessReviewer {
 public:
  virtual ~AccessReviewer() = default;
  // `verb` as kube names it for non-resource requests ("get", "post", ...).
  virtual util::StatusOr<AccessReviewResult> Review(const UserInfo& user, const std::string& path,
                                                    const std::string& verb) = 0;
};

}  // namespace ksched::auth
