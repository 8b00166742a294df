// HealthChecks: the named checks behind one of /healthz, /livez, /readyz,
// answered exactly as kube-scheduler (k8s.io/apiserver healthz) answers:
//
//   GET /readyz            all pass: 200 "ok"
//                          ?verbose: "[+]ping ok\n...readyz check passed\n"
//                          any fails: 500, every check listed, failures as
//                          "[-]<name> failed: reason withheld", then
//                          "readyz check failed\n"
//                          ?exclude=<name> (repeatable) skips a check
//   GET /readyz/<name>     200 "ok" or 500 "internal server error: <error>\n"
//
// The root endpoint withholds failure reasons (it is unauthenticated in
// kube); the per-check path gives them, and they are logged at --v=2.
// Every list starts with the always-passing "ping" check, as kube's does.
//
// Thread-safety: Add() and the Render* methods may be called concurrently.
// Checks run outside the internal lock, in registration order, on the
// serving thread, so they must be quick and non-blocking. A check that
// throws counts as failed.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::metrics {

class HealthChecks {
 public:
  using Check = std::function<util::Status()>;

  struct Response {
    int status = 200;
    std::string body;
  };

  // `endpoint` names the endpoint in the texts: "healthz", "livez", "readyz".
  explicit HealthChecks(std::string endpoint);

  const std::string& endpoint() const { return endpoint_; }

  // Appends a check; a second check with an existing name replaces it.
  void Add(std::string name, Check check);
  // The same, for a check that also says something while it passes (e.g.
  // "leader" / "standby"): `detail()` follows "ok" in the verbose listing
  // ("[+]leader-election ok: standby") and in the per-check answer
  // ("ok: standby"). Plain "ok" answers of the root are unchanged.
  void Add(std::string name, Check check, std::function<std::string()> detail);
  std::vector<std::string> Names() const;

  // GET /<endpoint>?verbose&exclude=...
  Response RenderRoot(bool verbose, const std::vector<std::string>& exclude) const;
  // GET /<endpoint>/<name>; nullopt when no check has that name.
  std::optional<Response> RenderSingle(std::string_view name) const;

 private:
  struct Entry {
    std::string name;
    Check check;
    std::function<std::string()> detail;  // may be empty
  };
  std::vector<Entry> Snapshot() const;

  const std::string endpoint_;
  mutable std::mutex mu_;
  std::vector<Entry> checks_;
};

}  // namespace ksched::metrics
