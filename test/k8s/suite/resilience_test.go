package suite

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

func podNames(prefix string, n int) []string {
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("%s-%d", prefix, i))
	}
	return names
}

// anyNode accepts every node for the pods: only bound versus pending (and
// the counts of Events) are compared.
func anyNode(pods []string) map[string]harness.Placement {
	p := map[string]harness.Placement{}
	for _, n := range pods {
		p["test/"+n] = harness.Placement{}
	}
	return p
}

func leaseHolder(ctx context.Context, e *harness.Env) (string, error) {
	ns, name := "ksched-system", "ksched"
	if e.Kind == harness.KubeScheduler {
		ns, name = "kube-system", "kube-scheduler"
	}
	l, err := e.CS.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return "", err
	}
	return *l.Spec.HolderIdentity, nil
}

// Two replicas elect a leader through a real Lease; kill -9 of the leader
// mid-run hands the Lease to the standby, and every pod is bound exactly
// once. The bound on the takeover is what client-go's elector promises: the
// standby polls every retryPeriod stretched by up to 1.2 (its jitter), so it
// notices the leader's last renewal up to 2.2 retryPeriods late, waits
// leaseDuration from then, and acquires at its next poll, up to 2.2
// retryPeriods later.
func TestLeaderElectionFailover(t *testing.T) {
	le := &harness.LeaderElection{LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second}
	first, second := podNames("first", 10), podNames("second", 10)
	harness.RunDifferential(t, harness.Scenario{
		Options:    harness.SchedulerOptions{LeaderElection: le},
		Replicas:   -1,
		Placements: anyNode(append(append([]string{}, first...), second...)),
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "8", "16Gi", nil), harness.NewNode("node-b", "8", "16Gi", nil))
			leader := e.Sched.Start("leader")
			var holder string
			e.WaitFor("the first replica holds the Lease", 30*time.Second, func(ctx context.Context) (bool, error) {
				h, err := leaseHolder(ctx, e)
				holder = h
				return h != "", err
			})
			standby := e.Sched.Start("standby")
			e.Replicas = []*harness.Process{leader, standby}
			for _, n := range first {
				e.Create(harness.NewPod(n, "100m", "64Mi"))
			}
			e.WaitBound(30*time.Second, first...)
			// Let the standby's informers sync before the leader dies.
			time.Sleep(2 * time.Second)
			leader.Kill()
			killed := time.Now()
			for _, n := range second {
				e.Create(harness.NewPod(n, "100m", "64Mi"))
			}
			e.WaitFor("the standby takes the Lease over", 30*time.Second, func(ctx context.Context) (bool, error) {
				h, err := leaseHolder(ctx, e)
				return h != "" && h != holder, err
			})
			takeover := time.Since(killed)
			bound := le.LeaseDuration + 2*le.RetryPeriod*22/10
			e.T.Logf("takeover %v after kill -9 (leaseDuration %v, retryPeriod %v)", takeover.Round(time.Millisecond),
				le.LeaseDuration, le.RetryPeriod)
			if takeover > bound {
				e.T.Errorf("takeover took %v, more than leaseDuration + 2 jittered retryPeriods = %v", takeover, bound)
			}
			e.WaitBound(30*time.Second, second...)
			o := e.Outcome(2 * time.Second)
			for _, n := range append(append([]string{}, first...), second...) {
				if c := o["test/"+n].ScheduledEvents; c != 1 {
					e.T.Errorf("%s: %d Scheduled Events, want exactly 1", n, c)
				}
			}
			return o
		},
	})
}

// Under a running scheduler, etcd's history is compacted and kube-apiserver
// is killed and restarted: the scheduler's watches end, their resume from an
// old resourceVersion gets 410 Gone and it relists. Nothing is lost, nothing
// bound twice, and new pods are bound within 60 s of the restart.
func TestCompactionAndAPIServerRestart(t *testing.T) {
	before, during, after := podNames("before", 5), podNames("during", 5), podNames("after", 5)
	all := append(append(append([]string{}, before...), during...), after...)
	harness.RunDifferential(t, harness.Scenario{
		Placements: anyNode(all),
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "8", "16Gi", nil))
			for _, n := range before {
				e.Create(harness.NewPod(n, "100m", "64Mi"))
			}
			e.WaitBound(30*time.Second, before...)
			// Move history on (pods nobody schedules), so the scheduler's last
			// seen resourceVersions fall behind, then compact it all away.
			for _, n := range podNames("other", 20) {
				p := harness.NewPod(n, "100m", "64Mi")
				p.Spec.SchedulerName = "other-scheduler"
				e.Create(p)
			}
			if _, err := e.CP.CompactEtcd(e.Ctx); err != nil {
				e.T.Fatal(err)
			}
			for _, n := range during {
				e.Create(harness.NewPod(n, "100m", "64Mi"))
			}
			if err := e.CP.RestartAPIServer(e.Ctx); err != nil {
				e.T.Fatalf("restarting kube-apiserver: %v", err)
			}
			restarted := time.Now()
			e.Create(harness.NewNode("node-b", "8", "16Gi", nil))
			for _, n := range after {
				e.Create(harness.NewPod(n, "100m", "64Mi"))
			}
			e.WaitBound(60*time.Second, append(append([]string{}, during...), after...)...)
			e.T.Logf("every pod bound %v after the restart", time.Since(restarted).Round(time.Millisecond))
			o := e.Outcome(2 * time.Second)
			// Events are best effort: both schedulers may lose one sent while
			// kube-apiserver is down, so a pod bound twice shows as two and
			// the count is not compared.
			for _, n := range all {
				p := o["test/"+n]
				if p.ScheduledEvents > 1 {
					e.T.Errorf("%s: %d Scheduled Events: bound more than once", n, p.ScheduledEvents)
				}
				p.ScheduledEvents = 0
				o["test/"+n] = p
			}
			for _, n := range podNames("other", 20) {
				delete(o, "test/"+n)
			}
			return o
		},
	})
}
