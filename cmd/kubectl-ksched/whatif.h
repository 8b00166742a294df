// `kubectl ksched what-if -f pods.yaml`: where would these pods go on the
// live cluster, and whom would they preempt?
//
// A read-only snapshot of the cluster (snapshot.h: paginated lists, GET
// only) plus the objects of -f (pods without a namespace get -n's, else the
// context's, else "default") is scheduled in this process by
// pkg/simulate's Simulate -- ksched's own scheduler, with --config's
// KubeSchedulerConfiguration (else the defaults) and the feature gates of
// --emulated-version's minor, else the API server's (/version, clamped to
// the minors ksched emulates), with --feature-gates applied. The report is `ksched simulate`'s: text (its table, --explain's
// per-node tables), JSON (docs/simulate.md) or the HTML page.
//
// Nothing is written to the cluster: the only requests are GET /version
// and the lists.
//
// Thread-safety: one call at a time (Simulate starts and joins its own threads).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cmd/kubectl-ksched/options.h"
#include "cmd/kubectl-ksched/snapshot.h"
#include "pkg/simulate/cluster_loader.h"
#include "pkg/util/status.h"

namespace ksched::kubectl_ksched {

// Adds the objects of the -f files to `loader`; a Pod without a namespace
// gets `ns`. Errors name file:line (the file is checked by the loader as
// written before the namespace is filled in). Returns the "ns/name" of
// each Pod read, in file order.
util::StatusOr<std::vector<std::string>> AddWhatIfFiles(const std::vector<std::string>& files, const std::string& ns,
                                                        simulate::ClusterLoader& loader);

// Runs the command: the snapshot through `fetch`, the simulation, the
// report to `out`; progress and warnings to `err`. `server_minor` is the
// API server's (0: unknown, the newest ksched emulates). Exit code: 0
// simulated, 1 on an error (named on `err`).
int RunWhatIf(const Options& o, const Fetch& fetch, int server_minor, const std::string& ns, std::ostream& out,
              std::ostream& err, bool err_is_terminal);

// Connects as kubectl would (the kubeconfig, --context, --token,
// --insecure-skip-tls-verify, --request-timeout), asks /version, and runs
// RunWhatIf against the cluster.
int WhatIfMain(const Options& o, std::ostream& out, std::ostream& err);

}  // namespace ksched::kubectl_ksched
