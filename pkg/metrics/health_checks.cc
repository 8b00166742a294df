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

// ": <detail>" of a passing check, "" without one (or if it throws).
std::string Detail(const std::function<std::string()>& detail) {
  if (!detail) return "";
  try {
    std::string d = detail();
    return d.empty() ? "" : ": " + d;
  } catch (...) {
    return "";
  }
}

}  // namespace

HealthChecks::HealthChecks(std::string endpoint) : endpoint_(std::move(endpoint)) {
  checks_.push_back(Entry{"ping", [] { return util::Status::Ok(); }, nullptr});
}

void HealthChecks::Add(std::string name, Check check) { Add(std::move(name), std::move(check), nullptr); }

void HealthChecks::Add(std::string name, Check check, std::function<std::string()> detail) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Entry& e : checks_) {
    if (e.name == name) {
      e.check = std::move(check);
      e.detail = std::move(detail);
      return;
    }
  }
  checks_.push_back(Entry{std::move(name), std::move(check), std::move(detail)});
}

std::vector<std::string> HealthChecks::Names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const Entry& e : checks_) names.push_back(e.name);
  return names;
}

std::vector<HealthChecks::Entry> HealthChecks::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return checks_;
}

HealthChecks::Response HealthChecks::RenderRoot(bool verbose,
                                                const std::vector<std::string>& exclude) const {
  std::set<std::string> excluded(exclude.begin(), exclude.end());
  std::string listing;
  std::string failed_names;
  std::string failed_details;
  for (const Entry& entry : Snapshot()) {
    const std::string& name = entry.name;
    if (excluded.erase(name) > 0) {
      listing += "[+]" + name + " excluded: ok\n";
      continue;
    }
    util::Status st = RunCheck(entry.check);
    if (st.ok()) {
      listing += "[+]" + name + " ok" + Detail(entry.detail) + "\n";
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
  for (const Entry& entry : Snapshot()) {
    if (entry.name != name) continue;
    util::Status st = RunCheck(entry.check);
    if (st.ok()) return Response{200, "ok" + Detail(entry.detail)};
    return Response{500, "internal server error: " + st.message() + "\n"};
  }
  return std::nullopt;
}

}  // namespace ksched::metrics
