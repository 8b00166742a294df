package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

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
// ksched only: kube-scheduler has no Coscheduling. Returns the replica too.
func startGangScheduler(t *testing.T, ctx context.Context) (*harness.ControlPlane, *harness.Env, *harness.Process) {
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
	return cp, e, p
}

// createPodGroup creates PodGroup `name` with minMember `size`; extraSpec
// adds lines under spec (indented by 2).
func createPodGroup(t *testing.T, cp *harness.ControlPlane, name string, size int, extraSpec string) {
	group := filepath.Join(cp.Dir, "podgroup-"+name+".yaml")
	if err := os.WriteFile(group, []byte(fmt.Sprintf(`apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: %s
  namespace: %s
spec:
  minMember: %d
%s`, name, harness.Namespace, size, extraSpec)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cp.Kubectl("apply", "-f", group); err != nil {
		t.Fatalf("PodGroup %s: %v\n%s", name, err, out)
	}
}

// gangMember is a member of PodGroup `group` requesting one CPU.
func gangMember(name, group string) *corev1.Pod {
	pod := harness.NewPod(name, "1", "128Mi")
	pod.Labels["scheduling.x-k8s.io/pod-group"] = group
	return pod
}

// createGang creates PodGroup `name` with minMember `size` and its `size`
// members, each requesting one CPU; it returns the members' names.
func createGang(t *testing.T, cp *harness.ControlPlane, e *harness.Env, name string, size int) []string {
	createPodGroup(t, cp, name, size, "")
	var pods []string
	for i := 0; i < size; i++ {
		pod := gangMember(fmt.Sprintf("%s-%d", name, i), name)
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
	cp, e, _ := startGangScheduler(t, ctx)

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
	cp, e, _ := startGangScheduler(t, ctx)

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

// pendingPods is ksched's /debug/pending (pkg/scheduler/pending_pods.h).
type pendingPods struct {
	Summary map[string]int `json:"summary"`
	Pods    []struct {
		Name                 string   `json:"name"`
		Queue                string   `json:"queue"`
		UnschedulablePlugins []string `json:"unschedulablePlugins"`
	} `json:"pods"`
}

func debugPending(ctx context.Context, p *harness.Process) (pendingPods, error) {
	var out pendingPods
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/debug/pending", p.Port), nil)
	if err != nil {
		return out, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("/debug/pending: %s", resp.Status)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// bindingRecorder notes every member of a gang seen with a node, from an
// informer (which re-lists and re-watches, so no binding goes unseen).
type bindingRecorder struct {
	mu    sync.Mutex
	bound map[string]time.Time // first time each pod was seen bound
}

func recordBindings(ctx context.Context, e *harness.Env, group string) *bindingRecorder {
	r := &bindingRecorder{bound: map[string]time.Time{}}
	factory := informers.NewSharedInformerFactoryWithOptions(e.CS, 0, informers.WithNamespace(harness.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = "scheduling.x-k8s.io/pod-group=" + group
		}))
	note := func(obj interface{}) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, seen := r.bound[pod.Name]; !seen {
			r.bound[pod.Name] = time.Now()
		}
	}
	_, _ = factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    note,
		UpdateFunc: func(_, obj interface{}) { note(obj) },
	})
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return r
}

// boundBefore lists the pods first seen bound before t.
func (r *bindingRecorder) boundBefore(t time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for name, at := range r.bound {
		if at.Before(t) {
			out = append(out, name)
		}
	}
	return out
}

// A member deleted while its siblings wait at Permit releases them at once
// (its Unreserve rejects them), not at the Permit timeout: they go back to
// the queue unbound and the scheduler keeps running. With room added and
// the member recreated, the gang binds whole. The third member is held by
// a scheduling gate until then: a member that fits nowhere would reject the
// waiting ones itself (Coscheduling's PostFilter), before any deletion.
func TestGangMemberDeletedDuringPermitReleasesTheOthers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cp, e, p := startGangScheduler(t, ctx)

	e.Create(harness.NewNode("node-a", "2", "8Gi", nil))
	// Members would wait 10 minutes: a release seen sooner is the deletion's.
	createPodGroup(t, cp, "trio", 3, "  scheduleTimeoutSeconds: 600\n")
	bindings := recordBindings(ctx, e, "trio")
	held := gangMember("trio-2", "trio")
	held.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/hold"}}
	e.Create(held, gangMember("trio-0", "trio"), gangMember("trio-1", "trio"))

	waiting := func(ctx context.Context) (bool, error) {
		pending, err := debugPending(ctx, p)
		if err != nil {
			return false, err
		}
		in := map[string]string{}
		for _, pod := range pending.Pods {
			in[pod.Name] = pod.Queue
		}
		return in["trio-0"] == "inFlight" && in["trio-1"] == "inFlight" && in["trio-2"] == "gated", nil
	}
	e.WaitFor("trio-0 and trio-1 waiting at Permit (in flight), trio-2 gated", 60*time.Second, waiting)
	// Still waiting a moment later: nothing else decides for them.
	time.Sleep(2 * time.Second)
	if ok, err := waiting(ctx); !ok || err != nil {
		t.Fatalf("trio-0 and trio-1 stopped waiting at Permit before any deletion (%v)", err)
	}

	deleted := time.Now()
	if err := e.CS.CoreV1().Pods(harness.Namespace).Delete(ctx, "trio-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Rejected in Unreserve, or already retried and refused at PreFilter:
	// two pods are left of a group of three. Waited for by its message: an
	// attempt before the scheduler's informer saw the PodGroup may have left
	// PodScheduled=False ("PodGroup not found") already.
	coschedulingRejection := func(msg string) bool {
		return strings.Contains(msg, "rejection in Unreserve") || strings.Contains(msg, "cannot find enough sibling pods")
	}
	var lastMessage string
	e.WaitFor("trio-0 unschedulable with Coscheduling's rejection", 60*time.Second, func(ctx context.Context) (bool, error) {
		survivor, err := e.Pod("trio-0")
		if err != nil {
			return false, err
		}
		if survivor.Spec.NodeName != "" {
			t.Fatalf("trio-0 bound to %s after its gang lost a member", survivor.Spec.NodeName)
		}
		for _, c := range survivor.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				lastMessage = c.Message
				return coschedulingRejection(c.Message), nil
			}
		}
		return false, nil
	})
	t.Logf("trio-0 released %v after trio-1 was deleted (%q)", time.Since(deleted).Round(time.Millisecond), lastMessage)
	e.WaitFor("trio-0 back in the queue, rejected by Coscheduling", 30*time.Second, func(ctx context.Context) (bool, error) {
		pending, err := debugPending(ctx, p)
		if err != nil {
			return false, err
		}
		for _, pod := range pending.Pods {
			if pod.Name == "trio-0" && pod.Queue != "inFlight" {
				for _, pl := range pod.UnschedulablePlugins {
					if pl == "Coscheduling" {
						return true, nil
					}
				}
			}
		}
		return false, nil
	})
	if p.Exited() {
		t.Fatalf("ksched exited:\n%s", p.LogTail(40))
	}

	// Room for three, the member back, the gate lifted: the gang binds.
	roomAdded := time.Now()
	if got := bindings.boundBefore(roomAdded); len(got) != 0 {
		t.Fatalf("members bound while the gang was incomplete: %v", got)
	}
	e.Create(harness.NewNode("node-b", "2", "8Gi", nil))
	e.WaitFor("trio-1 gone", 30*time.Second, func(ctx context.Context) (bool, error) {
		_, err := e.Pod("trio-1")
		return apierrors.IsNotFound(err), nil
	})
	e.Create(gangMember("trio-1", "trio"))
	if _, err := e.CS.CoreV1().Pods(harness.Namespace).Patch(ctx, "trio-2", types.MergePatchType,
		[]byte(`{"spec":{"schedulingGates":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitBound(90*time.Second, "trio-0", "trio-1", "trio-2")
	if p.Exited() {
		t.Fatalf("ksched exited:\n%s", p.LogTail(40))
	}
}
