// ksched: the Kubernetes secondary scheduler daemon. See flags.h for the
// flags and server.h for what runs.
//
// At --v=0 it logs one line per start-up phase (config loaded, client
// connected, serving on ports, caches synced, campaigning for the lease,
// leader acquired / scheduling) plus warnings and errors. SIGTERM or SIGINT:
// cancel the best-effort API calls (Events and status patches still queued
// are dropped and their count logged), stop popping pods, let the binding
// cycles in flight finish (bounded), then no more writes, release the
// Lease, stop the informers, exit 0 -- within a bounded time whatever the
// API server does (docs/architecture.md, "Shutdown"). A leader that cannot renew its Lease starts no
// write from then on, stops scheduling and exits 1 (its Deployment restarts
// it as a standby), as kube-scheduler does.
//
// `ksched simulate ...` runs the offline what-if scheduler instead
// (pkg/simulate/command.h); the daemon path is unchanged.
//
// Exit codes: 0 after a signal, --help, --version or --write-config-to;
// 1 on an invalid configuration, a start-up failure or a lost Lease; 2 on
// bad flags.

#include "cmd/ksched/ksched_main.h"

#include <utility>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cmd/ksched/flags.h"
#include "cmd/ksched/kube_minor.h"
#include "cmd/ksched/server.h"
#include "pkg/client/config_loader.h"
#include "pkg/config/defaults.h"
#include "pkg/util/go_duration.h"
#include "pkg/config/encode.h"
#include "pkg/config/known_plugins.h"
#include "pkg/config/load.h"
#include "pkg/config/validate.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/simulate/command.h"
#include "pkg/util/malloc_tuning.h"
#include "pkg/util/termination_signals.h"

namespace {

using namespace ksched;

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// Waits for SIGINT/SIGTERM on its own thread (they are blocked everywhere
// else) and lets the main thread wait for it with a timeout, or for Wake()
// (the leader-election thread's "lease lost"). The OnSignal callback runs on
// that thread as the signal arrives (the server's BeginShutdown: the main
// thread may be waiting on the network in a start-up phase).
class SignalWaiter {
 public:
  explicit SignalWaiter(const sigset_t& set) : set_(set) {
    thread_ = std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      {
        std::lock_guard<std::mutex> l(mu_);
        if (closing_) return;
        signal_ = sig;
        if (on_signal_) on_signal_();
        cv_.notify_all();
      }
      stop_.request_stop();
    });
  }
  ~SignalWaiter() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (signal_ == 0) closing_ = true;
    }
    if (closing_) pthread_kill(thread_.native_handle(), SIGTERM);
    thread_.join();
  }
  // Set or cleared (empty) under the lock the signal thread calls it with,
  // so clearing it before its target goes is enough. Runs at once when a
  // signal came already.
  void OnSignal(std::function<void()> f) {
    std::lock_guard<std::mutex> l(mu_);
    on_signal_ = std::move(f);
    if (signal_ != 0 && on_signal_) on_signal_();
  }
  // The signal received, 0 if none within `d`.
  int WaitFor(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, d, [&] { return signal_ != 0; });
    return signal_;
  }
  // The signal received, or 0 when woken by Wake() first.
  int Wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return signal_ != 0 || woken_; });
    return signal_;
  }
  void Wake() {
    std::lock_guard<std::mutex> l(mu_);
    woken_ = true;
    cv_.notify_all();
  }
  int Received() {
    std::lock_guard<std::mutex> l(mu_);
    return signal_;
  }
  // Fires when a signal arrives: for start-up calls that wait on the network.
  std::stop_token StopToken() const { return stop_.get_token(); }

 private:
  sigset_t set_;
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable cv_;
  int signal_ = 0;
  bool woken_ = false;
  bool closing_ = false;  // the destructor woke the thread: no signal
  std::function<void()> on_signal_;
  std::thread thread_;
};

// The in-tree registry for `gates`' minor with the extra plugins joined.
util::StatusOr<scheduler::framework::Registry> BuildRegistry(
    const scheduler::framework::FeatureGates& gates,
    const std::vector<scheduler::framework::PluginRegistration>& plugins) {
  util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry(gates);
  if (!registry.ok()) return util::Status(registry.status().code(), "building the plugin registry: " + registry.status().message());
  for (const scheduler::framework::PluginRegistration& p : plugins) {
    if (util::Status st = registry->Register(p); !st.ok()) {
      return util::Status(st.code(), "registering plugin " + p.name + ": " + st.message());
    }
  }
  return registry;
}

// The configuration file (or the defaults) with `known`'s default plugins.
util::StatusOr<config::KubeSchedulerConfiguration> LoadConfiguration(const app::Flags& flags,
                                                                    const config::KnownPlugins& known) {
  if (flags.config_file.empty()) return config::DefaultConfiguration(known);
  util::StatusOr<config::KubeSchedulerConfiguration> loaded = config::LoadConfigFile(flags.config_file, known);
  if (!loaded.ok()) return util::InvalidArgument("invalid configuration:\n" + loaded.status().message());
  return loaded;
}

int Run(const app::Flags& flags, const sigset_t& signals,
        std::vector<scheduler::framework::PluginRegistration> plugins) {
  SignalWaiter waiter(signals);

  // Which kube-scheduler minor to behave as: --emulated-version, or the API
  // server's, found through the connection the configuration names. The
  // default plugin set depends on the minor, so the configuration is loaded
  // again below for the chosen one.
  util::StatusOr<scheduler::framework::Registry> baseline = BuildRegistry({}, plugins);
  if (!baseline.ok()) {
    spdlog::error("{}", baseline.status().message());
    return 1;
  }
  util::StatusOr<config::KubeSchedulerConfiguration> first = LoadConfiguration(flags, baseline->Known());
  if (!first.ok()) {
    spdlog::error("{}", first.status().message());
    return 1;
  }
  // --kubeconfig and the other deprecated flags count here too (their
  // warnings are logged with the final load below).
  app::ApplyDeprecatedFlags(flags, !flags.config_file.empty(), &*first);
  util::StatusOr<client::RestConfig> rest =
      client::BuildConfigFromFlags(flags.master, first->client_connection.kubeconfig, client::Environment::Process());
  app::MinorChoice minor;
  if (flags.emulated_minor) {
    minor = app::ChooseMinor(flags.emulated_minor, 0, "");
  } else if (!flags.write_config_to.empty()) {
    minor.minor = scheduler::framework::kNewestKubeMinor;
    minor.source = "the newest supported minor: --write-config-to asks no server";
  } else {
    if (!rest.ok()) {
      spdlog::error("client configuration: {}", rest.status().message());
      return 1;
    }
    // Few retries per call: AskServerMinor logs each failure and backs off.
    client::RestClientOptions probe_options;
    probe_options.retry.max_retries = 2;
    util::StatusOr<std::unique_ptr<client::RestClient>> probe =
        client::RestClient::Create(*rest, util::RealClock::Get(), probe_options);
    if (!probe.ok()) {
      spdlog::error("client configuration: {}", probe.status().message());
      return 1;
    }
    util::StatusOr<app::MinorChoice> asked = app::AskServerMinor(**probe, util::RealClock::Get(), waiter.StopToken());
    if (!asked.ok()) {
      if (asked.status().code() == util::StatusCode::kCancelled) {
        spdlog::info("received a signal before the API server answered; exiting");
        return 0;
      }
      spdlog::error("{} (--emulated-version chooses the minor without asking)", asked.status().message());
      return 1;
    }
    minor = *asked;
  }
  if (minor.warning) spdlog::warn("{}", *minor.warning);
  scheduler::framework::FeatureGates gates = scheduler::framework::FeatureGates::ForMinor(minor.minor);
  std::vector<std::string> gate_warnings;
  if (util::Status st = gates.Set(flags.feature_gates, &gate_warnings); !st.ok()) {
    spdlog::error("--feature-gates: {}", st.message());
    return 2;
  }
  for (const std::string& w : gate_warnings) spdlog::warn("{}", w);
  gates.ApplyProcessWideSwitches();
  spdlog::info("behaving as kube-scheduler 1.{} (from {})", minor.minor, minor.source);
  KLOG_V(1, "version switches: {}", fmt::join(gates.Describe(), ", "));

  util::StatusOr<scheduler::framework::Registry> registry = BuildRegistry(gates, plugins);
  if (!registry.ok()) {
    spdlog::error("{}", registry.status().message());
    return 1;
  }
  // What a configuration may name (with each plugin's args codec) and the
  // default plugin set come from the registry.
  const config::KnownPlugins known = registry->Known();
  util::StatusOr<config::KubeSchedulerConfiguration> loaded = LoadConfiguration(flags, known);
  if (!loaded.ok()) {
    spdlog::error("{}", loaded.status().message());
    return 1;
  }
  config::KubeSchedulerConfiguration cfg = std::move(loaded).value();
  if (flags.config_file.empty()) spdlog::info("config loaded: no --config given, using the defaults");
  std::vector<std::string> profiles;
  for (const auto& p : cfg.profiles) profiles.push_back(p.scheduler_name.value_or(config::kDefaultSchedulerName));
  if (!flags.config_file.empty()) {
    spdlog::info("config loaded from {}: profiles [{}]", flags.config_file, Join(profiles, ", "));
  }

  // kube-scheduler applies the deprecated flags over the defaults (only
  // without --config) and the --leader-elect* flags over the file or the
  // defaults, then validates the result.
  for (const std::string& w : app::ApplyDeprecatedFlags(flags, !flags.config_file.empty(), &cfg)) {
    spdlog::warn("{}", w);
  }
  app::ApplyLeaderElectionFlags(flags, &cfg.leader_election);
  if (config::ErrorList errors = config::Validate(cfg, known); !errors.empty()) {
    spdlog::error("invalid configuration (with the --leader-elect* flags applied):\n{}", config::JoinErrors(errors));
    return 1;
  }

  if (!flags.write_config_to.empty()) {
    // Instantiate every profile's plugins with their args, as the daemon
    // would, without any client: a plugin that rejects its args fails here.
    scheduler::SchedulerOptions offline;
    offline.features = gates;
    util::StatusOr<std::unique_ptr<scheduler::Scheduler>> check = scheduler::Scheduler::New(cfg, *registry, offline);
    if (!check.ok()) {
      spdlog::error("invalid configuration: {}", check.status().message());
      return 1;
    }
    std::ofstream out(flags.write_config_to, std::ios::trunc);
    out << config::EncodeYaml(cfg);
    out.close();
    if (!out) {
      spdlog::error("writing the configuration to {} failed", flags.write_config_to);
      return 1;
    }
    spdlog::info("wrote the configuration to {}", flags.write_config_to);
    return 0;
  }

  if (!rest.ok()) {
    spdlog::error("client configuration: {}", rest.status().message());
    return 1;
  }
  if (cfg.client_connection.qps > 0) rest->qps = cfg.client_connection.qps;
  if (cfg.client_connection.burst > 0) rest->burst = cfg.client_connection.burst;

  app::ServerOptions so;
  so.on_leader_election_end = [&waiter](leaderelection::LeaderElector::Result r) {
    if (r == leaderelection::LeaderElector::Result::kLost) waiter.Wake();
  };
  so.config = cfg;
  so.rest = *rest;
  so.features = gates;
  so.pod_max_in_unschedulable_pods_duration = flags.pod_max_in_unschedulable_pods_duration;
  so.explain_record_size = flags.explain_record_size;
  so.endpoints.bind_address = flags.bind_address;
  so.endpoints.tls_min_version = flags.tls_min_version;
  so.endpoints.tls12_cipher_list = flags.tls12_cipher_list;
  so.endpoints.tls_groups_list = flags.tls_groups_list;
  so.endpoints.permit_port_sharing = flags.permit_port_sharing;
  so.endpoints.disabled_metrics.insert(flags.disabled_metrics.begin(), flags.disabled_metrics.end());
  so.endpoints.secure_port = flags.secure_port;
  so.endpoints.http_port = flags.http_port;
  so.endpoints.tls_cert_file = flags.tls_cert_file;
  so.endpoints.tls_private_key_file = flags.tls_private_key_file;
  so.endpoints.cert_dir = flags.cert_dir;
  so.endpoints.client_ca_file = flags.client_ca_file;
  so.endpoints.requestheader_client_ca_file = flags.requestheader_client_ca_file;
  so.endpoints.requestheader.username_headers = flags.requestheader_username_headers;
  so.endpoints.requestheader.group_headers = flags.requestheader_group_headers;
  so.endpoints.requestheader.extra_headers_prefixes = flags.requestheader_extra_headers_prefix;
  so.endpoints.requestheader.uid_headers = flags.requestheader_uid_headers;
  so.endpoints.requestheader.allowed_names = flags.requestheader_allowed_names;
  // kube-scheduler's delegated authn/authz: a kubeconfig of their own when
  // given, else the main connection.
  for (auto [path, into, flag] : {std::tuple{&flags.authentication_kubeconfig, &so.authentication_rest,
                                             "--authentication-kubeconfig"},
                                  std::tuple{&flags.authorization_kubeconfig, &so.authorization_rest,
                                             "--authorization-kubeconfig"}}) {
    if (path->empty()) continue;
    util::StatusOr<client::RestConfig> rc = client::BuildConfigFromFlags("", *path, client::Environment::Process());
    if (!rc.ok()) {
      spdlog::error("{} {}: {}", flag, *path, rc.status().message());
      return 1;
    }
    *into = *rc;
  }
  so.auth.always_allow_paths = flags.authorization_always_allow_paths;
  so.auth.token_cache_ttl = flags.authentication_token_webhook_cache_ttl;
  so.auth.authorized_ttl = flags.authorization_webhook_cache_authorized_ttl;
  so.auth.unauthorized_ttl = flags.authorization_webhook_cache_unauthorized_ttl;
  so.authentication_skip_lookup = flags.authentication_skip_lookup;
  so.authentication_tolerate_lookup_failure = flags.authentication_tolerate_lookup_failure;
  util::StatusOr<std::unique_ptr<app::Server>> server = app::Server::New(std::move(so), *registry);
  if (!server.ok()) {
    spdlog::error("{}", server.status().message());
    return 1;
  }
  app::Server& srv = **server;
  // A signal cancels the server's network waits at once; cleared before the
  // server goes (declared after it).
  waiter.OnSignal([&srv] { srv.BeginShutdown(); });
  struct ClearOnSignal {
    SignalWaiter& w;
    ~ClearOnSignal() { w.OnSignal(nullptr); }
  } clear_on_signal{waiter};

  util::StatusOr<std::string> version = srv.Connect();
  if (version.ok()) {
    spdlog::info("client connected to {} (server {}, qps {}, burst {}, source {})", srv.Client().server_url(),
                 *version, rest->qps, rest->burst, rest->source.empty() ? "--master" : rest->source);
  } else {
    spdlog::warn("API server {} not reachable yet: {}; informers will retry", srv.Client().server_url(),
                 version.status().message());
  }
  util::Status serving = srv.ServeEndpoints();
  if (!serving.ok()) {
    spdlog::error("{}", serving.message());
    return 1;
  }
  std::vector<std::string> uris = srv.ListeningUris();
  spdlog::info("serving /metrics /healthz /livez /readyz /configz /debug/pending /debug/explain on {}",
               uris.empty() ? std::string("(no port: --secure-port=0 and --http-port=0)") : Join(uris, ", "));

  srv.StartInformers();
  const auto sync_start = std::chrono::steady_clock::now();
  while (!srv.WaitForCacheSync(std::chrono::seconds(1))) {
    if (waiter.Received() != 0) break;
    if (std::chrono::steady_clock::now() - sync_start > std::chrono::seconds(10)) {
      spdlog::warn("still waiting for the informer caches to sync");
    }
  }
  if (waiter.Received() == 0) {
    spdlog::info("caches synced in {} ms",
                 std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sync_start)
                     .count());
    if (srv.LeaderElectionEnabled()) {
      const config::LeaderElectionConfiguration& le = cfg.leader_election;
      spdlog::info("leader election: campaigning for lease {}/{} as {} (lease {}, renew deadline {}, retry {}); "
                   "profiles [{}]",
                   le.resource_namespace, le.resource_name, srv.Elector()->Identity(),
                   util::FormatGoDuration(le.lease_duration), util::FormatGoDuration(le.renew_deadline),
                   util::FormatGoDuration(le.retry_period), Join(profiles, ", "));
      srv.StartLeaderElection();
    } else {
      srv.RunScheduler();
      spdlog::info("scheduling pods of profiles [{}] (leader election disabled)", Join(profiles, ", "));
    }
  }
  int sig = waiter.Wait();
  if (sig == 0) {
    spdlog::error("leader election lost: lease {}/{} could not be renewed within {}; exiting",
                  cfg.leader_election.resource_namespace, cfg.leader_election.resource_name,
                  util::FormatGoDuration(cfg.leader_election.renew_deadline));
    srv.Stop();
    return 1;
  }
  spdlog::info("received signal {}, shutting down", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "?");
  const auto stop_start = std::chrono::steady_clock::now();
  srv.Stop();
  spdlog::info("stopped in {} ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::now() - stop_start)
                                       .count());
  return 0;
}

}  // namespace

namespace ksched::app {

int KschedMain(int argc, char** argv, std::vector<scheduler::framework::PluginRegistration> plugins) {
  // Before any other thread starts: SignalWaiter takes them synchronously.
  const sigset_t signals = util::BlockTerminationSignals();
  util::KeepFreedHeapForReuse();

  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "simulate") {
    return simulate::RunSimulateCommand(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
  }
  util::StatusOr<app::Flags> flags = app::ParseFlags(args);
  if (!flags.ok()) {
    std::cerr << "ksched: " << flags.status().message() << "\n\n" << app::FlagsUsage();
    return 2;
  }
  if (flags->help) {
    std::cout << app::FlagsUsage();
    return 0;
  }
  if (flags->version) {
    if (flags->version_mode == "raw") {
      std::cout << "ksched v" << KSCHED_VERSION << " (kube-scheduler v1.34 flags and behaviour)\n";
    } else {
      std::cout << "ksched " << (flags->version_mode.empty() ? "v" KSCHED_VERSION : flags->version_mode) << "\n";
    }
    return 0;
  }
  log::Options lo;
  lo.verbosity = flags->verbosity;
  lo.format = flags->logging_format == "json" ? log::Format::kJson : log::Format::kText;
  lo.vmodule = flags->vmodule;
  lo.flush_frequency = std::chrono::ceil<std::chrono::seconds>(flags->log_flush_frequency);
  lo.split_stream = flags->log_split_stream;
  if (util::Status st = log::Configure(lo); !st.ok()) {
    std::cerr << "ksched: " << st.message() << "\n";
    return 2;
  }
  for (const std::string& w : flags->warnings) spdlog::warn("{}", w);
  return Run(*flags, signals, std::move(plugins));
}

}  // namespace ksched::app
