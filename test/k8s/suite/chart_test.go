package suite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"ksched.dev/test/k8s/harness"
)

// The chart (charts/ksched) rendered by the real helm (built into
// build/k8s/bin by `make k8s`).

func helm(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(harness.K8sBin(), "helm"), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(),
		"HELM_DATA_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

func chartDir() string { return filepath.Join(harness.RepoDir(), "charts", "ksched") }

// renderChart is `helm template ksched charts/ksched -n ksched-system ARGS`.
func renderChart(t *testing.T, args ...string) string {
	return helm(t, append([]string{"template", "ksched", chartDir(), "--namespace", "ksched-system"}, args...)...)
}

type object = map[string]interface{}

// documents parses a multi-document YAML stream, skipping empty documents.
func documents(t *testing.T, text string) []object {
	t.Helper()
	var out []object
	for _, doc := range strings.Split("\n"+text, "\n---") {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("parsing %q: %v", doc, err)
		}
		if len(o) > 0 {
			out = append(out, o)
		}
	}
	return out
}

func field(o object, path ...string) interface{} {
	var cur interface{} = o
	for _, p := range path {
		m, ok := cur.(object)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func key(o object) string {
	ns, _ := field(o, "metadata", "namespace").(string)
	name, _ := field(o, "metadata", "name").(string)
	return fmt.Sprintf("%s %s/%s", o["kind"], ns, name)
}

// normalize makes a rendered object and its manifests/ copy comparable: the
// scheduler configuration as data rather than text, and without the chart's
// config checksum annotation (helm's way to roll pods on a change).
func normalize(t *testing.T, o object) object {
	if o["kind"] == "ConfigMap" {
		data := o["data"].(object)
		var cfg object
		if err := yaml.Unmarshal([]byte(data["scheduler-config.yaml"].(string)), &cfg); err != nil {
			t.Fatalf("%s: scheduler-config.yaml: %v", key(o), err)
		}
		data["scheduler-config.yaml"] = cfg
	}
	if o["kind"] == "Deployment" {
		if meta, ok := field(o, "spec", "template", "metadata").(object); ok {
			if ann, ok := meta["annotations"].(object); ok {
				delete(ann, "checksum/config")
				if len(ann) == 0 {
					delete(meta, "annotations")
				}
			}
		}
	}
	return o
}

func byKey(t *testing.T, objs []object) map[string]object {
	m := map[string]object{}
	for _, o := range objs {
		m[key(o)] = normalize(t, o)
	}
	return m
}

func keys(m map[string]object) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// manifests/ is the chart with its default values (Namespace and
// ServiceMonitor on): the same objects, field for field, so the two cannot
// drift apart.
func TestChartRendersTheManifests(t *testing.T) {
	rendered := byKey(t, documents(t, renderChart(t, "--set", "namespace.create=true,serviceMonitor.enabled=true")))
	var manifests []object
	files, _ := filepath.Glob(filepath.Join(harness.RepoDir(), "manifests", "*.yaml"))
	for _, f := range files {
		if filepath.Base(f) == "example-pod.yaml" {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		manifests = append(manifests, documents(t, string(text))...)
	}
	want := byKey(t, manifests)
	if !reflect.DeepEqual(keys(rendered), keys(want)) {
		t.Fatalf("objects differ:\nchart:     %v\nmanifests: %v", keys(rendered), keys(want))
	}
	for k, w := range want {
		if !reflect.DeepEqual(rendered[k], w) {
			a, _ := yaml.Marshal(rendered[k])
			b, _ := yaml.Marshal(w)
			t.Errorf("%s differs\n--- chart\n%s\n--- manifests/\n%s", k, a, b)
		}
	}
	helm(t, "lint", "--strict", chartDir())
}

// The values an operator sets land where they should.
func TestChartValues(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(`
replicas: 3
image: {repository: registry.example/ksched, tag: "9.9.9"}
resources: {requests: {cpu: 500m, memory: 256Mi}}
logging: {format: json, verbosity: 2}
leaderElection: {leaseDuration: 20s, resourceName: my-lease}
tls: {secretName: ""}
podDisruptionBudget: {enabled: false}
profiles:
- schedulerName: bin-packer
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy: {type: MostAllocated}
schedulerConfig: {percentageOfNodesToScore: 30}
extraArgs: [--kube-api-qps=80]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := byKey(t, documents(t, renderChart(t, "-f", values)))
	dep := objs["Deployment ksched-system/ksched"]
	if got := field(dep, "spec", "replicas"); got != 3.0 {
		t.Errorf("replicas %v", got)
	}
	c := field(dep, "spec", "template", "spec", "containers").([]interface{})[0].(object)
	if c["image"] != "registry.example/ksched:9.9.9" {
		t.Errorf("image %v", c["image"])
	}
	args, _ := json.Marshal(c["args"])
	for _, want := range []string{`"--logging-format=json"`, `"--v=2"`, `"--kube-api-qps=80"`} {
		if !strings.Contains(string(args), want) {
			t.Errorf("args %s lack %s", args, want)
		}
	}
	if strings.Contains(string(args), "tls-cert-file") {
		t.Errorf("no TLS secret, yet args %s", args)
	}
	if got := field(c, "resources", "requests", "cpu"); got != "500m" {
		t.Errorf("cpu request %v", got)
	}
	cfg := field(objs["ConfigMap ksched-system/ksched-config"], "data", "scheduler-config.yaml").(object)
	if field(cfg, "percentageOfNodesToScore") != 30.0 || field(cfg, "leaderElection", "resourceName") != "my-lease" ||
		field(cfg, "leaderElection", "leaseDuration") != "20s" {
		t.Errorf("configuration %v", cfg)
	}
	p := field(cfg, "profiles").([]interface{})[0].(object)
	if p["schedulerName"] != "bin-packer" || field(p["pluginConfig"].([]interface{})[0].(object), "args", "scoringStrategy", "type") != "MostAllocated" {
		t.Errorf("profiles %v", p)
	}
	role := objs["Role ksched-system/ksched-leader-election"]
	if names, _ := json.Marshal(field(role, "rules")); !strings.Contains(string(names), `"my-lease"`) {
		t.Errorf("the leader-election Role does not name the Lease: %s", names)
	}
	if _, ok := objs["PodDisruptionBudget ksched-system/ksched"]; ok {
		t.Error("podDisruptionBudget.enabled=false still renders one")
	}
}

// The chart on a real control plane: kube-apiserver accepts every rendered
// object (server-side dry run), `helm install` installs the release, and
// ksched run with the rendered configuration, as the chart's
// ServiceAccount, and the rendered Deployment's arguments (JSON logs)
// schedules a pod; its log lines are kube-scheduler's JSON.
func TestChartInstallsAndSchedules(t *testing.T) {
	cp := harness.StartControlPlane(t, "chart")
	values := []string{"--set", "logging.format=json", "--set", "replicas=1"}
	rendered := renderChart(t, values...)
	path := filepath.Join(cp.Dir, "chart.yaml")
	if err := os.WriteFile(path, []byte(rendered), 0o644); err != nil {
		t.Fatal(err)
	}
	// A server-side dry run does not create the Namespace the other objects
	// go to; create it first (as `helm install --create-namespace` would).
	if out, err := cp.Kubectl("create", "namespace", "ksched-system"); err != nil {
		t.Fatalf("kubectl create namespace: %v\n%s", err, out)
	}
	if out, err := cp.Kubectl("apply", "--dry-run=server", "-f", path); err != nil {
		t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, out)
	}
	helm(t, append([]string{"install", "ksched", chartDir(), "--namespace", "ksched-system",
		"--kubeconfig", filepath.Join(cp.Dir, "admin.kubeconfig")}, values...)...)
	if out, err := cp.Kubectl("-n", "ksched-system", "get", "deployment/ksched", "configmap/ksched-config",
		"serviceaccount/ksched", "role/ksched-leader-election", "poddisruptionbudget/ksched", "service/ksched"); err != nil {
		t.Fatalf("the release's objects: %v\n%s", err, out)
	}

	objs := byKey(t, documents(t, rendered))
	cfg := field(objs["ConfigMap ksched-system/ksched-config"], "data", "scheduler-config.yaml").(object)
	cfg["clientConnection"].(object)["kubeconfig"] = harness.ServiceAccountKubeconfig(t, cp, "ksched-system", "ksched")
	cfgText, _ := yaml.Marshal(cfg)
	cfgPath := filepath.Join(cp.Dir, "chart-scheduler-config.yaml")
	if err := os.WriteFile(cfgPath, cfgText, 0o644); err != nil {
		t.Fatal(err)
	}
	// The Deployment's arguments, with the file paths and the port of this
	// machine instead of the container's.
	args := []string{"--config=" + cfgPath}
	c := field(objs["Deployment ksched-system/ksched"], "spec", "template", "spec", "containers").([]interface{})[0].(object)
	for _, a := range c["args"].([]interface{}) {
		s := a.(string)
		if strings.HasPrefix(s, "--config=") || strings.HasPrefix(s, "--tls-") || strings.HasPrefix(s, "--secure-port=") {
			continue
		}
		args = append(args, s)
	}
	args = append(args, "--secure-port=0", "--http-port=0", "--v=2")
	proc := harness.StartProcess(t, exec.Command(filepath.Join(harness.BuildDir(), "ksched"), args...), "ksched",
		filepath.Join(cp.Dir, "ksched.log"))

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := cp.Admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.Namespace}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Admin.CoreV1().Nodes().Create(ctx, harness.NewNode("node-a", "4", "8Gi", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := harness.NewPod("from-chart", "100m", "128Mi")
	if _, err := cp.Admin.CoreV1().Pods(harness.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := cp.Admin.CoreV1().Pods(harness.Namespace).Get(ctx, "from-chart", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "node-a", nil
	})
	if err != nil {
		t.Fatalf("the pod was not bound: %v\n%s", err, proc.LogTail(40))
	}
	lease, err := cp.Admin.CoordinationV1().Leases("ksched-system").Get(ctx, "ksched", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		t.Errorf("the chart's Lease ksched-system/ksched is not held: %v", err)
	}
	proc.Stop(t)

	f, err := os.Open(proc.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, bound := 0, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		lines++
		var rec map[string]interface{}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("log line %d is not JSON: %v\n%s", lines, err, sc.Text())
			continue
		}
		for _, k := range []string{"ts", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("log line %d has no %q: %s", lines, k, sc.Text())
			}
		}
		if rec["msg"] == "Successfully bound pod to node" {
			p, _ := rec["pod"].(map[string]interface{})
			if p["name"] == "from-chart" && p["namespace"] == harness.Namespace && rec["node"] == "node-a" && rec["v"] == 2.0 &&
				rec["caller"] != nil {
				bound = true
			}
		}
	}
	if lines < 5 || !bound {
		t.Errorf("%d JSON lines; a \"Successfully bound pod to node\" line with pod {name, namespace} and node: %v", lines, bound)
	}
}
