#include "cmd/kube-apiserver-lite/flags.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <functional>
#include <map>

namespace ksched::apiserver {

namespace {

using util::Status;
using util::StatusCode;

Status BadFlag(const std::string& name, const std::string& value, const char* want) {
  return Status(StatusCode::kInvalidArgument,
                fmt::format("invalid value \"{}\" for flag --{}: want {}", value, name, want));
}

bool ParseUint(const std::string& s, uint64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

bool ParseDouble(const std::string& s, double* out) {
  try {
    size_t used = 0;
    *out = std::stod(s, &used);
    return used == s.size() && *out >= 0;
  } catch (const std::exception&) {
    return false;
  }
}

util::Duration Seconds(double s) {
  return std::chrono::duration_cast<util::Duration>(std::chrono::duration<double>(s));
}

}  // namespace

util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  using Setter = std::function<Status(const std::string& name, const std::string& value)>;
  auto uint_flag = [](auto* target, uint64_t max) -> Setter {
    return [target, max](const std::string& name, const std::string& value) {
      uint64_t v = 0;
      if (!ParseUint(value, &v) || v > max) return BadFlag(name, value, "a non-negative integer");
      *target = static_cast<std::remove_pointer_t<decltype(target)>>(v);
      return Status::Ok();
    };
  };
  auto seconds_flag = [](util::Duration* target) -> Setter {
    return [target](const std::string& name, const std::string& value) {
      double v = 0;
      if (!ParseDouble(value, &v)) return BadFlag(name, value, "a non-negative number of seconds");
      *target = Seconds(v);
      return Status::Ok();
    };
  };
  auto rate_flag = [](double* target) -> Setter {
    return [target](const std::string& name, const std::string& value) {
      double v = 0;
      if (!ParseDouble(value, &v) || v > 1) return BadFlag(name, value, "a fraction in [0, 1]");
      *target = v;
      return Status::Ok();
    };
  };
  uint64_t kubelet_delay_ms = 100;
  uint64_t latency_ms = 0;
  bool simulate = false;
  std::map<std::string, Setter> setters = {
      {"port", uint_flag(&flags.http.port, 65535)},
      {"bind-address",
       [&](const std::string&, const std::string& v) {
         flags.http.bind_address = v;
         return Status::Ok();
       }},
      {"v", uint_flag(&flags.verbosity, 10)},
      {"simulate-kubelet-delay-ms", uint_flag(&kubelet_delay_ms, 3600000)},
      {"watch-history", uint_flag(&flags.server.watch_history, 100000000)},
      {"watch-bookmark-interval", seconds_flag(&flags.server.bookmark_interval)},
      {"watch-buffer-bytes", uint_flag(&flags.http.max_watch_buffer_bytes, uint64_t{1} << 40)},
      {"min-request-timeout", seconds_flag(&flags.server.min_request_timeout)},
      {"max-request-bytes", uint_flag(&flags.http.max_request_bytes, uint64_t{1} << 32)},
      {"fault-drop-watches-every", seconds_flag(&flags.server.fault_drop_watches_every)},
      {"fault-compact-every", seconds_flag(&flags.server.fault_compact_every)},
      {"fault-error-rate", rate_flag(&flags.server.fault_error_rate)},
      {"fault-429-rate", rate_flag(&flags.server.fault_429_rate)},
      {"fault-latency-ms", uint_flag(&latency_ms, 600000)},
  };
  std::map<std::string, bool*> bools = {{"simulate-kubelet", &simulate}, {"help", &flags.help}};

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h") {
      flags.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 && !(arg.size() > 1 && arg[0] == '-')) {
      return Status(StatusCode::kInvalidArgument, fmt::format("unexpected argument \"{}\"", arg));
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    std::optional<std::string> value;
    if (eq != std::string::npos) value = body.substr(eq + 1);
    if (auto b = bools.find(name); b != bools.end()) {
      if (!value || *value == "true" || *value == "1") {
        *b->second = true;
      } else if (*value == "false" || *value == "0") {
        *b->second = false;
      } else {
        return BadFlag(name, *value, "true or false");
      }
      continue;
    }
    auto s = setters.find(name);
    if (s == setters.end()) {
      return Status(StatusCode::kInvalidArgument, fmt::format("unknown flag --{}", name));
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        return Status(StatusCode::kInvalidArgument, fmt::format("flag --{} needs a value", name));
      }
      value = args[++i];
    }
    Status st = s->second(name, *value);
    if (!st.ok()) return st;
  }
  flags.simulate_kubelet = simulate;
  flags.server.graceful_pod_deletion = simulate;
  flags.kubelet_delay = std::chrono::milliseconds(kubelet_delay_ms);
  flags.http.fault_latency = std::chrono::milliseconds(latency_ms);
  if (flags.server.bookmark_interval <= util::Duration::zero()) {
    return BadFlag("watch-bookmark-interval", "0", "a positive number of seconds");
  }
  return flags;
}

std::string FlagsUsage() {
  return R"(Usage: kube-apiserver-lite [flags]

An in-memory Kubernetes API server for ksched's tests, demo and benchmarks.

  --port=8080                    TCP port; 0 picks a free one
  --bind-address=127.0.0.1       address to listen on
  --v=0                          log verbosity; 4 logs every request
  --simulate-kubelet             bound pods become Running, nodes Ready (like kwok);
                                 PVCs get bound or provisioned (like the PV controller),
                                 pods' ResourceClaimTemplates become ResourceClaims and
                                 claims of gone pods are released (like the
                                 resource-claim controller)
  --simulate-kubelet-delay-ms=100
  --watch-history=10000          events kept per resource for watches
  --watch-bookmark-interval=5    seconds between BOOKMARK events
  --watch-buffer-bytes=67108864  unsent bytes after which a slow watcher is dropped
  --min-request-timeout=1800     seconds; watches without timeoutSeconds end after 1x-2x
  --max-request-bytes=3145728    larger request bodies answer 413
  --fault-drop-watches-every=S   close every watch stream every S seconds
  --fault-compact-every=S        drop the event history every S seconds (410 on re-watch)
  --fault-error-rate=F           answer 500 to a fraction F of non-watch API requests
  --fault-429-rate=F             answer 429 (Retry-After: 1) to a fraction F
  --fault-latency-ms=N           delay every request by N milliseconds

On start it prints one line to stdout:
  kube-apiserver-lite listening on http://127.0.0.1:PORT
)";
}

}  // namespace ksched::apiserver
