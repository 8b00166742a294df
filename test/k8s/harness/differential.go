package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Namespace is where scenarios create their pods.
const Namespace = "test"

// Env is one scheduler's run of a scenario on its own fresh control plane.
type Env struct {
	T     *testing.T
	Ctx   context.Context
	CP    *ControlPlane
	CS    kubernetes.Interface // cluster-admin
	Kind  string               // KSched or KubeScheduler
	Sched *Deployment
	// Replicas started by the runner (Scenario.Replicas of them).
	Replicas []*Process
}

// Scenario is one behaviour checked with both schedulers.
type Scenario struct {
	Options SchedulerOptions
	// Replicas to start before Run; 0 means one. Negative: none (Run
	// starts them).
	Replicas int
	// Run drives the cluster, checks what must hold for any scheduler that
	// is right (t.Errorf), and returns the outcome the two schedulers' runs
	// are compared by.
	Run func(e *Env) Outcome
	// How pods' nodes are compared (see Compare); pods not listed must land
	// on the same node (or stay pending) with both.
	Placements map[string]Placement
}

// RunDifferential runs the scenario with ksched and with kube-scheduler,
// each on a fresh control plane (in parallel), then compares the outcomes
// field by field. A divergence fails the test unless docs/conformance.md
// lists it. With $K8S_DIFF_REPORT set (a file), divergences are appended
// there instead of failing: that is how another release line is mapped.
// $K8S_SCHEDULERS=ksched (or kube-scheduler) runs one side only, with its
// own checks and no comparison, for debugging.
func RunDifferential(t *testing.T, s Scenario) {
	kinds := []string{KSched, KubeScheduler}
	if only := os.Getenv("K8S_SCHEDULERS"); only != "" {
		kinds = strings.Split(only, ",")
	}
	outcomes := map[string]Outcome{}
	var mu sync.Mutex
	t.Run("schedulers", func(t *testing.T) {
		for _, kind := range kinds {
			t.Run(kind, func(t *testing.T) {
				t.Parallel()
				o := runOne(t, kind, s)
				mu.Lock()
				outcomes[kind] = o
				mu.Unlock()
			})
		}
	})
	if t.Failed() || outcomes[KSched] == nil || outcomes[KubeScheduler] == nil {
		return
	}
	divs := Compare(outcomes[KSched], outcomes[KubeScheduler], s.Placements)
	minor, err := K8sMinor()
	if err != nil {
		t.Fatal(err)
	}
	if report := os.Getenv("K8S_DIFF_REPORT"); report != "" {
		appendReport(t, report, minor, divs)
		return
	}
	known, err := KnownDivergences(minor)
	if err != nil {
		t.Fatalf("reading docs/conformance.md: %v", err)
	}
	for _, d := range Unexplained(t.Name(), divs, known) {
		t.Errorf("divergence not explained in docs/conformance.md at %s: %s", minor, d)
	}
}

func appendReport(t *testing.T, path, minor string, divs []Divergence) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range divs {
		fmt.Fprintf(f, "| %s | %s | %s | %s | ksched %q, kube-scheduler %q |\n", minor, t.Name(), d.Pod, d.Field, d.KSched, d.KubeScheduler)
	}
}

func runOne(t *testing.T, kind string, s Scenario) Outcome {
	cp := StartControlPlane(t, kind)
	// Cleanups run last-registered first: the scenario's watches end before
	// the control plane stops, or the API server waits for them until
	// k8s-down.sh kills it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	e := &Env{T: t, Ctx: ctx, CP: cp, CS: cp.Admin, Kind: kind}
	if _, err := cp.Admin.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	StartFakeKubelets(ctx, cp.Admin)
	e.Sched = Deploy(t, cp, kind, s.Options)
	n := s.Replicas
	if n == 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		e.Replicas = append(e.Replicas, e.Sched.Start(fmt.Sprintf("%s-%d", kind, i)))
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range e.Replicas {
				t.Logf("--- last lines of %s (%s)\n%s", p.Name, p.LogPath, p.LogTail(40))
			}
		}
	})
	o := s.Run(e)
	if o != nil {
		data, _ := json.MarshalIndent(o, "", "  ")
		_ = os.WriteFile(filepath.Join(cp.Dir, "outcome.json"), data, 0o644)
	}
	return o
}

// WaitFor polls cond every 100 ms until it holds; fails the test after
// timeout, naming what was awaited.
func (e *Env) WaitFor(what string, timeout time.Duration, cond func(ctx context.Context) (bool, error)) {
	e.T.Helper()
	var last error
	err := wait.PollUntilContextTimeout(e.Ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		e.T.Fatalf("%s: not within %s (last error: %v)", what, timeout, last)
	}
}

// Create creates the objects (Nodes, Pods, PVs, ...) as cluster-admin.
func (e *Env) Create(objs ...interface{}) {
	e.T.Helper()
	for _, obj := range objs {
		if err := createObject(e.Ctx, e.CS, obj); err != nil {
			e.T.Fatalf("creating %T: %v", obj, err)
		}
	}
}

// Pod reads a pod of the scenario namespace.
func (e *Env) Pod(name string) (*corev1.Pod, error) {
	return e.CS.CoreV1().Pods(Namespace).Get(e.Ctx, name, metav1.GetOptions{})
}

// WaitBound waits until every named pod has a node.
func (e *Env) WaitBound(timeout time.Duration, names ...string) {
	e.T.Helper()
	e.WaitFor("pods "+strings.Join(names, ",")+" bound", timeout, func(context.Context) (bool, error) {
		for _, n := range names {
			p, err := e.Pod(n)
			if err != nil || p.Spec.NodeName == "" {
				return false, err
			}
		}
		return true, nil
	})
}

// WaitUnschedulable waits until the pod has PodScheduled=False.
func (e *Env) WaitUnschedulable(timeout time.Duration, name string) {
	e.T.Helper()
	e.WaitFor("pod "+name+" PodScheduled=False", timeout, func(context.Context) (bool, error) {
		p, err := e.Pod(name)
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return true, nil
			}
		}
		return false, nil
	})
}

// WaitFailedScheduling waits until the pod has PodScheduled=False and a
// FailedScheduling Event, both of which the scheduler writes when it gives
// up on the pod for now.
func (e *Env) WaitFailedScheduling(timeout time.Duration, name string) {
	e.T.Helper()
	e.WaitUnschedulable(timeout, name)
	e.WaitFor("a FailedScheduling Event for "+name, timeout, func(ctx context.Context) (bool, error) {
		o, err := CollectOutcome(ctx, e.CS, Namespace)
		return err == nil && len(o[Namespace+"/"+name].FailedScheduling) > 0, err
	})
}

// Outcome collects the scenario namespace's outcome; tracked pods that are
// gone are reported as deleted. Waits for Events in flight to land first.
func (e *Env) Outcome(settle time.Duration, tracked ...string) Outcome {
	e.T.Helper()
	time.Sleep(settle)
	o, err := CollectOutcome(e.Ctx, e.CS, Namespace, tracked...)
	if err != nil {
		e.T.Fatal(err)
	}
	return o
}
