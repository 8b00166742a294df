#include "cmd/kubectl-ksched/options.h"

#include <charconv>
#include <map>

#include "pkg/simulate/command.h"

namespace ksched::kubectl_ksched {

namespace {

util::Status Invalid(const std::string& msg) {
  return util::Status(util::StatusCode::kInvalidArgument, msg + " (see --help)");
}

bool ParseInt(const std::string& v, int lo, int hi, int* out) {
  int n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < lo || n > hi) return false;
  *out = n;
  return true;
}

// "30s", "2m" or seconds.
bool ParseSeconds(std::string v, int* out) {
  int mult = 1;
  if (!v.empty() && v.back() == 's') {
    v.pop_back();
  } else if (!v.empty() && v.back() == 'm') {
    v.pop_back();
    mult = 60;
  }
  int n = 0;
  if (!ParseInt(v, 0, 3600, &n)) return false;
  *out = n * mult;
  return true;
}

}  // namespace

util::StatusOr<Options> ParseArgs(const std::vector<std::string>& args) {
  Options o;
  std::vector<std::string> positional;
  // Flags taking a value, by every spelling.
  const std::map<std::string, std::string*> strings = {
      {"--kubeconfig", &o.kubeconfig},   {"--context", &o.context},       {"--namespace", &o.namespace_},
      {"-n", &o.namespace_},             {"--token", &o.token},           {"--output", &o.output},
      {"-o", &o.output},                 {"--endpoint", &o.endpoint},     {"--endpoint-ca", &o.endpoint_ca},
      {"--lease-namespace", &o.lease_namespace}, {"--lease-name", &o.lease_name},
      {"--config", &o.config_file},      {"--feature-gates", &o.feature_gates},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
      continue;
    }
    if (a == "--insecure-skip-tls-verify" || a == "--insecure-skip-tls-verify=true") {
      o.insecure_skip_tls_verify = true;
      continue;
    }
    if (a == "--insecure-skip-tls-verify=false" || a == "--explain=false") {
      if (a == "--explain=false") o.explain = false;
      continue;
    }
    if (a == "--explain" || a == "--explain=true") {
      o.explain = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      std::string name = a, value;
      bool has_value = false;
      if (size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_value = true;
      } else if (a.size() > 2 && a[1] != '-' && (a[1] == 'n' || a[1] == 'o' || a[1] == 'f')) {
        name = a.substr(0, 2);  // -nNS, -ojson, -fFILE
        value = a.substr(2);
        has_value = true;
      }
      const bool known = strings.count(name) != 0 || name == "--request-timeout" || name == "--port" ||
                         name == "-f" || name == "--filename" || name == "--chunk-size" || name == "--seed" ||
                         name == "--emulated-version";
      if (!known) return Invalid("unknown flag " + name);
      if (!has_value) {
        if (i + 1 >= args.size()) return Invalid("flag " + name + " needs a value");
        value = args[++i];
      }
      if (name == "--request-timeout") {
        if (!ParseSeconds(value, &o.request_timeout_seconds)) return Invalid("--request-timeout: bad duration " + value);
      } else if (name == "--port") {
        if (!ParseInt(value, 1, 65535, &o.port)) return Invalid("--port: bad port " + value);
      } else if (name == "-f" || name == "--filename") {
        if (value.empty()) return Invalid("-f needs a file");
        o.files.push_back(value);
      } else if (name == "--chunk-size") {
        int n = 0;
        if (!ParseInt(value, 0, 100000, &n)) return Invalid("--chunk-size: bad page size " + value);
        o.chunk_size = n;
      } else if (name == "--seed") {
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || p != value.data() + value.size() || n == 0) {
          return Invalid("--seed: a positive integer, not " + value);
        }
        o.seed = n;
      } else if (name == "--emulated-version") {
        util::StatusOr<int> minor = simulate::ParseEmulatedVersion(value);
        if (!minor.ok()) return Invalid(minor.status().message());
        o.emulated_minor = *minor;
      } else {
        *strings.at(name) = value;
      }
      continue;
    }
    positional.push_back(a);
  }
  if (positional.empty()) {
    if (o.help) return o;
    return Invalid("a command is needed: why, queue or what-if");
  }
  o.command = positional[0];
  if (o.command != "why" && o.command != "queue" && o.command != "what-if") {
    return Invalid("unknown command " + o.command);
  }
  if (o.output == "table") o.output = "text";  // `ksched simulate`'s name for it
  if (o.output != "text" && o.output != "json" && !(o.output == "html" && o.command == "what-if")) {
    return Invalid("-o must be json or text" + std::string(o.command == "what-if" ? " or html" : "") + ", not " +
                   o.output);
  }
  if (o.help) return o;
  const bool what_if_flags = !o.files.empty() || !o.config_file.empty() || o.explain || o.seed != 0 ||
                             !o.feature_gates.empty() || o.emulated_minor != 0;
  if (o.command != "what-if" && what_if_flags) {
    return Invalid("-f, --config, --explain, --seed, --feature-gates and --emulated-version are what-if's");
  }
  if (o.command == "what-if") {
    if (positional.size() != 1) return Invalid("what-if takes its pods from -f FILE, not arguments");
    if (o.files.empty()) return Invalid("what-if needs the pods: -f pods.yaml");
    return o;
  }
  if (o.command == "why") {
    if (positional.size() != 2) return Invalid("why takes one pod: kubectl ksched why POD");
    o.pod = positional[1];
    if (o.pod.rfind("pod/", 0) == 0 || o.pod.rfind("pods/", 0) == 0) o.pod = o.pod.substr(o.pod.find('/') + 1);
    if (o.pod.empty()) return Invalid("empty pod name");
  } else if (positional.size() != 1) {
    return Invalid("queue takes no argument");
  }
  if (!o.endpoint.empty() && o.endpoint.rfind("https://", 0) != 0 && o.endpoint.rfind("http://", 0) != 0) {
    return Invalid("--endpoint must be https://HOST:PORT (or http:// for a local --http-port)");
  }
  return o;
}

namespace {

constexpr char kConnectionFlags[] = R"(
Connection (as kubectl's):
      --kubeconfig FILE             kubeconfig (default $KUBECONFIG, then ~/.kube/config)
      --context NAME                kubeconfig context (default: current-context)
  -n, --namespace NS                the pod's namespace (default: the context's, else "default")
      --token TOKEN                 bearer token instead of the kubeconfig user's credentials
      --insecure-skip-tls-verify    why, queue: do not verify --endpoint's certificate; what-if: the
                                    API server's
      --request-timeout D           per request, e.g. 30s (default 30s)
)";

constexpr char kReachFlags[] = R"(
Reaching ksched:
      --endpoint URL                ksched's secure port, https://HOST:PORT, reached directly
      --endpoint-ca FILE            CA verifying --endpoint's certificate (default: system roots)
      --lease-namespace NS          without --endpoint: ksched's Lease (default ksched-system)
      --lease-name NAME             (default ksched); its holder is the leader pod, reached by
                                    `kubectl port-forward` through the API server
      --port N                      ksched's secure port in the pod (default 10259)
  Either way ksched authenticates and authorizes *you* (TokenReview, SubjectAccessReview for
  GET /debug/explain: bind ClusterRole ksched-explain-reader).

Output:
  -o, --output FORMAT               text (default) or json
)";

std::string ConnectionFlags() { return std::string(kConnectionFlags) + kReachFlags; }

}  // namespace

std::string Usage(const std::string& command) {
  if (command == "why") {
    return std::string(R"(Why is a pod pending, and how was its node chosen?

Usage: kubectl ksched why POD [-n NS] [-o json|text] [flags]

Prints where the pod is (activeQ, backoffQ until when, unschedulable since when and by which
plugins, gated by which gates, waiting at Permit, bound), its last scheduling attempt (the filter
verdicts counted by plugin and reason as in the FailedScheduling event, the best nodes' raw,
normalized and weighted scores, nominated node and preemption victims) and the cluster events
that would requeue it. POD is NAME, NS/NAME or pod/NAME.
)") + ConnectionFlags();
  }
  if (command == "queue") {
    return std::string(R"(How does ksched's scheduling queue look?

Usage: kubectl ksched queue [-o json|text] [flags]

Prints the pods per queue (activeQ, backoffQ, unschedulable, gated, in flight), the pending pods
per rejecting plugin, the oldest pending pods and the recent attempt rate.
)") + ConnectionFlags();
  }
  if (command == "what-if") {
    return std::string(R"(Where would these pods go, and what would they preempt?

Usage: kubectl ksched what-if -f pods.yaml [-f more.yaml] [--config FILE] [--explain] [-o text|json|html]
                              [--emulated-version 1.NN] [--feature-gates SPEC]

Takes a snapshot of the cluster through the API (only get/list: nothing is written), with
everything ksched's scheduler reads (nodes, pods, volumes, storage, PriorityClasses, PDBs,
DRA's classes, claims and slices, PodGroups; a kind the server does not serve is skipped),
adds the objects of -f (pods without a namespace get -n's), and schedules, in this process,
every pending pod of the configuration's profiles with ksched's own scheduler. Prints where each
pod would go, whom it would preempt, and why pending pods fit nowhere. Other kinds in -f join
the snapshot: a Node there asks "what if I added this node?".

  -f, --filename FILE               YAML or JSON pods (a List, several documents); repeatable
      --config FILE                 KubeSchedulerConfiguration: give ksched's own, so that the
                                    pods' schedulerName names one of its profiles (default: the
                                    default configuration, profile default-scheduler)
      --explain                     per pod, every node's Filter verdict and per-plugin scores
                                    (Filter and Score then consider every node)
      --seed N                      reproducible tie-breaks (N >= 1; one thread)
      --chunk-size N                objects per list request (default 500; 0: one request)
  -o, --output FORMAT               text (default), json (docs/simulate.md's schema, plus
                                    "snapshot": objects listed per kind, "whatIfPods") or html
                                    (one self-contained page: tables, node usage before/after)
      --emulated-version 1.NN       behave as kube-scheduler 1.NN (1.34 to 1.37; default: the
                                    API server's minor, clamped to that range)
      --feature-gates SPEC          kube's feature gates as ksched's daemon takes them, e.g.
                                    OpportunisticBatching=false (give ksched's own)
Large clusters: the snapshot holds every object in memory; above 5000 nodes or 50000 pods it
says so before listing them.
)") + kConnectionFlags;
  }
  return std::string(R"(kubectl ksched: ask the ksched scheduler about its decisions.

Usage: kubectl ksched COMMAND [flags]

Commands:
  why POD     where the pod is, why its last attempt failed or chose its node, what requeues it
  queue       the scheduling queue: counts, rejecting plugins, oldest pods, attempt rate
  what-if     where pods of a file would go on the live cluster, and what they would preempt

Use "kubectl ksched COMMAND --help" for a command's flags.
)") + ConnectionFlags();
}

}  // namespace ksched::kubectl_ksched
