#include "cmd/ksched/kube_minor.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include <spdlog/spdlog.h>

#include "pkg/scheduler/framework/feature_gates.h"

namespace ksched::app {
namespace {

using scheduler::framework::kNewestKubeMinor;
using scheduler::framework::kOldestKubeMinor;

std::string StringField(const nlohmann::json& v, const char* key) {
  if (!v.is_object() || !v.contains(key) || !v[key].is_string()) return "";
  return v[key].get<std::string>();
}

// Waits on `clock` until `deadline`; false when `stop` fires first.
bool WaitOrStop(const util::Clock& clock, util::TimePoint deadline, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable cv;
  std::stop_callback wake(stop, [&] {
    std::lock_guard<std::mutex> g(m);
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(m);
  while (!stop.stop_requested()) {
    if (clock.WaitUntil(l, cv, deadline)) return true;
  }
  return false;
}

}  // namespace

util::StatusOr<int> ServerMinor(const nlohmann::json& version) {
  const std::string major = StringField(version, "major");
  const std::string minor = StringField(version, "minor");
  if (major != "1") {
    return util::InvalidArgument("the API server's /version has major \"" + major + "\", not Kubernetes 1.x");
  }
  size_t digits = 0;
  while (digits < minor.size() && digits < 4 && std::isdigit(static_cast<unsigned char>(minor[digits]))) ++digits;
  if (digits == 0) {
    return util::InvalidArgument("the API server's /version has minor \"" + minor + "\", not a number");
  }
  return std::stoi(minor.substr(0, digits));
}

MinorChoice ChooseMinor(std::optional<int> emulated_minor, int server_minor, const std::string& server_version) {
  MinorChoice c;
  if (emulated_minor) {
    c.minor = *emulated_minor;
    c.source = "--emulated-version";
    return c;
  }
  c.minor = std::clamp(server_minor, kOldestKubeMinor, kNewestKubeMinor);
  c.source = "API server " + server_version;
  if (c.minor != server_minor) {
    c.warning = "the API server is Kubernetes 1." + std::to_string(server_minor) + " (" + server_version +
                "), outside the minors ksched can behave as (1." + std::to_string(kOldestKubeMinor) + " to 1." +
                std::to_string(kNewestKubeMinor) + "); behaving as kube-scheduler 1." + std::to_string(c.minor) +
                " (--emulated-version chooses explicitly)";
  }
  return c;
}

util::StatusOr<MinorChoice> AskServerMinor(client::RestClient& client, const util::Clock& clock,
                                           std::stop_token stop, util::Duration first_backoff) {
  util::Duration backoff = first_backoff;
  for (;;) {
    util::StatusOr<nlohmann::json> v = client.Get("/version", {}, stop);
    if (stop.stop_requested()) return util::Status(util::StatusCode::kCancelled, "stopped while asking /version");
    if (v.ok()) {
      util::StatusOr<int> minor = ServerMinor(*v);
      if (!minor.ok()) return minor.status();
      return ChooseMinor(std::nullopt, *minor, StringField(*v, "gitVersion"));
    }
    spdlog::warn("asking the API server {} its version, to behave as its kube-scheduler: {}; retrying in {} ms",
                 client.server_url(), v.status().message(),
                 std::chrono::duration_cast<std::chrono::milliseconds>(backoff).count());
    if (!WaitOrStop(clock, clock.Now() + backoff, stop)) {
      return util::Status(util::StatusCode::kCancelled, "stopped while asking /version");
    }
    backoff = std::min<util::Duration>(backoff * 2, std::chrono::seconds(10));
  }
}

}  // namespace ksched::app
