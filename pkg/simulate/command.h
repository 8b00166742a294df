// `ksched simulate`: the command line of the offline what-if scheduler.
//
//   ksched simulate --config FILE --cluster PATH [--cluster PATH ...]
//                   [--output table|json|html] [--explain] [--seed N]
//                   [--tie-break random|lowest-name] [--feature-gates SPEC] [--v N]
//
// Reads the configuration (defaults when --config is absent) and the
// cluster snapshot (cluster_loader.h), simulates (simulation.h) and writes
// the report (report.h, html_report.h) to `out`; warnings and errors go to `err`.
//
// Exit codes: 0 when the simulation ran (pods left pending included); 1 on
// an invalid configuration, unreadable or malformed cluster input (nothing
// is scheduled then) or a failed simulation; 2 on bad flags.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "pkg/util/status.h"

namespace ksched::simulate {

// `args` excludes the program name and the "simulate" word.
int RunSimulateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string SimulateUsage();

// The minor of an --emulated-version value ("1.NN" or "kube=1.NN") among
// those ksched emulates; kInvalidArgument naming the range otherwise.
// Shared with `kubectl ksched what-if`.
util::StatusOr<int> ParseEmulatedVersion(const std::string& value);

}  // namespace ksched::simulate
