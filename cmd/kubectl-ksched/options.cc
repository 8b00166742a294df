#include "cmd/kubectl-ksched/options.h"

#include <charconv>
#include <map>

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
    if (a == "--insecure-skip-tls-verify=false") continue;
    if (a.size() > 1 && a[0] == '-') {
      std::string name = a, value;
      bool has_value = false;
      if (size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_value = true;
      } else if (a.size() > 2 && a[1] != '-' && (a[1] == 'n' || a[1] == 'o')) {
        name = a.substr(0, 2);  // -nNS, -ojson
        value = a.substr(2);
        has_value = true;
      }
      const bool known = strings.count(name) != 0 || name == "--request-timeout" || name == "--port";
      if (!known) return Invalid("unknown flag " + name);
      if (!has_value) {
        if (i + 1 >= args.size()) return Invalid("flag " + name + " needs a value");
        value = args[++i];
      }
      if (name == "--request-timeout") {
        if (!ParseSeconds(value, &o.request_timeout_seconds)) return Invalid("--request-timeout: bad duration " + value);
      } else if (name == "--port") {
        if (!ParseInt(value, 1, 65535, &o.port)) return Invalid("--port: bad port " + value);
      } else {
        *strings.at(name) = value;
      }
      continue;
    }
    positional.push_back(a);
  }
  if (o.output != "text" && o.output != "json") return Invalid("-o must be json or text, not " + o.output);
  if (positional.empty()) {
    if (o.help) return o;
    return Invalid("a command is needed: why or queue");
  }
  o.command = positional[0];
  if (o.command != "why" && o.command != "queue") return Invalid("unknown command " + o.command);
  if (o.help) return o;
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
      --insecure-skip-tls-verify    do not verify the endpoint's certificate (--endpoint only)
      --request-timeout D           per request, e.g. 30s (default 30s)

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
)") + kConnectionFlags;
  }
  if (command == "queue") {
    return std::string(R"(How does ksched's scheduling queue look?

Usage: kubectl ksched queue [-o json|text] [flags]

Prints the pods per queue (activeQ, backoffQ, unschedulable, gated, in flight), the pending pods
per rejecting plugin, the oldest pending pods and the recent attempt rate.
)") + kConnectionFlags;
  }
  return std::string(R"(kubectl ksched: ask the ksched scheduler about its decisions.

Usage: kubectl ksched COMMAND [flags]

Commands:
  why POD     where the pod is, why its last attempt failed or chose its node, what requeues it
  queue       the scheduling queue: counts, rejecting plugins, oldest pods, attempt rate

Use "kubectl ksched COMMAND --help" for a command's flags.
)") + kConnectionFlags;
}

}  // namespace ksched::kubectl_ksched
