#include "pkg/metrics/http_types.h"

#include "pkg/net/url.h"

namespace ksched::metrics {

bool HttpRequest::HasQuery(std::string_view key) const {
  for (const auto& [k, v] : query) {
    if (k == key) return true;
  }
  return false;
}

std::vector<std::string> HttpRequest::QueryValues(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query) {
    if (k == key) out.push_back(v);
  }
  return out;
}

util::StatusOr<HttpRequest> ParseRequestTarget(std::string method, std::string_view target) {
  HttpRequest req;
  req.method = std::move(method);
  auto [raw_path, raw_query] = net::SplitTarget(target);
  util::StatusOr<std::string> path = net::PercentDecode(raw_path);
  if (!path.ok()) return util::InvalidArgument("malformed escape in path");
  req.path = path->empty() ? "/" : *path;
  if (req.path.front() != '/') req.path.insert(req.path.begin(), '/');
  util::StatusOr<net::QueryParams> query = net::ParseQuery(raw_query);
  if (!query.ok()) return util::InvalidArgument("malformed escape in query");
  req.query = std::move(query).value();
  return req;
}

}  // namespace ksched::metrics
