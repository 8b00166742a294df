// KschedMain: the whole ksched command (the daemon, `ksched simulate`,
// --help, --version, --write-config-to) as a function, so that a binary can
// add plugins to the in-tree ones, as scheduler-plugins' app.WithPlugin
// does:
//   int main(int argc, char** argv) {
//     return ksched::app::KschedMain(argc, argv, {myplugin::Registration()});
//   }
// build/ksched is KschedMain with no extra plugin. Extra plugins join the
// registry before the configuration is loaded, so their names and args
// (decoded, defaulted, validated with file:line:column by their codec) are
// known to it. A name already registered fails the start (exit 1).
// `ksched simulate` runs the in-tree plugins only.
//
// Call it once per process, from main: it blocks SIGINT/SIGTERM and ignores
// SIGPIPE for the whole process. Returns the process exit code.
#pragma once

#include <vector>

#include "pkg/scheduler/framework/registry.h"

namespace ksched::app {

int KschedMain(int argc, char** argv, std::vector<scheduler::framework::PluginRegistration> plugins = {});

}  // namespace ksched::app
