#include "pkg/auth/rest_reviewers.h"

namespace ksched::auth {

namespace {

std::string StringAt(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool BoolAt(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

nlohmann::json TokenReviewBody(const std::string& token) {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", {{"token", token}}}};
}

util::StatusOr<TokenReviewResult> ParseTokenReview(const nlohmann::json& review) {
  if (!review.is_object() || !review.contains("status") || !review["status"].is_object()) {
    return util::Internal("TokenReview answer without a status");
  }
  const nlohmann::json& status = review["status"];
  TokenReviewResult r;
  r.authenticated = BoolAt(status, "authenticated");
  r.error = StringAt(status, "error");
  if (!r.authenticated) return r;
  auto user = status.find("user");
  if (user == status.end() || !user->is_object()) return util::Internal("TokenReview answer without a user");
  r.user.name = StringAt(*user, "username");
  r.user.uid = StringAt(*user, "uid");
  if (auto g = user->find("groups"); g != user->end() && g->is_array()) {
    for (const auto& v : *g) {
      if (v.is_string()) r.user.groups.push_back(v.get<std::string>());
    }
  }
  if (auto e = user->find("extra"); e != user->end() && e->is_object()) {
    for (const auto& [k, vs] : e->items()) {
      if (!vs.is_array()) continue;
      for (const auto& v : vs) {
        if (v.is_string()) r.user.extra[k].push_back(v.get<std::string>());
      }
    }
  }
  if (r.user.name.empty()) return util::Internal("TokenReview answer with an empty username");
  return r;
}

nlohmann::json SubjectAccessReviewBody(const UserInfo& user, const std::string& path, const std::string& verb) {
  nlohmann::json spec = {{"user", user.name}, {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.groups.empty()) spec["groups"] = user.groups;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  return {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
}

util::StatusOr<AccessReviewResult> ParseSubjectAccessReview(const nlohmann::json& review) {
  if (!review.is_object() || !review.contains("status") || !review["status"].is_object()) {
    return util::Internal("SubjectAccessReview answer without a status");
  }
  const nlohmann::json& status = review["status"];
  AccessReviewResult r;
  r.allowed = BoolAt(status, "allowed");
  r.denied = BoolAt(status, "denied");
  r.reason = StringAt(status, "reason");
  if (std::string err = StringAt(status, "evaluationError"); !err.empty() && !r.allowed) {
    r.reason += (r.reason.empty() ? "" : "; ") + err;
  }
  return r;
}

util::StatusOr<TokenReviewResult> RestTokenReviewer::Review(const std::string& token) {
  util::StatusOr<nlohmann::json> answer =
      client_.Post("/apis/authentication.k8s.io/v1/tokenreviews", TokenReviewBody(token));
  if (!answer.ok()) return answer.status();
  return ParseTokenReview(*answer);
}

util::StatusOr<AccessReviewResult> RestAccessReviewer::Review(const UserInfo& user, const std::string& path,
                                                              const std::string& verb) {
  util::StatusOr<nlohmann::json> answer = client_.Post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                                       SubjectAccessReviewBody(user, path, verb));
  if (!answer.ok()) return answer.status();
  return ParseSubjectAccessReview(*answer);
}

}  // namespace ksched::auth
