// Checks the deployment manifests in manifests/ against ksched itself:
// - the ConfigMap's scheduler configuration loads with ksched's own loader
//   (pkg/config) and names the Lease and profile the rest assumes;
// - every API call ksched makes is allowed to its ServiceAccount by the
//   RBAC objects of the manifests plus the bootstrap ClusterRoles they bind
//   (testdata/bootstrap-clusterroles.yaml, from kube's bootstrap policy);
// - the Deployment, Service, ServiceMonitor and example pod agree with the
//   configuration and with what the issue asks (2 replicas, HTTPS probes on
//   10259, non-root, read-only root filesystem, resource requests).
// kubectl parsing of the same files is test/e2e/manifests_test.sh.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pkg/scheduler/plugins/registry.h"
#include "pkg/config/load.h"

namespace ksched::app {
namespace {

constexpr char kManifests[] = "manifests";
constexpr char kBootstrapRoles[] = "cmd/ksched/testdata/bootstrap-clusterroles.yaml";
constexpr char kNamespace[] = "ksched-system";
constexpr char kServiceAccount[] = "ksched";

std::vector<YAML::Node> LoadAll(const std::string& path) {
  std::vector<YAML::Node> docs;
  for (const YAML::Node& d : YAML::LoadAllFromFile(path)) {
    if (d.IsMap()) docs.push_back(d);
  }
  return docs;
}

std::vector<YAML::Node> ManifestDocuments() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kManifests)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<YAML::Node> docs;
  for (const std::string& f : files) {
    for (const YAML::Node& d : LoadAll(f)) docs.push_back(d);
  }
  return docs;
}

std::vector<YAML::Node> OfKind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& d : docs) {
    if (d["kind"].as<std::string>("") == kind) out.push_back(d);
  }
  return out;
}

YAML::Node Named(const std::vector<YAML::Node>& docs, const std::string& kind, const std::string& name) {
  for (const YAML::Node& d : OfKind(docs, kind)) {
    if (d["metadata"]["name"].as<std::string>("") == name) return d;
  }
  return YAML::Node();
}

std::set<std::string> Strings(const YAML::Node& seq) {
  std::set<std::string> out;
  if (seq && seq.IsSequence()) {
    for (const YAML::Node& s : seq) out.insert(s.as<std::string>());
  }
  return out;
}

// ---- A small RBAC evaluator (the subset of kube's rule matching that the
// manifests use: verbs, apiGroups, resources with subresources,
// resourceNames; Role/RoleBinding scoped to their namespace).

struct Rule {
  std::set<std::string> verbs, groups, resources, names;
};

struct Grant {
  std::string role;
  std::string ns;  // "" for a ClusterRoleBinding: every namespace
  std::vector<Rule> rules;
};

struct Call {
  std::string verb, group, resource, ns, name;
  std::string why;  // where ksched makes it
};

std::vector<Rule> RulesOf(const YAML::Node& role) {
  std::vector<Rule> rules;
  for (const YAML::Node& r : role["rules"]) {
    rules.push_back(Rule{Strings(r["verbs"]), Strings(r["apiGroups"]), Strings(r["resources"]),
                         Strings(r["resourceNames"])});
  }
  return rules;
}

bool Has(const std::set<std::string>& s, const std::string& v) { return s.count(v) > 0 || s.count("*") > 0; }

bool Allows(const Rule& r, const Call& c) {
  if (!Has(r.verbs, c.verb) || !Has(r.groups, c.group) || !Has(r.resources, c.resource)) return false;
  // A rule with resourceNames never matches a request without a name
  // (create, list, watch).
  return r.names.empty() || (!c.name.empty() && r.names.count(c.name) > 0);
}

bool Allowed(const std::vector<Grant>& grants, const Call& c, std::string* by) {
  for (const Grant& g : grants) {
    if (!g.ns.empty() && g.ns != c.ns) continue;
    for (const Rule& r : g.rules) {
      if (Allows(r, c)) {
        *by = g.role;
        return true;
      }
    }
  }
  return false;
}

bool BindsOurServiceAccount(const YAML::Node& binding) {
  for (const YAML::Node& s : binding["subjects"]) {
    if (s["kind"].as<std::string>("") == "ServiceAccount" && s["name"].as<std::string>("") == kServiceAccount &&
        s["namespace"].as<std::string>("") == kNamespace) {
      return true;
    }
  }
  return false;
}

// What the ServiceAccount may do: ClusterRoleBindings grant everywhere,
// RoleBindings in their namespace (to a Role there or a ClusterRole).
std::vector<Grant> GrantsOfServiceAccount(const std::vector<YAML::Node>& docs,
                                          const std::vector<YAML::Node>& bootstrap) {
  std::vector<YAML::Node> cluster_roles = OfKind(docs, "ClusterRole");
  for (const YAML::Node& r : OfKind(bootstrap, "ClusterRole")) cluster_roles.push_back(r);
  auto cluster_role = [&](const std::string& name) {
    for (const YAML::Node& r : cluster_roles) {
      if (r["metadata"]["name"].as<std::string>() == name) return r;
    }
    ADD_FAILURE() << "ClusterRole " << name << " is bound but defined neither in manifests/ nor in the bootstrap set";
    return YAML::Node();
  };
  std::vector<Grant> grants;
  for (const YAML::Node& b : OfKind(docs, "ClusterRoleBinding")) {
    if (!BindsOurServiceAccount(b)) continue;
    EXPECT_EQ(b["roleRef"]["kind"].as<std::string>(), "ClusterRole");
    std::string name = b["roleRef"]["name"].as<std::string>();
    YAML::Node role = cluster_role(name);
    if (role) grants.push_back(Grant{name, "", RulesOf(role)});
  }
  for (const YAML::Node& b : OfKind(docs, "RoleBinding")) {
    if (!BindsOurServiceAccount(b)) continue;
    std::string ns = b["metadata"]["namespace"].as<std::string>();
    std::string kind = b["roleRef"]["kind"].as<std::string>();
    std::string name = b["roleRef"]["name"].as<std::string>();
    YAML::Node role;
    if (kind == "ClusterRole") {
      role = cluster_role(name);
    } else {
      std::vector<YAML::Node> roles = OfKind(docs, "Role");
      for (const YAML::Node& r : OfKind(bootstrap, "Role")) roles.push_back(r);
      for (const YAML::Node& r : roles) {
        if (r["metadata"]["name"].as<std::string>() == name && r["metadata"]["namespace"].as<std::string>() == ns) {
          role = r;
        }
      }
    }
    EXPECT_TRUE(role) << "RoleBinding " << ns << "/" << b["metadata"]["name"] << " refers to a missing " << kind << " "
                      << name;
    if (role) grants.push_back(Grant{kind + " " + ns + "/" + name, ns, RulesOf(role)});
  }
  return grants;
}

config::KubeSchedulerConfiguration ConfigMapConfiguration(const std::vector<YAML::Node>& docs) {
  YAML::Node cm = Named(docs, "ConfigMap", "ksched-config");
  EXPECT_TRUE(cm) << "no ConfigMap ksched-config in manifests/";
  if (!cm) return {};
  std::string text = cm["data"]["scheduler-config.yaml"].as<std::string>("");
  config::LoadResult r =
      config::LoadConfig(text, "manifests/02-configmap.yaml:data[scheduler-config.yaml]",
                         scheduler::plugins::InTreePlugins());
  std::string errors;
  for (const auto& e : r.errors) errors += e.ToString() + "\n";
  EXPECT_TRUE(r.errors.empty()) << errors;
  EXPECT_TRUE(r.warnings.empty());
  return r.config.value_or(config::KubeSchedulerConfiguration{});
}

// Every call ksched makes, with the namespace of a typical request (pods of
// any namespace: "team-a"). Sources: pkg/scheduler/eventhandlers.cc and
// informer_listers.cc (the informers: list + watch, all namespaces),
// pkg/scheduler/client_adapters.cc (bindings, PV/PVC updates, pod status
// patches, events through pkg/scheduler/apiwriter), pkg/leaderelection (the
// Lease), cmd/ksched/server.cc (GET /version is a non-resource URL that
// system:discovery grants every authenticated user).
std::vector<Call> KschedCalls(const config::KubeSchedulerConfiguration& cfg) {
  std::vector<Call> calls;
  const struct {
    const char* group;
    const char* resource;
  } watched[] = {{"", "pods"},
                 {"", "nodes"},
                 {"", "persistentvolumes"},
                 {"", "persistentvolumeclaims"},
                 {"", "namespaces"},
                 {"storage.k8s.io", "storageclasses"},
                 {"storage.k8s.io", "csinodes"},
                 {"storage.k8s.io", "csidrivers"},
                 {"storage.k8s.io", "csistoragecapacities"},
                 {"storage.k8s.io", "volumeattachments"},
                 {"policy", "poddisruptionbudgets"},
                 // PodTopologySpread's default selector.
                 {"", "services"},
                 {"", "replicationcontrollers"},
                 {"apps", "replicasets"},
                 {"apps", "statefulsets"},
                 // Coscheduling.
                 {"scheduling.x-k8s.io", "podgroups"},
                 // Dynamic Resource Allocation.
                 {"resource.k8s.io", "deviceclasses"},
                 {"resource.k8s.io", "resourceclaims"},
                 {"resource.k8s.io", "resourceclaimtemplates"},
                 {"resource.k8s.io", "resourceslices"},
                 {"resource.k8s.io", "devicetaintrules"}};
  for (const auto& w : watched) {
    for (const char* verb : {"list", "watch"}) calls.push_back({verb, w.group, w.resource, "", "", "informer"});
  }
  calls.push_back({"create", "", "pods/binding", "team-a", "web-0", "DefaultBinder: POST pods/x/binding"});
  calls.push_back({"patch", "", "pods/status", "team-a", "web-0", "apiwriter: PodScheduled condition"});
  for (const char* group : {"events.k8s.io", ""}) {
    calls.push_back({"create", group, "events", "team-a", "", "apiwriter: Scheduled/FailedScheduling events"});
    calls.push_back({"patch", group, "events", "team-a", "web-0.1", "apiwriter: aggregated event series"});
  }
  calls.push_back({"delete", "", "pods", "team-a", "victim-0", "apiwriter: preemption victims"});
  calls.push_back({"patch", "", "persistentvolumes", "", "pv-1", "VolumeBinding: PV claimRef"});
  calls.push_back({"create", "authentication.k8s.io", "tokenreviews", "", "", "secure port: bearer tokens"});
  calls.push_back({"create", "authorization.k8s.io", "subjectaccessreviews", "", "", "secure port: authorization"});
  calls.push_back({"get", "", "configmaps", "kube-system", "extension-apiserver-authentication",
                   "secure port: client CA lookup"});
  calls.push_back({"patch", "", "persistentvolumeclaims", "team-a", "data", "VolumeBinding: PVC annotations"});
  calls.push_back({"patch", "scheduling.x-k8s.io", "podgroups/status", "team-a", "gang",
                   "Coscheduling: PodGroup status"});
  calls.push_back({"get", "resource.k8s.io", "resourceclaims", "team-a", "gpu",
                   "DynamicResources: re-read after a conflict"});
  calls.push_back({"update", "resource.k8s.io", "resourceclaims", "team-a", "gpu",
                   "DynamicResources: delete-protection finalizer"});
  calls.push_back({"update", "resource.k8s.io", "resourceclaims/status", "team-a", "gpu",
                   "DynamicResources: allocation and reservedFor, deallocation"});
  calls.push_back({"patch", "resource.k8s.io", "resourceclaims/status", "team-a", "gpu",
                   "DynamicResources: Unreserve"});
  calls.push_back({"create", "resource.k8s.io", "resourceclaims", "team-a", "",
                   "DynamicResources: a pod's extended resource claim"});
  calls.push_back({"delete", "resource.k8s.io", "resourceclaims", "team-a", "gpu",
                   "DynamicResources: an extended resource claim after a failed binding"});
  const std::string lease_ns = cfg.leader_election.resource_namespace;
  const std::string lease = cfg.leader_election.resource_name;
  calls.push_back({"get", "coordination.k8s.io", "leases", lease_ns, lease, "leader election"});
  calls.push_back({"create", "coordination.k8s.io", "leases", lease_ns, "", "leader election (first start)"});
  calls.push_back({"update", "coordination.k8s.io", "leases", lease_ns, lease, "leader election renew/release"});
  return calls;
}

class ManifestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::is_directory(kManifests)) << "run from the project root";
    docs_ = ManifestDocuments();
    bootstrap_ = LoadAll(kBootstrapRoles);
    cfg_ = ConfigMapConfiguration(docs_);
  }
  std::vector<YAML::Node> docs_;
  std::vector<YAML::Node> bootstrap_;
  config::KubeSchedulerConfiguration cfg_;
};

TEST_F(ManifestsTest, EveryDocumentHasKindNameAndNamespace) {
  std::set<std::string> kinds;
  for (const YAML::Node& d : docs_) {
    std::string kind = d["kind"].as<std::string>("");
    kinds.insert(kind);
    EXPECT_FALSE(d["apiVersion"].as<std::string>("").empty()) << kind;
    EXPECT_FALSE(d["metadata"]["name"].as<std::string>("").empty()) << kind;
    const bool cluster_scoped = kind == "Namespace" || kind == "ClusterRole" || kind == "ClusterRoleBinding";
    // The one RoleBinding in kube-system: reading the client CA ConfigMap.
    const bool kube_system = kind == "RoleBinding" && d["metadata"]["name"].as<std::string>("") ==
                                                          "ksched-authentication-reader";
    if (kube_system) {
      EXPECT_EQ(d["metadata"]["namespace"].as<std::string>(""), "kube-system");
    }
    if (!cluster_scoped && kind != "Pod" && !kube_system) {
      EXPECT_EQ(d["metadata"]["namespace"].as<std::string>(""), kNamespace) << kind << " " << d["metadata"]["name"];
    }
  }
  for (const char* k : {"Namespace", "ServiceAccount", "ClusterRoleBinding", "Role", "RoleBinding", "ConfigMap",
                        "Deployment", "Service", "ServiceMonitor", "Pod"}) {
    EXPECT_EQ(kinds.count(k), 1u) << "manifests/ has no " << k;
  }
}

TEST_F(ManifestsTest, ConfigMapConfigurationLoadsWithLeaderElectionOnItsOwnLease) {
  EXPECT_EQ(cfg_.leader_election.leader_elect, true);
  EXPECT_EQ(cfg_.leader_election.resource_lock, "leases");
  EXPECT_EQ(cfg_.leader_election.resource_name, "ksched");
  EXPECT_EQ(cfg_.leader_election.resource_namespace, kNamespace);
  ASSERT_EQ(cfg_.profiles.size(), 1u);
  EXPECT_EQ(cfg_.profiles[0].scheduler_name, "ksched");
}

TEST_F(ManifestsTest, ServiceAccountIsBoundToItsOwnRolesOnly) {
  std::set<std::string> bound;
  for (const Grant& g : GrantsOfServiceAccount(docs_, bootstrap_)) bound.insert(g.role);
  EXPECT_EQ(bound, (std::set<std::string>{"ksched", "Role ksched-system/ksched-leader-election",
                                          "Role kube-system/extension-apiserver-authentication-reader"}));
}

TEST_F(ManifestsTest, RbacAllowsEveryCallKschedMakes) {
  std::vector<Grant> grants = GrantsOfServiceAccount(docs_, bootstrap_);
  ASSERT_FALSE(grants.empty());
  for (const Call& c : KschedCalls(cfg_)) {
    std::string by;
    EXPECT_TRUE(Allowed(grants, c, &by)) << c.verb << " " << (c.group.empty() ? "core" : c.group) << "/" << c.resource
                                         << " ns=" << c.ns << " name=" << c.name << " (" << c.why << ") is denied";
  }
}

TEST_F(ManifestsTest, RbacDeniesWhatNoRoleGrants) {
  // The evaluator is not permissive: these must be denied.
  std::vector<Grant> grants = GrantsOfServiceAccount(docs_, bootstrap_);
  std::string by;
  EXPECT_FALSE(Allowed(grants, {"delete", "", "nodes", "", "n1", ""}, &by));
  EXPECT_FALSE(Allowed(grants, {"update", "coordination.k8s.io", "leases", "kube-system", "ksched", ""}, &by))
      << "the Role must stay in its namespace";
  EXPECT_FALSE(Allowed(grants, {"update", "coordination.k8s.io", "leases", kNamespace, "other-lease", ""}, &by));
  EXPECT_FALSE(Allowed(grants, {"get", "", "secrets", kNamespace, "x", ""}, &by));
  // The default scheduler's Lease is not ours to take.
  for (const char* verb : {"get", "update"}) {
    EXPECT_FALSE(Allowed(grants, {verb, "coordination.k8s.io", "leases", "kube-system", "kube-scheduler", ""}, &by))
        << verb << " allowed by " << by;
  }
  EXPECT_FALSE(Allowed(grants, {"get", "", "configmaps", "kube-system", "other", ""}, &by));
  EXPECT_FALSE(Allowed(grants, {"update", "", "pods", "team-a", "web-0", ""}, &by));
  EXPECT_FALSE(Allowed(grants, {"list", "", "secrets", "", "", ""}, &by));
  EXPECT_FALSE(Allowed(grants, {"update", "resource.k8s.io", "resourceslices", "", "s", ""}, &by));
}

TEST_F(ManifestsTest, DeploymentRunsTwoHardenedReplicasWithTheConfigMap) {
  YAML::Node d = Named(docs_, "Deployment", "ksched");
  ASSERT_TRUE(d);
  EXPECT_EQ(d["spec"]["replicas"].as<int>(), 2);
  YAML::Node pod = d["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"].as<std::string>(), kServiceAccount);
  EXPECT_TRUE(pod["securityContext"]["runAsNonRoot"].as<bool>());
  ASSERT_EQ(pod["containers"].size(), 1u);
  YAML::Node c = pod["containers"][0];
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>());
  EXPECT_TRUE(c["resources"]["requests"]["cpu"]);
  EXPECT_TRUE(c["resources"]["requests"]["memory"]);
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    YAML::Node g = c[probe]["httpGet"];
    ASSERT_TRUE(g) << probe;
    EXPECT_EQ(g["scheme"].as<std::string>(), "HTTPS") << probe;
    EXPECT_EQ(g["path"].as<std::string>(), std::string(probe) == "livenessProbe" ? "/livez" : "/readyz");
    // The named port is the container's 10259.
    EXPECT_EQ(g["port"].as<std::string>(), "https");
  }
  EXPECT_EQ(c["ports"][0]["name"].as<std::string>(), "https");
  EXPECT_EQ(c["ports"][0]["containerPort"].as<int>(), 10259);
  // --config points into the ConfigMap volume, at the key that holds it.
  std::set<std::string> args = Strings(c["args"]);
  EXPECT_EQ(args.count("--config=/etc/ksched/scheduler-config.yaml"), 1u);
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), "/etc/ksched");
  std::string volume = c["volumeMounts"][0]["name"].as<std::string>();
  bool found = false;
  for (const YAML::Node& v : pod["volumes"]) {
    if (v["name"].as<std::string>() != volume) continue;
    found = true;
    EXPECT_EQ(v["configMap"]["name"].as<std::string>(), "ksched-config");
  }
  EXPECT_TRUE(found);
  // Nothing in the args turns leader election off.
  for (const std::string& a : args) EXPECT_NE(a.rfind("--leader-elect=false", 0), 0u) << a;
}

TEST_F(ManifestsTest, ServiceMonitorScrapesTheServiceOverHttps) {
  YAML::Node svc = Named(docs_, "Service", "ksched");
  YAML::Node sm = Named(docs_, "ServiceMonitor", "ksched");
  ASSERT_TRUE(svc && sm);
  EXPECT_EQ(svc["spec"]["ports"][0]["port"].as<int>(), 10259);
  EXPECT_EQ(svc["spec"]["selector"]["app.kubernetes.io/name"].as<std::string>(), "ksched");
  EXPECT_EQ(sm["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"].as<std::string>(),
            svc["metadata"]["labels"]["app.kubernetes.io/name"].as<std::string>());
  EXPECT_EQ(sm["spec"]["endpoints"][0]["port"].as<std::string>(), svc["spec"]["ports"][0]["name"].as<std::string>());
  EXPECT_EQ(sm["spec"]["endpoints"][0]["scheme"].as<std::string>(), "https");
  EXPECT_EQ(sm["spec"]["endpoints"][0]["path"].as<std::string>(), "/metrics");
  // Authenticated with Prometheus' token, the certificate verified.
  EXPECT_TRUE(sm["spec"]["endpoints"][0]["bearerTokenFile"]);
  EXPECT_FALSE(sm["spec"]["endpoints"][0]["tlsConfig"]["insecureSkipVerify"].as<bool>(false));
  EXPECT_TRUE(sm["spec"]["endpoints"][0]["tlsConfig"]["ca"]);
}

TEST_F(ManifestsTest, MetricsReaderRoleGrantsGetOnMetricsOnly) {
  YAML::Node role = Named(docs_, "ClusterRole", "ksched-metrics-reader");
  ASSERT_TRUE(role);
  ASSERT_EQ(role["rules"].size(), 1u);
  EXPECT_EQ(Strings(role["rules"][0]["nonResourceURLs"]), std::set<std::string>{"/metrics"});
  EXPECT_EQ(Strings(role["rules"][0]["verbs"]), std::set<std::string>{"get"});
  EXPECT_TRUE(Named(docs_, "ClusterRoleBinding", "ksched-metrics-reader"));
}

TEST_F(ManifestsTest, ExamplePodAsksForAProfileOfTheConfiguration) {
  YAML::Node pod = Named(docs_, "Pod", "ksched-example");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod["spec"]["schedulerName"].as<std::string>(), cfg_.profiles.at(0).scheduler_name.value_or(""));
}

}  // namespace
}  // namespace ksched::app
