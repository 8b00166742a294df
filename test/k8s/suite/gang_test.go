package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// gangProfile enables Coscheduling (scheduler-plugins' gang scheduling) in
// the shared profile, as config/ksched-gang.yaml does.
const gangProfile = `  plugins:
    queueSort:
      enabled: [{name: Coscheduling}]
      disabled: [{name: "*"}]
    preFilter:
      enabled: [{name: Coscheduling}]
    postFilter:
      enabled: [{name: Coscheduling}]
    permit:
      enabled: [{name: Coscheduling}]
    reserve:
      enabled: [{name: Coscheduling}]
`

// startGangScheduler starts a control plane serving the PodGroup CRD of
// manifests/crds/, fake kubelets, and ksched with Coscheduling in its
// profile (ksched reads and patches PodGroups with the manifests' RBAC).
// ksched only: kube-scheduler has no Coscheduling.
func startGangScheduler(t *testing.T, ctx context.Context) (*harness.ControlPlane, *harness.Env) {
	cp := harness.StartControlPlane(t, harness.KSched)
	e := &harness.Env{T: t, Ctx: ctx, CP: cp, CS: cp.Admin, Kind: harness.KSched}
	if out, err := cp.Kubectl("create", "namespace", harness.Namespace); err != nil {
		t.Fatalf("namespace: %v\n%s", err, out)
	}
	crd := filepath.Join(harness.RepoDir(), "manifests", "crds", "scheduling.x-k8s.io_podgroups.yaml")
	if out, err := cp.Kubectl("apply", "-f", crd); err != nil {
		t.Fatalf("applying the PodGroup CRD: %v\n%s", err, out)
	}
	if out, err := cp.Kubectl("wait", "--for=condition=Established", "--timeout=60s",
		"crd/podgroups.scheduling.x-k8s.io"); err != nil {
		t.Fatalf("CRD not established: %v\n%s", err, out)
	}
	harness.StartFakeKubelets(ctx, cp.Admin)
	e.Sched = harness.Deploy(t, cp, harness.KSched, harness.SchedulerOptions{ProfileYAML: gangProfile})
	p := e.Sched.Start("ksched-0")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- last lines of %s\n%s", p.Name, p.LogTail(60))
		}
	})
	return cp, e
}

// createGang creates PodGroup `name` with minMember `size` and its `size`
// members, each requesting one CPU; it returns the members' names.
func createGang(t *testing.T, cp *harness.ControlPlane, e *harness.Env, name string, size int) []string {
	group := filepath.Join(cp.Dir, "podgroup-"+name+".yaml")
	if err := os.WriteFile(group, []byte(fmt.Sprintf(`apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: %s
  namespace: %s
spec:
  minMember: %d
`, name, harness.Namespace, size)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cp.Kubectl("apply", "-f", group); err != nil {
		t.Fatalf("PodGroup %s: %v\n%s", name, err, out)
	}
	var pods []string
	for i := 0; i < size; i++ {
		pod := harness.NewPod(fmt.Sprintf("%s-%d", name, i), "1", "128Mi")
		pod.Labels["scheduling.x-k8s.io/pod-group"] = name
		e.Create(pod)
		pods = append(pods, pod.Name)
	}
	return pods
}

// A 3-pod gang with room for two stays entirely pending and binds all three
// once a node is added; ksched keeps the PodGroup's status.
func TestGangWaitsForRoomThenBindsTogether(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, e := startGangScheduler(t, ctx)

	e.Create(harness.NewNode("node-a", "2", "8Gi", nil))
	pods := createGang(t, cp, e, "trio", 3)
	for _, name := range pods {
		e.WaitUnschedulable(60*time.Second, name)
	}
	for _, name := range pods {
		if got, err := e.Pod(name); err != nil || got.Spec.NodeName != "" {
			t.Fatalf("%s: want no member bound while the gang cannot fit, got node %q (%v)", name, got.Spec.NodeName, err)
		}
	}
	phase := func() string {
		out, _ := cp.Kubectl("get", "podgroup", "trio", "-n", harness.Namespace, "-o", "jsonpath={.status.phase}")
		return strings.TrimSpace(out)
	}
	e.WaitFor("PodGroup trio in phase Scheduling", 30*time.Second, func(context.Context) (bool, error) {
		return phase() == "Scheduling", nil
	})

	added := time.Now()
	e.Create(harness.NewNode("node-b", "2", "8Gi", nil))
	e.WaitBound(60*time.Second, pods...)
	t.Logf("gang bound %v after the node was added", time.Since(added).Round(time.Millisecond))
	e.WaitFor("PodGroup trio Running with 3 scheduled", 60*time.Second, func(context.Context) (bool, error) {
		out, _ := cp.Kubectl("get", "podgroup", "trio", "-n", harness.Namespace, "-o",
			"jsonpath={.status.phase}/{.status.scheduled}/{.status.running}")
		return strings.TrimSpace(out) == "Running/3/3", nil
	})
}

// Two 3-pod gangs on room for four: they cannot both fit, and neither holds
// part of the cluster for ever. The older gang binds whole; the other binds
// no member and waits.
func TestTwoGangsThatCannotBothFitDoNotDeadlock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, e := startGangScheduler(t, ctx)

	e.Create(harness.NewNode("node-a", "2", "8Gi", nil), harness.NewNode("node-b", "2", "8Gi", nil))
	older := createGang(t, cp, e, "older", 3)
	// PodGroups order by creation time at the second.
	time.Sleep(1100 * time.Millisecond)
	newer := createGang(t, cp, e, "newer", 3)
	e.WaitBound(90*time.Second, older...)
	for _, name := range newer {
		e.WaitUnschedulable(60*time.Second, name)
	}
	for _, name := range newer {
		if got, err := e.Pod(name); err != nil || got.Spec.NodeName != "" {
			t.Fatalf("%s: want no member of the newer gang bound, got node %q (%v)", name, got.Spec.NodeName, err)
		}
	}
}
