// Package startover measures a scheduler that starts over a cluster which
// already holds its nodes and pending pods, as after a restart or when a
// new leader takes over: its peak RSS (the first list sets it), its CPU,
// and how long it takes from its start until every pod is bound. Each
// scheduler runs alone on a real control plane of its own (issue 32's
// start-over memory, docs/performance.md).
package startover

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"ksched.dev/test/k8s/harness"
)

// Result is one run of one scheduler.
type Result struct {
	Scheduler   string
	Nodes, Pods int
	PeakMiB     float64 // VmHWM once every pod is bound
	CPUSeconds  float64 // user+system from start until every pod is bound
	AllBoundS   float64 // from the scheduler's start
}

func run(t *testing.T, kind string, nodes, pods int) Result {
	cp := harness.StartControlPlane(t, kind)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	cfg := *cp.AdminConfig
	cfg.QPS, cfg.Burst = 5000, 5000
	cs := kubernetes.NewForConfigOrDie(&cfg)
	if _, err := cs.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube's scheduler_perf node template: 4 CPUs, 32Gi, 110 pods.
	harness.Parallel(t, nodes, func(i int) error {
		n := harness.NewNode(fmt.Sprintf("node-%d", i), "4", "32Gi", nil)
		created, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		created.Status = n.Status
		_, err = cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
	harness.Parallel(t, pods, func(i int) error {
		_, err := cs.CoreV1().Pods(harness.Namespace).Create(ctx, harness.NewPod(fmt.Sprintf("pod-%d", i), "100m", "500Mi"),
			metav1.CreateOptions{})
		return err
	})
	w := harness.WatchPods(ctx, cs)

	sched := harness.Deploy(t, cp, kind, harness.SchedulerOptions{ClientQPS: 5000, ClientBurst: 5000})
	start := time.Now()
	replica := sched.Start(kind + "-0")
	defer replica.Stop(t)
	last, ok := w.WaitBoundCount(pods, 30*time.Minute)
	if !ok {
		t.Fatalf("%s: not every pod was bound within 30 minutes", kind)
	}
	cpu, err := harness.ProcessCPU(replica.Pid())
	if err != nil {
		t.Fatal(err)
	}
	mem, err := harness.ProcessMemory(replica.Pid())
	if err != nil {
		t.Fatal(err)
	}
	return Result{Scheduler: kind, Nodes: nodes, Pods: pods, PeakMiB: harness.MiB(mem.Peak),
		CPUSeconds: cpu.Seconds(), AllBoundS: last.Sub(start).Seconds()}
}

// TestStartOver runs each scheduler (K8S_SCHEDULERS, default both) over
// STARTOVER_NODES nodes (default 5000) and STARTOVER_PODS pending pods
// (default 10000), STARTOVER_REPEAT times, alternated.
func TestStartOver(t *testing.T) {
	nodes := harness.EnvInt("STARTOVER_NODES", 5000)
	pods := harness.EnvInt("STARTOVER_PODS", 10000)
	kinds := []string{harness.KSched, harness.KubeScheduler}
	if only := os.Getenv("K8S_SCHEDULERS"); only != "" {
		kinds = strings.Split(only, ",")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "start over %d nodes and %d pending pods\n%-15s %10s %10s %12s\n", nodes, pods,
		"scheduler", "peak MiB", "CPU s", "all bound s")
	for r := 0; r < harness.EnvInt("STARTOVER_REPEAT", 1); r++ {
		for _, kind := range kinds {
			t.Run(fmt.Sprintf("%s/%d", kind, r), func(t *testing.T) {
				res := run(t, kind, nodes, pods)
				t.Logf("%+v", res)
				fmt.Fprintf(&b, "%-15s %10.1f %10.2f %12.1f\n", res.Scheduler, res.PeakMiB, res.CPUSeconds, res.AllBoundS)
			})
		}
	}
	t.Log("\n" + b.String())
}
