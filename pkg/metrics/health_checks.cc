#include "pkg/metrics/health_checks.h"

#include <algorithm>
#include <exception>
#include <set>

#include "pkg/log/log.h"

namespace ksched::metrics {

namespace {

util::Status RunCheck(const HealthChecks::Check& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    return util::Internal(std::string("check threw: ") + e.what());
  } catch (...) {
    return util::Internal("check threw a non-standard exception");
  }
}

}  // namespace

HealthChecks::HealthChecks(std::string endpoint) : endpoint_(std::move(endpoint)) {
  checks_.emplace_back("ping", [] { return util::Status::Ok(); });
}

void HealthChecks::Add(std::string name, Check check) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [existing, fn] : checks_) {
    if (existing == name) {
      fn = std::move(check);
      return;
    }
  }
  checks_.emplace_back(std::move(name), std::move(check));
}

std::vector<std::string> HealthChecks::Names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, fn] : checks_) names.push_back(name);
  return names;
}

std::vector<std::pair<std::string, HealthChecks::Check>> HealthChecks::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return checks_;
}

HealthChecks::Response HealthChecks::RenderRoot(bool verbose,
                                                const std::vector<std::string>& exclude) const {
  std::set<std::string> excluded(exclude.begin(), exclude.end());
  std::string listing;
  std::string failed_names;
  std::string failed_details;
  for (const auto& [name, check] : Snapshot()) {
    if (excluded.erase(name) > 0) {
      listing += "[+]" + name + " excluded: ok\n";
      continue;
    }
    util::Status st = RunCheck(check);
    if (st.ok()) {
      listing += "[+]" + name + " ok\n";
    } else {
      listing += "[-]" + name + " failed: reason withheld\n";
      failed_details += "[-]" + name + " failed: " + st.ToString() + "\n";
      if (!failed_names.empty()) failed_names += ',';
      failed_names += name;
    }
  }
  if (!excluded.empty()) {
    std::string quoted;
    for (const auto& n : excluded) {
      if (!quoted.empty()) quoted += ',';
      quoted += '"' + n + '"';
    }
    listing += "warn: some health checks cannot be excluded: no matches for " + quoted + "\n";
    spdlog::warn("cannot exclude some {} checks, no checks are installed matching {}", endpoint_,
                 quoted);
  }
  if (!failed_names.empty()) {
    KLOG_V(2, "{} check failed: {}\n{}", failed_names, endpoint_, failed_details);
    // Failures are always reported verbosely, as kube does.
    return Response{500, listing + endpoint_ + " check failed\n"};
  }
  if (!verbose) return Response{200, "ok"};
  return Response{200, listing + endpoint_ + " check passed\n"};
}

std::optional<HealthChecks::Response> HealthChecks::RenderSingle(std::string_view name) const {
  for (const auto& [n, check] : Snapshot()) {
    if (n != name) continue;
    util::Status st = RunCheck(check);
    if (st.ok()) return Response{200, "ok"};
    return Response{500, "internal server error: " + st.message() + "\n"};
  }
  return std::nullopt;
}

}  // namespace ksched::metrics
