#include "cmd/kubectl-ksched/whatif.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cmd/kubectl-ksched/reach.h"
#include "pkg/api/yaml.h"
#include "pkg/client/rest_client.h"
#include "pkg/config/defaults.h"
#include "pkg/config/load.h"
#include "pkg/log/log.h"
#include "pkg/scheduler/framework/feature_gates.h"
#include "pkg/scheduler/plugins/registry.h"
#include "pkg/simulate/html_report.h"
#include "pkg/simulate/report.h"
#include "pkg/simulate/simulation.h"
#include "pkg/util/clock.h"

namespace ksched::kubectl_ksched {

namespace {

using util::Status;
using util::StatusCode;

// Fills metadata.namespace of a Pod that has none.
void FillNamespace(nlohmann::json& obj, const std::string& list_kind, const std::string& ns) {
  if (!obj.is_object()) return;
  std::string kind = obj.contains("kind") && obj["kind"].is_string() ? obj["kind"].get<std::string>() : list_kind;
  if (kind != "Pod") return;
  auto it = obj.find("metadata");
  if (it == obj.end() || !it->is_object()) return;  // the loader already refused it
  nlohmann::json& md = *it;
  if (!md.contains("namespace") || !md["namespace"].is_string() || md["namespace"].get<std::string>().empty()) {
    md["namespace"] = ns;
  }
}

void PodKey(const nlohmann::json& obj, const std::string& list_kind, std::vector<std::string>& keys) {
  if (!obj.is_object()) return;
  std::string kind = obj.contains("kind") && obj["kind"].is_string() ? obj["kind"].get<std::string>() : list_kind;
  auto md = obj.find("metadata");
  if (kind != "Pod" || md == obj.end() || !md->is_object()) return;
  keys.push_back(md->value("namespace", "") + "/" + md->value("name", ""));
}

int ServerMinorOf(const nlohmann::json& version) {
  if (!version.is_object() || version.value("major", "") != "1") return 0;
  const std::string minor = version.value("minor", "");
  int n = 0;
  for (char c : minor) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    n = n * 10 + (c - '0');
    if (n > 1000) return 0;
  }
  return n;
}

}  // namespace

util::StatusOr<std::vector<std::string>> AddWhatIfFiles(const std::vector<std::string>& files, const std::string& ns,
                                                        simulate::ClusterLoader& loader) {
  std::vector<std::string> pods;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Status(StatusCode::kNotFound, file + ": cannot open");
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    // As written first, for errors with file:line.
    simulate::ClusterLoader check;
    if (Status s = check.AddText(text, file); !s.ok()) return s;
    util::StatusOr<std::vector<nlohmann::json>> docs = api::YamlDocumentsToJson(text);
    if (!docs.ok()) return Status(StatusCode::kInvalidArgument, file + ": " + docs.status().message());
    nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", nlohmann::json::array()}};
    for (nlohmann::json& doc : *docs) {
      if (doc.is_null()) continue;
      const std::string kind = doc.is_object() ? doc.value("kind", "") : "";
      if (doc.is_object() && doc.contains("items") && kind.size() >= 4 && kind.ends_with("List")) {
        const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
        if (!doc["items"].is_array()) continue;
        for (nlohmann::json& item : doc["items"]) {
          FillNamespace(item, item_kind, ns);
          if (item.is_object() && !item.contains("kind") && !item_kind.empty()) item["kind"] = item_kind;
          PodKey(item, item_kind, pods);
          list["items"].push_back(std::move(item));
        }
        continue;
      }
      FillNamespace(doc, "", ns);
      PodKey(doc, "", pods);
      list["items"].push_back(std::move(doc));
    }
    if (Status s = loader.AddText(list.dump(), file + "#namespaced.json"); !s.ok()) return s;
  }
  return pods;
}

int RunWhatIf(const Options& o, const Fetch& fetch, int server_minor, const std::string& ns, std::ostream& out,
              std::ostream& err, bool err_is_terminal) {
  namespace fw = scheduler::framework;
  // The configuration first: a bad one fails before any request.
  int minor = o.emulated_minor != 0 ? o.emulated_minor : server_minor == 0 ? fw::kNewestKubeMinor : server_minor;
  if (minor < fw::kOldestKubeMinor || minor > fw::kNewestKubeMinor) {
    const int clamped = std::clamp(minor, fw::kOldestKubeMinor, fw::kNewestKubeMinor);
    err << "warning: the API server is Kubernetes 1." << minor << "; simulating kube-scheduler 1." << clamped
        << "'s behaviour\n";
    minor = clamped;
  }
  fw::FeatureGates gates = fw::FeatureGates::ForMinor(minor);
  std::vector<std::string> gate_warnings;
  if (util::Status st = gates.Set(o.feature_gates, &gate_warnings); !st.ok()) {
    err << "error: --feature-gates: " << st.message() << "\n";
    return 1;
  }
  for (const std::string& w : gate_warnings) err << "warning: " << w << "\n";
  gates.ApplyProcessWideSwitches();
  util::StatusOr<fw::Registry> registry = scheduler::plugins::InTreeRegistry(gates);
  if (!registry.ok()) {
    err << "error: " << registry.status().message() << "\n";
    return 1;
  }
  const config::KnownPlugins known = registry->Known();
  config::KubeSchedulerConfiguration cfg;
  if (o.config_file.empty()) {
    cfg = config::DefaultConfiguration(known);
  } else {
    util::StatusOr<config::KubeSchedulerConfiguration> loaded = config::LoadConfigFile(o.config_file, known);
    if (!loaded.ok()) {
      err << "error: invalid configuration " << o.config_file << ":\n" << loaded.status().message() << "\n";
      return 1;
    }
    cfg = std::move(loaded).value();
  }

  // The pods of -f, checked before the (possibly long) snapshot.
  simulate::ClusterLoader files_check;
  if (util::StatusOr<std::vector<std::string>> f = AddWhatIfFiles(o.files, ns, files_check); !f.ok()) {
    err << "error: " << f.status().message() << "\n";
    return 1;
  }

  simulate::ClusterLoader loader;
  SnapshotOptions so;
  so.chunk_size = o.chunk_size;
  so.terminal = err_is_terminal;
  util::StatusOr<SnapshotStats> stats = TakeSnapshot(fetch, so, loader, err);
  if (!stats.ok()) {
    err << "error: taking the cluster's snapshot: " << stats.status().message() << "\n";
    return 1;
  }
  util::StatusOr<std::vector<std::string>> added = AddWhatIfFiles(o.files, ns, loader);
  if (!added.ok()) {
    err << "error: " << added.status().message() << "\n";
    return 1;
  }
  for (const std::string& w : loader.warnings()) {
    // The snapshot's kinds are the loader's; what it skips comes from -f.
    err << "warning: " << w << "\n";
  }
  simulate::ClusterObjects cluster = loader.Finish();

  // A pod of -f that no profile schedules would silently not appear.
  std::set<std::string> profiles;
  for (const config::KubeSchedulerProfile& p : cfg.profiles) profiles.insert(p.scheduler_name.value_or(""));
  const std::set<std::string> wanted(added->begin(), added->end());
  for (const auto& pod : cluster.pods) {
    const std::string key = pod->metadata.namespace_ + "/" + pod->metadata.name;
    if (wanted.count(key) == 0 || !pod->spec.node_name.empty()) continue;
    if (profiles.count(pod->spec.scheduler_name) == 0) {
      std::string names;
      for (const std::string& n : profiles) names += (names.empty() ? "" : ", ") + n;
      err << "warning: pod " << key << ": schedulerName \"" << pod->spec.scheduler_name
          << "\" is not a profile of the configuration (" << names
          << "): not simulated (give --config with ksched's configuration)\n";
    }
  }

  simulate::SimulationOptions sim;
  sim.config = std::move(cfg);
  sim.features = gates;
  sim.explain = o.explain;
  if (o.seed != 0) sim.seed = o.seed;
  err << "simulating " << added->size() << " pod(s) of " << (o.files.size() == 1 ? o.files[0] : "the files")
      << " on " << cluster.nodes.size() << " nodes (kube-scheduler 1." << minor << " behaviour)\n";
  util::StatusOr<simulate::SimulationResult> result = simulate::Simulate(cluster, sim);
  if (!result.ok()) {
    err << "error: simulating: " << result.status().message() << "\n";
    return 1;
  }
  if (o.output == "json") {
    nlohmann::ordered_json j = simulate::ReportJson(*result);
    nlohmann::ordered_json snap = nlohmann::ordered_json::object();
    for (const KindCount& c : stats->kinds) {
      if (c.served && !c.forbidden) snap[c.kind] = c.objects;
    }
    j["snapshot"] = snap;
    j["whatIfPods"] = *added;
    out << j.dump(2) << "\n";
  } else if (o.output == "html") {
    out << simulate::ReportHtml(*result);
  } else {
    out << simulate::ReportTable(*result);
  }
  return 0;
}

int WhatIfMain(const Options& o, std::ostream& out, std::ostream& err) {
  // The scheduler's own logs: warnings only, on stderr.
  log::Options log_options;
  log_options.flush_frequency = std::chrono::seconds(0);
  if (Status s = log::Configure(log_options); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);

  util::StatusOr<client::RestConfig> user = LoadUserConfig(o, client::Environment::Process());
  if (!user.ok()) {
    err << "error: " << user.status().message() << "\n";
    return 1;
  }
  client::RestConfig api = *user;
  if (!o.token.empty()) {
    api.bearer_token = o.token;
    api.bearer_token_file.clear();
  }
  if (o.insecure_skip_tls_verify) api.insecure_skip_tls_verify = true;
  api.timeout = std::chrono::seconds(o.request_timeout_seconds);
  api.user_agent = "kubectl-ksched";
  util::StatusOr<std::unique_ptr<client::RestClient>> rc = client::RestClient::Create(api, util::RealClock::Get());
  if (!rc.ok()) {
    err << "error: " << rc.status().message() << "\n";
    return 1;
  }
  client::RestClient& c = **rc;
  int server_minor = 0;
  if (util::StatusOr<nlohmann::json> v = c.Get("/version"); v.ok()) {
    server_minor = ServerMinorOf(*v);
  } else {
    err << "warning: GET /version: " << v.status().message() << "\n";
  }
  std::string ns = o.namespace_.empty() ? user->namespace_ : o.namespace_;
  if (ns.empty()) ns = "default";
  Fetch fetch = [&c](const client::Request& r) { return c.Do(r); };
  return RunWhatIf(o, fetch, server_minor, ns, out, err, isatty(2) != 0);
}

}  // namespace ksched::kubectl_ksched
