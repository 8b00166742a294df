// FakeApi: an in-memory API server for the snapshot and what-if tests, as a
// Fetch. Serves lists of the collections it holds, paginated by `limit`
// with opaque continue tokens and remainingItemCount, 404 for any other
// path, and records every request.
//
// Thread-safety: one thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/kubectl-ksched/snapshot.h"

namespace ksched::kubectl_ksched::testing {

class FakeApi {
 public:
  // Adds `item` to the collection at `path` (e.g. "/api/v1/nodes").
  void Add(const std::string& path, nlohmann::json item) { collections_[path].push_back(std::move(item)); }
  // Answers 403 for `path`.
  void Forbid(const std::string& path) { forbidden_.insert(path); }
  // The next request carrying a continue token answers 410 (once).
  void ExpireNextContinue() { expire_next_continue_ = true; }
  // Pretends the collection has `extra` more items than it holds in
  // remainingItemCount (a large cluster, without its objects).
  void PretendMore(const std::string& path, int64_t extra) { pretend_more_[path] = extra; }
  // Leaves remainingItemCount out, as a server does under a selector.
  void HideRemainingCount() { hide_remaining_ = true; }

  Fetch AsFetch() {
    return [this](const client::Request& r) { return Serve(r); };
  }

  const std::vector<client::Request>& requests() const { return requests_; }

 private:
  util::StatusOr<client::Response> Serve(const client::Request& r) {
    requests_.push_back(r);
    std::string limit, token;
    for (const auto& [k, v] : r.query) {
      if (k == "limit") limit = v;
      if (k == "continue") token = v;
    }
    if (forbidden_.count(r.path) != 0) {
      return util::Status(util::StatusCode::kInternal, "GET " + r.path + ": 403 Forbidden: no");
    }
    auto it = collections_.find(r.path);
    if (it == collections_.end()) {
      return util::Status(util::StatusCode::kNotFound, "GET " + r.path + ": 404 NotFound: the server could not find");
    }
    if (!token.empty() && expire_next_continue_) {
      expire_next_continue_ = false;
      return util::Status(util::StatusCode::kGone, "GET " + r.path + ": 410 Expired: continue token expired");
    }
    const std::vector<nlohmann::json>& all = it->second;
    size_t start = token.empty() ? 0 : std::stoul(token.substr(token.find(':') + 1));
    size_t n = limit.empty() ? all.size() : std::stoul(limit);
    size_t end = std::min(all.size(), start + n);
    std::string kind = r.path.substr(r.path.rfind('/') + 1);
    // As a real server: "<Kind>List", its items without kind and apiVersion.
    const std::string item_kind = all.empty() ? "" : all.front().value("kind", "");
    nlohmann::json body = {{"kind", item_kind + "List"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", "7"}}}};
    body["items"] = nlohmann::json::array();
    for (size_t i = start; i < end; ++i) {
      nlohmann::json item = all[i];
      item.erase("kind");
      item.erase("apiVersion");
      body["items"].push_back(std::move(item));
    }
    if (end < all.size()) {
      body["metadata"]["continue"] = kind + ":" + std::to_string(end);
      int64_t more = pretend_more_.count(r.path) ? pretend_more_[r.path] : 0;
      if (!hide_remaining_) body["metadata"]["remainingItemCount"] = static_cast<int64_t>(all.size() - end) + more;
    }
    return client::Response{200, body.dump()};
  }

  std::map<std::string, std::vector<nlohmann::json>> collections_;
  std::set<std::string> forbidden_;
  std::map<std::string, int64_t> pretend_more_;
  bool expire_next_continue_ = false;
  bool hide_remaining_ = false;
  std::vector<client::Request> requests_;
};

inline nlohmann::json TestNode(const std::string& name, const std::string& cpu) {
  return {{"kind", "Node"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status",
           {{"allocatable", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}},
            {"capacity", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
}

}  // namespace ksched::kubectl_ksched::testing
