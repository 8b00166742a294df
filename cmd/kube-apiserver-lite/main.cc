// kube-apiserver-lite: the bundled in-memory Kubernetes API server that
// ksched's tests, demo and benchmarks run against. See flags.h for the flags.
//
// Prints "kube-apiserver-lite listening on http://HOST:PORT" on stdout once
// it serves (scripts read the port from it; logs go to stderr), then runs
// until SIGINT or SIGTERM.

#include <spdlog/sinks/stdout_color_sinks.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cmd/kube-apiserver-lite/flags.h"
#include "pkg/apiserverlite/cluster_simulation.h"
#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/log/log.h"
#include "pkg/util/clock.h"
#include "pkg/util/termination_signals.h"

int main(int argc, char** argv) {
  using namespace ksched::apiserver;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto flags = ParseFlags(args);
  if (!flags.ok()) {
    std::cerr << "kube-apiserver-lite: " << flags.status().message() << "\n\n" << FlagsUsage();
    return 2;
  }
  if (flags->help) {
    std::cout << FlagsUsage();
    return 0;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("kube-apiserver-lite"));
  ksched::log::Init(flags->verbosity);
  // Before any other thread starts: this thread takes them with sigwait.
  const sigset_t signals = ksched::util::BlockTerminationSignals();

  ApiHandler handler(flags->server, ksched::util::RealClock::Get());
  std::unique_ptr<ClusterSimulation> simulation;
  if (flags->simulate_kubelet) {
    simulation = std::make_unique<ClusterSimulation>(handler, ksched::util::RealClock::Get(), flags->kubelet_delay);
  }
  HttpServer server(handler, flags->http);
  ksched::util::Status started = server.Start();
  if (!started.ok()) {
    spdlog::error("{}", started.message());
    return 1;
  }
  std::printf("kube-apiserver-lite listening on %s\n", server.url().c_str());
  std::fflush(stdout);
  spdlog::info("serving on {} (simulate-kubelet={}, watch-history={})", server.url(),
               flags->simulate_kubelet, flags->server.watch_history);

  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("received signal {}, shutting down", sig);
  simulation.reset();
  handler.Shutdown();
  server.Stop();
  return 0;
}
