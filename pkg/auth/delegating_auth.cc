#include "pkg/auth/delegating_auth.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "pkg/log/log.h"

namespace ksched::auth {

namespace {

constexpr char kAuthenticatedGroup[] = "system:authenticated";

std::string Sha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string AccessKey(const UserInfo& user, const std::string& path, const std::string& verb) {
  nlohmann::json key = {user.name, user.uid, user.groups, user.extra, path, verb};
  return key.dump();
}

}  // namespace

template <class V>
std::optional<V> DelegatingAuth::TtlCache<V>::Get(const std::string& key, util::TimePoint now) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.expires <= now) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.value;
}

template <class V>
void DelegatingAuth::TtlCache<V>::Put(const std::string& key, V value, util::TimePoint expires,
                                      util::TimePoint now, size_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.size() >= max && entries_.find(key) == entries_.end()) {
    std::erase_if(entries_, [now](const auto& kv) { return kv.second.expires <= now; });
    if (entries_.size() >= max) entries_.clear();
  }
  entries_[key] = Entry<V>{std::move(value), expires};
}

DelegatingAuth::DelegatingAuth(TokenReviewer* tokens, AccessReviewer* access, DelegatingAuthOptions options,
                               const util::Clock& clock)
    : tokens_(tokens), access_(access), options_(std::move(options)), clock_(clock) {}

bool DelegatingAuth::AlwaysAllowed(std::string_view path) const {
  for (const std::string& p : options_.always_allow_paths) {
    if (!p.empty() && p.back() == '*') {
      if (path.substr(0, p.size() - 1) == std::string_view(p).substr(0, p.size() - 1)) return true;
    } else if (path == p) {
      return true;
    }
  }
  return false;
}

std::string DelegatingAuth::Verb(std::string_view method) {
  if (method == "HEAD") return "get";
  std::string v(method);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v;
}

std::optional<std::string> DelegatingAuth::BearerToken(std::string_view authorization) {
  while (!authorization.empty() && authorization.front() == ' ') authorization.remove_prefix(1);
  size_t sp = authorization.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  std::string scheme(authorization.substr(0, sp));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "bearer") return std::nullopt;
  std::string_view token = authorization.substr(sp + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return std::string(token);
}

util::StatusOr<TokenReviewResult> DelegatingAuth::ReviewToken(const std::string& token) {
  const std::string key = Sha256(token);
  if (auto hit = token_cache_.Get(key, clock_.Now())) return *hit;
  util::StatusOr<TokenReviewResult> r = tokens_->Review(token);
  if (!r.ok()) return r;
  const util::TimePoint now = clock_.Now();
  token_cache_.Put(key, *r, now + options_.token_cache_ttl, now, options_.max_cache_entries);
  return r;
}

util::StatusOr<AccessReviewResult> DelegatingAuth::ReviewAccess(const UserInfo& user, const std::string& path,
                                                                const std::string& verb) {
  const std::string key = AccessKey(user, path, verb);
  if (auto hit = access_cache_.Get(key, clock_.Now())) return *hit;
  util::StatusOr<AccessReviewResult> r = access_->Review(user, path, verb);
  if (!r.ok()) return r;
  const util::TimePoint now = clock_.Now();
  const util::Duration ttl = r->allowed ? options_.authorized_ttl : options_.unauthorized_ttl;
  access_cache_.Put(key, *r, now + ttl, now, options_.max_cache_entries);
  return r;
}

Decision DelegatingAuth::Check(const Credentials& credentials, const std::string& path, std::string_view method) {
  Decision d;
  if (AlwaysAllowed(path)) return d;

  // Authentication: the front proxy's user, the certificate, then the
  // token (kube's union: the first authenticator that succeeds wins).
  std::optional<UserInfo> user = credentials.request_header_user;
  if (!user) user = credentials.certificate_user;
  if (!user && credentials.authorization && tokens_ != nullptr) {
    std::optional<std::string> token = BearerToken(*credentials.authorization);
    if (token && !token->empty()) {
      util::StatusOr<TokenReviewResult> r = ReviewToken(*token);
      if (!r.ok()) {
        spdlog::error("Unable to authenticate the request: token review failed: {}", r.status().message());
      } else if (r->authenticated) {
        user = r->user;
      } else {
        KLOG_V(4, "token rejected by the TokenReview{}", r->error.empty() ? "" : ": " + r->error);
      }
    }
  }
  if (!user) {
    d.http_status = 401;
    d.message = "Unauthorized";
    return d;
  }
  // kube's AuthenticatedGroupAdder: every authenticated user is in
  // system:authenticated (TokenReview answers carry it already; client
  // certificates and front-proxy headers do not).
  if (std::find(user->groups.begin(), user->groups.end(), kAuthenticatedGroup) == user->groups.end()) {
    user->groups.push_back(kAuthenticatedGroup);
  }
  d.user = user;

  for (const std::string& g : user->groups) {
    if (std::find(options_.always_allow_groups.begin(), options_.always_allow_groups.end(), g) !=
        options_.always_allow_groups.end()) {
      return d;
    }
  }
  const std::string verb = Verb(method);
  std::string reason;
  if (access_ != nullptr) {
    util::StatusOr<AccessReviewResult> r = ReviewAccess(*user, path, verb);
    if (!r.ok()) {
      spdlog::error("authorization of {} {} for {} failed: {}", verb, path, user->name, r.status().message());
      d.http_status = 500;
      d.message = "Internal Server Error: authorization failed";
      return d;
    }
    if (r->allowed) return d;
    reason = r->reason;
  } else {
    reason = "no authorization-kubeconfig: only the always-allowed paths are served";
  }
  d.http_status = 403;
  d.message = "forbidden: User \"" + user->name + "\" cannot " + verb + " path \"" + path + "\"";
  if (!reason.empty()) d.message += ": " + reason;
  return d;
}

}  // namespace ksched::auth
