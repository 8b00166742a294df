// K8sCluster (see cluster.h): a real control plane started by
// scripts/k8s-up.sh (etcd, kube-apiserver, kube-controller-manager from
// build/k8s/bin) and one scheduler, ksched or kube-scheduler, as its own
// process with the same KubeSchedulerConfiguration. Objects are created over
// HTTPS as cluster-admin by `create_workers` threads.
//
// The harness sees the scheduler from outside, as a user would:
//   - bound pods through its own pod informer (each pod counted once, when a
//     nodeName first appears), which is how scheduler_perf's throughput
//     collector counts;
//   - metrics by scraping the scheduler's /metrics (ksched's --http-port,
//     kube-scheduler's secure port with /metrics allowed without
//     authorization);
//   - CPU and peak RSS from /proc of the scheduler and of the control plane's
//     processes.
// There are no kubelets: the informer's handler also plays the part of one
// that a scheduler depends on, removing a bound pod at once when it is
// deleted gracefully (preemption's victims), as the real-control-plane
// suite's fake kubelets do.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "pkg/client/kubeconfig.h"
#include "pkg/client/rest_client.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/informer/rest_lister_watcher.h"
#include "test/bench/cluster.h"
#include "test/bench/prometheus_text.h"

extern char** environ;

namespace ksched::bench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

constexpr auto kStartTimeout = std::chrono::seconds(120);
constexpr auto kPollInterval = std::chrono::milliseconds(20);

// Runs `argv` with stdout and stderr appended to `log`; the pid or an error.
util::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return util::Internal(fmt::format("starting {}: {}", argv[0], std::strerror(err)));
  return pid;
}

// Waits for `pid` to exit: SIGTERM, then SIGKILL after `grace`.
void Terminate(pid_t pid, std::chrono::seconds grace) {
  kill(pid, SIGTERM);
  const auto deadline = Steady::now() + grace;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Steady::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Runs a shell command, its output appended to `log`; an error with the
// log's path when it fails.
util::Status RunScript(const std::string& command, const std::string& log) {
  util::StatusOr<pid_t> pid = Spawn({"/bin/bash", "-c", command}, log);
  if (!pid.ok()) return pid.status();
  int status = 0;
  waitpid(*pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return util::Internal(fmt::format("`{}` failed; see {}", command, log));
  }
  return util::Status();
}

// The file's contents, empty when it cannot be read.
std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Pods removed at once after a graceful delete, on a thread of their own so
// the informer's handler never blocks on the API.
class FakeKubelet {
 public:
  explicit FakeKubelet(client::RestClient& client) : client_(client), thread_([this] { Loop(); }) {}
  ~FakeKubelet() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void Remove(const api::Pod& pod) {
    std::lock_guard<std::mutex> l(mu_);
    queue_.push_back({pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid});
    cv_.notify_all();
  }

 private:
  struct Target {
    std::string ns, name, uid;
  };

  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Target t = std::move(queue_.front());
      queue_.pop_front();
      l.unlock();
      json options = {{"apiVersion", "v1"},
                      {"kind", "DeleteOptions"},
                      {"gracePeriodSeconds", 0},
                      {"preconditions", {{"uid", t.uid}}}};
      util::StatusOr<json> deleted = client_.Delete("/api/v1/namespaces/" + t.ns + "/pods/" + t.name, options);
      if (!deleted.ok() && deleted.status().code() != util::StatusCode::kNotFound &&
          deleted.status().code() != util::StatusCode::kConflict) {
        spdlog::warn("fake kubelet: deleting {}/{}: {}", t.ns, t.name, deleted.status().ToString());
      }
      l.lock();
    }
  }

  client::RestClient& client_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Target> queue_;
  bool stop_ = false;
  std::thread thread_;
};

class JsonBatch final : public PodBatch {
 public:
  size_t size() const override { return pods.size(); }
  std::vector<std::pair<std::string, json>> pods;  // collection path, object
};

class K8sCluster final : public Cluster {
 public:
  explicit K8sCluster(const ClusterOptions& options) : options_(options), k8s_(options.k8s) {}
  ~K8sCluster() override { Stop(); }
  const char* Mode() const override { return "k8s"; }

  util::Status Init() {
    static std::atomic<int> runs{0};
    dir_ = fs::absolute(fs::path(k8s_.work_dir) /
                        fmt::format("{}-{}-{}", SchedulerName(k8s_.scheduler), getpid(), runs++))
               .string();
    std::error_code ec;
    fs::remove_all(dir_, ec);
    fs::create_directories(dir_, ec);
    if (ec) return util::Internal("creating " + dir_ + ": " + ec.message());
    const std::string repo = fs::absolute(k8s_.repo_dir).string();
    // The admission plugins scheduler_perf's own API server runs without:
    // its workloads set spec.priority directly and create pods in
    // namespaces before a ServiceAccount controller would reach them.
    util::Status up = RunScript(fmt::format("K8S_BIN='{}' K8S_APISERVER_EXTRA_ARGS="
                                            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority "
                                            "exec '{}/scripts/k8s-up.sh' '{}'",
                                            fs::absolute(k8s_.k8s_bin).string(), repo, dir_ + "/cp"),
                                dir_ + "/k8s-up.log");
    if (!up.ok()) return up;
    control_plane_up_ = true;
    for (const auto& [pid, name] : ReadPids(dir_ + "/cp/pids")) control_plane_pids_[name] = pid;

    util::StatusOr<client::RestConfig> admin = client::LoadKubeconfig(dir_ + "/cp/admin.kubeconfig");
    if (!admin.ok()) return admin.status();
    admin->qps = 0;  // the harness creates objects as fast as the server takes them
    admin->timeout = std::chrono::seconds(60);
    util::StatusOr<std::unique_ptr<client::RestClient>> c = client::RestClient::Create(*admin, util::RealClock::Get());
    if (!c.ok()) return c.status();
    client_ = std::move(c).value();

    kubelet_ = std::make_unique<FakeKubelet>(*client_);
    informers_ = std::make_unique<informer::InformerFactory>(informer::RestListerWatcherFactory(*client_),
                                                             util::RealClock::Get());
    informer::ResourceEventHandlerFuncs<api::Pod> handler;
    handler.on_add = [this](const auto& pod, bool) { Observe(nullptr, *pod); };
    handler.on_update = [this](const auto& old, const auto& pod) { Observe(old.get(), *pod); };
    informers_->Pods().AddEventHandler(std::move(handler));
    informers_->Start();
    for (const auto& [resource, synced] : informers_->WaitForCacheSync(std::chrono::seconds(60))) {
      if (!synced) return util::Internal("the harness's informer for " + resource + " did not sync");
    }
    return StartScheduler();
  }

  util::Status CreateNamespace(const json& ns) override {
    util::StatusOr<json> r = client_->Post("/api/v1/namespaces", ns);
    if (!r.ok() && r.status().code() != util::StatusCode::kAlreadyExists) return r.status();
    return util::Status();
  }

  util::Status CreateNodes(const std::vector<json>& nodes) override {
    std::vector<std::pair<std::string, json>> reqs;
    reqs.reserve(nodes.size());
    for (const json& n : nodes) reqs.emplace_back("/api/v1/nodes", n);
    util::Status s = PostAll(reqs);
    if (!s.ok()) return s;
    nodes_ += static_cast<int64_t>(nodes.size());
    // Pods created before the scheduler's cache holds every node would see
    // a partial cluster; both schedulers export their cache's size.
    return PollUntil("the scheduler's cache to hold every node", [&] {
      util::StatusOr<Families> m = ScrapeMetrics();
      if (!m.ok()) return false;
      for (const prometheus::MetricFamily& f : *m) {
        if (f.name != "scheduler_cache_size") continue;
        for (const prometheus::ClientMetric& c : f.metric) {
          for (const auto& l : c.label) {
            if (l.name == "type" && l.value == "nodes" && c.gauge.value >= static_cast<double>(nodes_)) return true;
          }
        }
      }
      return false;
    });
  }

  util::StatusOr<std::unique_ptr<PodBatch>> PreparePods(const std::vector<json>& pods) override {
    auto batch = std::make_unique<JsonBatch>();
    batch->pods.reserve(pods.size());
    for (const json& p : pods) {
      batch->pods.emplace_back("/api/v1/namespaces/" + p["metadata"].value("namespace", "default") + "/pods", p);
    }
    return std::unique_ptr<PodBatch>(std::move(batch));
  }

  util::Status CreatePods(PodBatch& batch) override { return PostAll(static_cast<JsonBatch&>(batch).pods); }

  util::StatusOr<int64_t> CountBoundPods(const std::string& namespace_) override {
    return CountBoundPodsByList(*client_, namespace_);
  }

  // The harness may see a binding before the scheduler records its
  // attempt: waits until the scheduler's count of scheduled attempts covers
  // every pod the harness saw bound.
  void WaitForBindingCycles() override {
    util::Status s = PollUntil("the scheduler's metrics to count every binding", [&] {
      util::StatusOr<Families> m = ScrapeMetrics();
      if (!m.ok()) return false;
      const HistogramSnapshot h =
          TakeHistogram(*m, "scheduler_scheduling_attempt_duration_seconds", {{"result", "scheduled"}});
      return static_cast<int64_t>(h.count) >= scheduled_.Total();
    });
    if (!s.ok()) spdlog::warn("{}", s.ToString());
  }

  util::StatusOr<Families> ScrapeMetrics() override {
    client::Request request;
    request.verb = "GET";
    request.path = "/metrics";
    util::StatusOr<client::Response> r = metrics_client_->Do(request);
    if (!r.ok()) return r.status();
    if (r->http_code != 200) return util::Internal(fmt::format("GET /metrics: HTTP {}", r->http_code));
    return ParsePrometheusText(r->body);
  }

  double SchedulerCpuSeconds() override { return ProcessCpuSeconds(scheduler_pid_); }
  int64_t SchedulerPeakRssKb() override { return PeakRssKb(scheduler_pid_); }
  std::map<std::string, double> ControlPlaneCpuSeconds() override {
    std::map<std::string, double> out;
    for (const auto& [name, pid] : control_plane_pids_) out[name] = ProcessCpuSeconds(pid);
    return out;
  }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    if (scheduler_pid_ > 0) Terminate(scheduler_pid_, std::chrono::seconds(20));
    if (informers_) informers_->Shutdown();
    kubelet_.reset();
    if (control_plane_up_) {
      util::Status down = RunScript(fmt::format("exec '{}/scripts/k8s-down.sh' '{}'",
                                                fs::absolute(k8s_.repo_dir).string(), dir_ + "/cp"),
                                    dir_ + "/k8s-down.log");
      if (!down.ok()) spdlog::warn("{}", down.ToString());
    }
    if (!k8s_.keep_dir && !dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  }

 private:
  static std::vector<std::pair<pid_t, std::string>> ReadPids(const std::string& path) {
    std::vector<std::pair<pid_t, std::string>> out;
    std::istringstream in(ReadFileOrEmpty(path));
    pid_t pid = 0;
    std::string name;
    while (in >> pid >> name) out.emplace_back(pid, name);
    return out;
  }

  // Counts a pod the first time it has a node; hands a bound pod being
  // deleted to the fake kubelet.
  void Observe(const api::Pod* old, const api::Pod& pod) {
    if (pod.spec.node_name.empty()) return;
    if (old == nullptr || old->spec.node_name.empty()) scheduled_.Add(pod.metadata.namespace_, pod.metadata.name);
    if (pod.metadata.deletion_timestamp.has_value()) kubelet_->Remove(pod);
  }

  util::Status StartScheduler() {
    const std::string ports = dir_ + "/port";
    util::Status picked = RunScript(fmt::format("python3 '{}/scripts/free-ports.py' 1 > '{}'",
                                                fs::absolute(k8s_.repo_dir).string(), ports),
                                    dir_ + "/free-ports.log");
    if (!picked.ok()) return picked;
    const int port = std::stoi(ReadFileOrEmpty(ports));

    // The same configuration for both: cluster-admin (so neither is
    // refused anything), client-side limits high enough not to throttle,
    // no leader election.
    const std::string config = dir_ + "/scheduler-config.yaml";
    std::ofstream(config) << fmt::format(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "clientConnection:\n  kubeconfig: {}\n  qps: {}\n  burst: {}\n"
        "leaderElection:\n  leaderElect: false\n",
        dir_ + "/cp/admin.kubeconfig", options_.qps, options_.burst);
    std::vector<std::string> argv;
    client::RestConfig metrics;
    metrics.qps = 0;
    metrics.timeout = std::chrono::seconds(30);
    if (k8s_.scheduler == SchedulerKind::kKsched) {
      argv = {fs::absolute(k8s_.ksched_binary).string(), "--config=" + config, "--secure-port=0",
              fmt::format("--http-port={}", port), "--bind-address=127.0.0.1", "--v=1"};
      metrics.host = fmt::format("http://127.0.0.1:{}", port);
    } else {
      argv = {fs::absolute(k8s_.k8s_bin).string() + "/kube-scheduler", "--config=" + config,
              fmt::format("--secure-port={}", port), "--bind-address=127.0.0.1",
              "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics", "--v=1"};
      metrics.host = fmt::format("https://127.0.0.1:{}", port);
      metrics.insecure_skip_tls_verify = true;  // its self-signed serving certificate
    }
    if (!k8s_.feature_gates.empty()) argv.push_back("--feature-gates=" + k8s_.feature_gates);
    util::StatusOr<pid_t> pid = Spawn(argv, dir_ + "/scheduler.log");
    if (!pid.ok()) return pid.status();
    scheduler_pid_ = *pid;
    util::StatusOr<std::unique_ptr<client::RestClient>> c = client::RestClient::Create(metrics, util::RealClock::Get());
    if (!c.ok()) return c.status();
    metrics_client_ = std::move(c).value();
    bool exited = false;
    util::Status up = PollUntil("the scheduler's /metrics", [&] {
      int status = 0;
      exited = waitpid(scheduler_pid_, &status, WNOHANG) == scheduler_pid_;
      return exited || ScrapeMetrics().ok();
    });
    if (exited) {
      scheduler_pid_ = 0;
      return util::Internal("the scheduler exited; see " + dir_ + "/scheduler.log");
    }
    return up;
  }

  util::Status PollUntil(const std::string& what, const std::function<bool()>& done) {
    const auto deadline = Steady::now() + kStartTimeout;
    while (!done()) {
      if (Steady::now() > deadline) return util::Internal("timed out waiting for " + what);
      std::this_thread::sleep_for(kPollInterval);
    }
    return util::Status();
  }

  // POSTs every object from `create_workers` threads; the first error.
  util::Status PostAll(const std::vector<std::pair<std::string, json>>& reqs) {
    std::atomic<size_t> next{0};
    std::mutex mu;
    util::Status first;
    auto work = [&] {
      for (size_t i = next++; i < reqs.size(); i = next++) {
        util::StatusOr<json> r = client_->Post(reqs[i].first, reqs[i].second);
        if (!r.ok() && r.status().code() != util::StatusCode::kAlreadyExists) {
          std::lock_guard<std::mutex> l(mu);
          if (first.ok()) first = r.status();
          return;
        }
      }
    };
    const int workers = std::max(1, std::min<int>(options_.create_workers, static_cast<int>(reqs.size())));
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    return first;
  }

  const ClusterOptions options_;
  const K8sOptions k8s_;
  std::string dir_;
  bool control_plane_up_ = false;
  std::map<std::string, pid_t> control_plane_pids_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<client::RestClient> metrics_client_;
  std::unique_ptr<FakeKubelet> kubelet_;
  std::unique_ptr<informer::InformerFactory> informers_;
  pid_t scheduler_pid_ = 0;
  int64_t nodes_ = 0;
  bool stopped_ = false;
};

}  // namespace

util::StatusOr<std::unique_ptr<Cluster>> NewK8sCluster(const ClusterOptions& options) {
  auto c = std::make_unique<K8sCluster>(options);
  util::Status s = c->Init();
  if (!s.ok()) return s;
  return std::unique_ptr<Cluster>(std::move(c));
}

}  // namespace ksched::bench
