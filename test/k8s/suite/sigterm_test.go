package suite

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// Issue 35: the control plane and ksched are stopped together (a node drain,
// a teardown): kube-apiserver is killed while ksched still has Events and
// PodScheduled patches queued (a low client QPS keeps them queued), then
// ksched gets SIGTERM. It drops what it cannot send, says how much, and
// exits 0 within the bound, instead of retrying until SIGKILL. ksched only:
// what is checked is ksched's own shutdown.
func TestSigtermAfterAPIServerKilled(t *testing.T) {
	ctx := context.Background()
	cp := harness.StartControlPlane(t, harness.KSched)
	if out, err := cp.Kubectl("create", "namespace", harness.Namespace); err != nil {
		t.Fatalf("namespace: %v\n%s", err, out)
	}
	d := harness.Deploy(t, cp, harness.KSched, harness.SchedulerOptions{
		LeaderElection: &harness.LeaderElection{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second,
			RetryPeriod: 2 * time.Second},
		ClientQPS:   10,
		ClientBurst: 10,
	})
	p := d.Start("ksched-0")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- last lines of %s\n%s", p.Name, p.LogTail(60))
		}
	})
	e := &harness.Env{T: t, Ctx: ctx, CP: cp, CS: cp.Admin, Kind: harness.KSched, Sched: d}
	e.WaitFor("ksched holds the Lease", 60*time.Second, func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx, e)
		return h != "", err
	})
	// Unschedulable pods: each costs a FailedScheduling Event and a
	// PodScheduled=False patch, 120 writes at 10 per second.
	e.Create(harness.NewNode("small", "1", "1Gi", nil))
	names := podNames("big", 60)
	for _, n := range names {
		e.Create(harness.NewPod(n, "8", "64Mi"))
	}
	e.WaitFailedScheduling(60*time.Second, names[0])

	if err := cp.KillAPIServer(ctx); err != nil {
		t.Fatalf("killing kube-apiserver: %v", err)
	}
	// Within the renew deadline: the leader has not given up yet.
	time.Sleep(time.Second)
	code, took, err := p.Terminate(60 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ksched exited %v after SIGTERM with status %d", took.Round(time.Millisecond), code)
	// A renewal in flight meets connection refused at once, as does the
	// release; no binding is in flight (the pods are unschedulable).
	const bound = 10 * time.Second
	if code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if took > bound {
		t.Errorf("exit took %v, more than %v", took, bound)
	}
	log, err := os.ReadFile(p.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`API writer stopped: dropped \d+ Events, \d+ pod status patches`).Match(log) {
		t.Errorf("no log line says which writes were dropped")
	}
}
