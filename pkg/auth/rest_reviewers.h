// TokenReviewer and AccessReviewer over a RestClient: POST a TokenReview to
// /apis/authentication.k8s.io/v1/tokenreviews and a SubjectAccessReview
// (nonResourceAttributes) to /apis/authorization.k8s.io/v1/subjectaccessreviews,
// as kube's delegating authenticator and authorizer do. No caching here
// (see DelegatingAuth).
//
// Thread-safety: as RestClient: safe from many threads. The client must
// outlive the reviewer.
#pragma once

#include <nlohmann/json.hpp>

#include "pkg/auth/reviewers.h"
#include "pkg/client/rest_client.h"

namespace ksched::auth {

class RestTokenReviewer final : public TokenReviewer {
 public:
  explicit RestTokenReviewer(client::RestClient& client) : client_(client) {}
  util::StatusOr<TokenReviewResult> Review(const std::string& token) override;

 private:
  client::RestClient& client_;
};

class RestAccessReviewer final : public AccessReviewer {
 public:
  explicit RestAccessReviewer(client::RestClient& client) : client_(client) {}
  util::StatusOr<AccessReviewResult> Review(const UserInfo& user, const std::string& path,
                                            const std::string& verb) override;

 private:
  client::RestClient& client_;
};

// The request bodies and the answers' decoding, exposed for tests.
nlohmann::json TokenReviewBody(const std::string& token);
util::StatusOr<TokenReviewResult> ParseTokenReview(const nlohmann::json& review);
nlohmann::json SubjectAccessReviewBody(const UserInfo& user, const std::string& path, const std::string& verb);
util::StatusOr<AccessReviewResult> ParseSubjectAccessReview(const nlohmann::json& review);

}  // namespace ksched::auth
