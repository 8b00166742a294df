#include "cmd/kubectl-ksched/reach.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <vector>

#include "pkg/client/config_loader.h"
#include "pkg/client/kubeconfig.h"
#include "pkg/client/lease_calls.h"
#include "pkg/client/rest_client.h"
#include "pkg/util/clock.h"

extern char** environ;

namespace ksched::kubectl_ksched {

namespace {

using util::Status;
using util::StatusCode;

std::optional<std::string> FindKubeconfig(const Options& o, const client::Environment& env) {
  if (!o.kubeconfig.empty()) return o.kubeconfig;
  if (std::optional<std::string> list = env.Get("KUBECONFIG"); list && !list->empty()) {
    size_t start = 0;
    while (start <= list->size()) {
      size_t end = list->find(':', start);
      if (end == std::string::npos) end = list->size();
      std::string p = list->substr(start, end - start);
      if (!p.empty() && std::filesystem::exists(p)) return p;
      start = end + 1;
    }
  }
  if (std::optional<std::string> home = env.Get("HOME")) {
    std::string p = *home + "/.kube/config";
    if (std::filesystem::exists(p)) return p;
  }
  return std::nullopt;
}

// `kubectl port-forward` as a child process: the tunnel through the API
// server, authorized as the user. Ends the child when destroyed.
class PortForward {
 public:
  ~PortForward() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int st = 0;
      waitpid(pid_, &st, 0);
    }
    if (out_ >= 0) close(out_);
  }

  // Starts it and waits (10 s at most) for its "Forwarding from" line.
  Status Start(const Options& o, const std::string& ns, const std::string& pod) {
    std::vector<std::string> args = {"kubectl"};
    if (!o.kubeconfig.empty()) args.insert(args.end(), {"--kubeconfig", o.kubeconfig});
    if (!o.context.empty()) args.insert(args.end(), {"--context", o.context});
    if (!o.token.empty()) args.insert(args.end(), {"--token", o.token});
    args.insert(args.end(), {"-n", ns, "port-forward", "--address", "127.0.0.1", "pod/" + pod,
                             ":" + std::to_string(o.port)});
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return Status(StatusCode::kInternal, "pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = posix_spawnp(&pid_, "kubectl", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
    if (rc != 0) {
      pid_ = -1;
      return Status(StatusCode::kUnavailable, "cannot run kubectl for port-forward (is it on PATH?)");
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string buf;
    static const std::regex kLine(R"(Forwarding from 127\.0\.0\.1:(\d+) ->)");
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
      if (poll(&p, 1, std::max(left, 1)) <= 0) continue;
      char chunk[512];
      ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, static_cast<size_t>(n));
      std::smatch m;
      if (std::regex_search(buf, m, kLine)) {
        local_port_ = std::stoi(m[1].str());
        return Status();
      }
    }
    return Status(StatusCode::kUnavailable, "kubectl port-forward to pod " + ns + "/" + pod +
                                                " did not start (see its error above; you need create on pods/portforward)");
  }

  int local_port() const { return local_port_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int local_port_ = 0;
};

}  // namespace

util::StatusOr<client::RestConfig> LoadUserConfig(const Options& o, const client::Environment& env) {
  std::optional<std::string> path = FindKubeconfig(o, env);
  if (!path) {
    if (!o.endpoint.empty()) return client::RestConfig{};
    return Status(StatusCode::kInvalidArgument,
                  "no kubeconfig: give --kubeconfig, set KUBECONFIG or create ~/.kube/config (or use --endpoint)");
  }
  return client::LoadKubeconfig(*path, o.context);
}

client::RestConfig EndpointConfig(const client::RestConfig& user, const std::string& url, const Options& o,
                                  bool verify) {
  client::RestConfig c;
  c.host = url;
  c.cert_data = user.cert_data;
  c.cert_file = user.cert_file;
  c.key_data = user.key_data;
  c.key_file = user.key_file;
  c.bearer_token = user.bearer_token;
  c.bearer_token_file = user.bearer_token_file;
  c.username = user.username;
  c.password = user.password;
  if (!o.token.empty()) {
    c.bearer_token = o.token;
    c.bearer_token_file.clear();
    c.cert_data.clear();
    c.cert_file.clear();
    c.key_data.clear();
    c.key_file.clear();
    c.username.clear();
    c.password.clear();
  }
  c.ca_file = o.endpoint_ca;
  c.insecure_skip_tls_verify = !verify;
  c.timeout = std::chrono::seconds(o.request_timeout_seconds);
  c.user_agent = "kubectl-ksched";
  c.qps = 0;
  return c;
}

util::StatusOr<std::string> LeaderPod(const std::string& holder_identity) {
  size_t us = holder_identity.rfind('_');
  std::string pod = us == std::string::npos ? holder_identity : holder_identity.substr(0, us);
  if (pod.empty()) return Status(StatusCode::kNotFound, "the Lease has no holder: no ksched leader right now");
  return pod;
}

util::StatusOr<nlohmann::json> FetchExplain(const Options& o,
                                            const std::vector<std::pair<std::string, std::string>>& query,
                                            std::ostream& log) {
  util::StatusOr<client::RestConfig> user = LoadUserConfig(o, client::Environment::Process());
  if (!user.ok()) return user.status();
  const util::Clock& clock = util::RealClock::Get();
  std::string url = o.endpoint;
  std::unique_ptr<PortForward> tunnel;
  if (url.empty()) {
    client::RestConfig api = *user;
    if (!o.token.empty()) {
      api.bearer_token = o.token;
      api.bearer_token_file.clear();
    }
    api.timeout = std::chrono::seconds(o.request_timeout_seconds);
    api.user_agent = "kubectl-ksched";
    util::StatusOr<std::unique_ptr<client::RestClient>> rc = client::RestClient::Create(api, clock);
    if (!rc.ok()) return rc.status();
    util::StatusOr<api::Lease> lease = client::GetLease(**rc, o.lease_namespace, o.lease_name);
    if (!lease.ok()) {
      return Status(lease.status().code(), "reading Lease " + o.lease_namespace + "/" + o.lease_name +
                                               " (ksched's leader): " + lease.status().message());
    }
    util::StatusOr<std::string> pod = LeaderPod(lease->spec.holder_identity.value_or(""));
    if (!pod.ok()) return pod.status();
    log << "ksched leader: pod " << o.lease_namespace << "/" << *pod << "\n";
    tunnel = std::make_unique<PortForward>();
    Status st = tunnel->Start(o, o.lease_namespace, *pod);
    if (!st.ok()) return st;
    url = "https://127.0.0.1:" + std::to_string(tunnel->local_port());
  }
  const bool verify = !o.insecure_skip_tls_verify && tunnel == nullptr;
  util::StatusOr<std::unique_ptr<client::RestClient>> ksched =
      client::RestClient::Create(EndpointConfig(*user, url, o, verify), clock);
  if (!ksched.ok()) return ksched.status();
  util::StatusOr<nlohmann::json> body = (*ksched)->Get("/debug/explain", query);
  if (!body.ok()) {
    // The daemon answers 401/403 in plain text; the client's message holds
    // the code ("... 403 Forbidden: ...").
    const std::string& m = body.status().message();
    std::string hint;
    if (m.find("403") != std::string::npos) {
      hint = "\n(you may not GET /debug/explain on ksched: ask for a binding to ClusterRole ksched-explain-reader)";
    } else if (m.find("401") != std::string::npos) {
      hint = "\n(ksched did not accept your credentials: it needs a bearer token or a client certificate)";
    }
    return Status(body.status().code(), "asking ksched at " + url + ": " + m + hint);
  }
  return body;
}

}  // namespace ksched::kubectl_ksched
