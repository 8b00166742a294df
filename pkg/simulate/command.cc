#include "pkg/simulate/command.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <optional>

#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/simulate/cluster_loader.h"
#include "pkg/simulate/html_report.h"
#include "pkg/simulate/report.h"
#include "pkg/simulate/simulation.h"

namespace ksched::simulate {

namespace {

struct Flags {
  std::string config;
  std::vector<std::string> cluster;
  std::string output = "table";
  bool explain = false;
  std::optional<uint64_t> seed;
  std::string tie_break = "random";
  std::string feature_gates;
  int emulated_minor = scheduler::framework::kNewestKubeMinor;
  int verbosity = -1;
  bool help = false;
};

util::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags f;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (name == "-o") name = "--output";
    if (name == "-h") name = "--help";
    if (name.rfind("--", 0) != 0) return util::InvalidArgument("unexpected argument \"" + name + "\"");
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (name == "--help") {
      f.help = true;
      continue;
    }
    if (name == "--explain") {
      if (value && *value != "true" && *value != "false") return util::InvalidArgument("--explain takes no value");
      f.explain = !value || *value == "true";
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size()) return util::InvalidArgument(name + " needs a value");
      value = args[++i];
    }
    if (name == "--config") {
      f.config = *value;
    } else if (name == "--cluster") {
      if (value->empty()) return util::InvalidArgument("--cluster needs a path");
      f.cluster.push_back(*value);
    } else if (name == "--output") {
      if (*value != "table" && *value != "json" && *value != "html") {
        return util::InvalidArgument("--output must be table, json or html, got \"" + *value + "\"");
      }
      f.output = *value;
    } else if (name == "--seed") {
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
      if (ec != std::errc() || end != value->data() + value->size() || n == 0) {
        return util::InvalidArgument("--seed must be a positive integer, got \"" + *value + "\"");
      }
      f.seed = n;
    } else if (name == "--tie-break") {
      if (*value != "random" && *value != "lowest-name") {
        return util::InvalidArgument("--tie-break must be random or lowest-name, got \"" + *value + "\"");
      }
      f.tie_break = *value;
    } else if (name == "--feature-gates") {
      f.feature_gates = *value;
    } else if (name == "--emulated-version") {
      util::StatusOr<int> minor = ParseEmulatedVersion(*value);
      if (!minor.ok()) return minor.status();
      f.emulated_minor = *minor;
    } else if (name == "--v") {
      int n = 0;
      auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
      if (ec != std::errc() || end != value->data() + value->size() || n < 0) {
        return util::InvalidArgument("--v must be a non-negative integer");
      }
      f.verbosity = n;
    } else {
      return util::InvalidArgument("unknown flag " + name);
    }
  }
  if (!f.help && f.cluster.empty()) return util::InvalidArgument("--cluster is required");
  return f;
}

}  // namespace

std::string SimulateUsage() {
  return R"(Usage: ksched simulate --cluster PATH [--cluster PATH ...] [flags]

Schedules, offline, every pending pod of the configuration's profiles in a
cluster snapshot (files or folders of `kubectl get ... -o yaml|json` output)
with ksched's own scheduler, and reports where each pod would go and why.
With Coscheduling in the configuration (config/ksched-gang.yaml) the
snapshot's PodGroups (scheduling.x-k8s.io/v1alpha1) make gangs: members
wait at Permit for each other, and for their timeout, on simulated time.

Flags:
  --config FILE          KubeSchedulerConfiguration (default: the defaults)
  --cluster PATH         file or folder of YAML/JSON objects; repeatable
  --output, -o table|json|html
                         report format (default table); html: one
                         self-contained page (tables, node usage picture),
                         per-node verdicts and scores with --explain
  --explain              every node's Filter verdict and Score breakdown per
                         pod, and how a wait at Permit ended; Filter and
                         Score then consider every node
                         (percentageOfNodesToScore=100)
  --seed N               reproducible tie-breaks (N >= 1); runs on one thread
  --tie-break random|lowest-name
                         lowest-name: among the best-scored nodes pick the
                         lowest name (deterministic; one thread)
  --emulated-version 1.NN
                         behave as kube-scheduler 1.34 to 1.37 (default 1.37)
  --feature-gates SPEC   e.g. SchedulerPopFromBackoffQ=false
  --v N                  log verbosity (stderr)

Exit: 0 simulated, 1 bad config or cluster input, 2 bad flags.
See docs/simulate.md for the JSON schema.
)";
}

util::StatusOr<int> ParseEmulatedVersion(const std::string& value) {
  int minor = 0;
  const std::string version = value.rfind("kube=", 0) == 0 ? value.substr(5) : value;
  auto [end, ec] = version.rfind("1.", 0) == 0
                       ? std::from_chars(version.data() + 2, version.data() + version.size(), minor)
                       : std::from_chars_result{version.data(), std::errc::invalid_argument};
  if (ec != std::errc() || end != version.data() + version.size() ||
      minor < scheduler::framework::kOldestKubeMinor || minor > scheduler::framework::kNewestKubeMinor) {
    return util::InvalidArgument("--emulated-version must be 1." +
                                 std::to_string(scheduler::framework::kOldestKubeMinor) + " to 1." +
                                 std::to_string(scheduler::framework::kNewestKubeMinor) + ", got \"" + value + "\"");
  }
  return minor;
}

int RunSimulateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  util::StatusOr<Flags> flags = ParseFlags(args);
  if (!flags.ok()) {
    err << "ksched simulate: " << flags.status().message() << "\n\n" << SimulateUsage();
    return 2;
  }
  if (flags->help) {
    out << SimulateUsage();
    return 0;
  }
  // Logs go to stderr, never into the report on stdout (a scheduling
  // error's line would corrupt the JSON); by default only warnings.
  log::Options log_options;
  log_options.verbosity = flags->verbosity < 0 ? 0 : flags->verbosity;
  log_options.flush_frequency = std::chrono::seconds(0);  // a short run: no flusher thread
  if (util::Status logging = log::Configure(log_options); !logging.ok()) {
    err << "ksched simulate: " << logging.message() << "\n";
    return 2;
  }
  if (flags->verbosity < 0) spdlog::set_level(spdlog::level::warn);

  scheduler::framework::FeatureGates gates = scheduler::framework::FeatureGates::ForMinor(flags->emulated_minor);
  std::vector<std::string> gate_warnings;
  if (util::Status st = gates.Set(flags->feature_gates, &gate_warnings); !st.ok()) {
    err << "ksched simulate: --feature-gates: " << st.message() << "\n";
    return 2;
  }
  for (const std::string& w : gate_warnings) err << "warning: " << w << "\n";
  gates.ApplyProcessWideSwitches();
  util::StatusOr<scheduler::framework::Registry> registry = scheduler::plugins::InTreeRegistry(gates);
  if (!registry.ok()) {
    err << "ksched simulate: " << registry.status().message() << "\n";
    return 1;
  }
  const config::KnownPlugins known = registry->Known();
  config::KubeSchedulerConfiguration cfg;
  if (flags->config.empty()) {
    cfg = config::DefaultConfiguration(known);
  } else {
    util::StatusOr<config::KubeSchedulerConfiguration> loaded = config::LoadConfigFile(flags->config, known);
    if (!loaded.ok()) {
      err << "ksched simulate: invalid configuration:\n" << loaded.status().message() << "\n";
      return 1;
    }
    cfg = std::move(loaded).value();
  }

  ClusterLoader loader;
  for (const std::string& path : flags->cluster) {
    util::Status s = loader.AddPath(path);
    if (!s.ok()) {
      for (const std::string& w : loader.warnings()) err << "warning: " << w << "\n";
      err << "ksched simulate: " << s.message() << "\n";
      return 1;
    }
  }
  for (const std::string& w : loader.warnings()) err << "warning: " << w << "\n";
  ClusterObjects cluster = loader.Finish();

  SimulationOptions so;
  so.config = std::move(cfg);
  so.features = gates;
  so.explain = flags->explain;
  so.seed = flags->seed;
  so.tie_break = flags->tie_break == "lowest-name" ? TieBreak::kLowestName : TieBreak::kRandom;
  util::StatusOr<SimulationResult> result = Simulate(cluster, so);
  if (!result.ok()) {
    err << "ksched simulate: " << result.status().message() << "\n";
    return 1;
  }
  if (flags->output == "json") {
    out << ReportJson(*result).dump(2) << "\n";
  } else if (flags->output == "html") {
    out << ReportHtml(*result);
  } else {
    out << ReportTable(*result);
  }
  return 0;
}

}  // namespace ksched::simulate
