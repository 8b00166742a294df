// Command-line flags of kube-apiserver-lite.
//
//   --port=8080                    TCP port; 0 picks a free one
//   --bind-address=127.0.0.1
//   --v=0                          log verbosity; 4 logs every request
//   --threads=0                    HTTP thread pool size (0: 2 x cores, at least 4)
//   --simulate-kubelet[=true]      bound pods become Running, nodes Ready, PVCs
//                                  get bound/provisioned (PV controller)
//   --simulate-kubelet-delay-ms=100
//   --watch-history=10000          events kept per resource for watches
//   --watch-bookmark-interval=5    seconds between BOOKMARK events
//   --watch-buffer-bytes=67108864  unsent bytes after which a watcher is dropped
//   --min-request-timeout=1800     seconds; default watch timeout is 1x-2x this
//   --max-request-bytes=3145728
//   --fault-drop-watches-every=S   close every watch stream every S seconds
//   --fault-compact-every=S        drop the event history every S seconds
//   --fault-error-rate=F           answer 500 to a fraction F of API requests
//   --fault-429-rate=F             answer 429 (Retry-After: 1) to a fraction F
//   --fault-latency-ms=N           delay every request by N ms
//
// Flags take "--name=value" or "--name value"; boolean flags may omit the
// value. Free functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "pkg/apiserverlite/handler.h"
#include "pkg/apiserverlite/server.h"
#include "pkg/util/clock.h"
#include "pkg/util/status.h"

namespace ksched::apiserver {

struct Flags {
  ServerOptions server;
  HttpServerOptions http;
  // --simulate-kubelet: run a ClusterSimulation (and graceful pod deletion).
  bool simulate_kubelet = false;
  util::Duration kubelet_delay = std::chrono::milliseconds(100);
  int verbosity = 0;
  bool help = false;
};

// Parses argv[1..]. Errors name the flag and the bad value.
util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args);

std::string FlagsUsage();

}  // namespace ksched::apiserver
