// Package eventlatency measures how soon each scheduler binds a waiting pod
// after the cluster event that makes room for it (issue 32's event-to-bind
// latency): a node added, a pod deleted, a PersistentVolume created.
package eventlatency

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// backoffMargin is how long a scenario waits after the pod's first failure
// before the event, so that the pod's backoff (1 s after one attempt, both
// schedulers' default) is over and the event alone decides when it is
// tried again.
const backoffMargin = 2500 * time.Millisecond

// event is one kind of cluster event: setup makes a pod wait for it; fire
// causes it and returns when it happened, the start of the measurement;
// cleanup leaves the cluster as before.
type event struct {
	name    string
	setup   func(e *harness.Env, w *harness.PodWatch, i int) (pod string)
	fire    func(e *harness.Env, i int) time.Time
	cleanup func(e *harness.Env, i int)
}

func deleteNow(e *harness.Env, pod string) {
	zero := int64(0)
	err := e.CS.CoreV1().Pods(harness.Namespace).Delete(e.Ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil {
		e.T.Fatalf("deleting pod %s: %v", pod, err)
	}
}

// onNode gives the pod a node selector for the named node.
func onNode(p *corev1.Pod, node string) *corev1.Pod {
	p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	return p
}

func events() []event {
	return []event{
		{
			// No node has 2 CPUs until one is added. The pod asks for its
			// run's node by name: the previous run's node may still be in
			// the scheduler's cache.
			name: "node added",
			setup: func(e *harness.Env, w *harness.PodWatch, i int) string {
				pod := fmt.Sprintf("wants-node-%d", i)
				e.Create(onNode(harness.NewPod(pod, "2", ""), fmt.Sprintf("big-%d", i)))
				return pod
			},
			fire: func(e *harness.Env, i int) time.Time {
				start := time.Now()
				e.Create(harness.NewNode(fmt.Sprintf("big-%d", i), "4", "8Gi", nil))
				return start
			},
			cleanup: func(e *harness.Env, i int) {
				deleteNow(e, fmt.Sprintf("wants-node-%d", i))
				if err := e.CS.CoreV1().Nodes().Delete(e.Ctx, fmt.Sprintf("big-%d", i), metav1.DeleteOptions{}); err != nil {
					e.T.Fatal(err)
				}
			},
		},
		{
			// The small node's one CPU is taken until its pod is deleted.
			// Both pods ask for the small node by name: the previous event's
			// node may still be in the scheduler's cache when the blocker
			// arrives, and a blocker placed there would leave the small node
			// free for the waiting pod.
			name: "pod deleted",
			setup: func(e *harness.Env, w *harness.PodWatch, i int) string {
				blocker := fmt.Sprintf("blocker-%d", i)
				e.Create(onNode(harness.NewPod(blocker, "1", ""), "small"))
				w.WaitBound(e.T, blocker)
				pod := fmt.Sprintf("wants-room-%d", i)
				e.Create(onNode(harness.NewPod(pod, "1", ""), "small"))
				return pod
			},
			fire: func(e *harness.Env, i int) time.Time {
				start := time.Now()
				deleteNow(e, fmt.Sprintf("blocker-%d", i))
				return start
			},
			cleanup: func(e *harness.Env, i int) {
				deleteNow(e, fmt.Sprintf("wants-room-%d", i))
			},
		},
		{
			// A WaitForFirstConsumer claim finds no volume on any node until
			// a local PV on the small node is created; the scheduler then
			// binds the claim to it in PreBind, waits for the PV controller
			// to complete that binding (an event-driven round trip, the same
			// for both schedulers) and binds the pod.
			name: "PV created",
			setup: func(e *harness.Env, w *harness.PodWatch, i int) string {
				if i == 0 {
					mode := storagev1.VolumeBindingWaitForFirstConsumer
					e.Create(&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local"},
						Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &mode})
				}
				claim := fmt.Sprintf("data-%d", i)
				class := "local"
				e.Create(&corev1.PersistentVolumeClaim{
					ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: harness.Namespace},
					Spec: corev1.PersistentVolumeClaimSpec{
						StorageClassName: &class,
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources: corev1.VolumeResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
					},
				})
				pod := fmt.Sprintf("wants-volume-%d", i)
				p := harness.NewPod(pod, "100m", "")
				p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
				e.Create(p)
				return pod
			},
			fire: func(e *harness.Env, i int) time.Time {
				start := time.Now()
				e.Create(&corev1.PersistentVolume{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("local-%d", i)},
					Spec: corev1.PersistentVolumeSpec{
						Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
						AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
						StorageClassName:              "local",
						PersistentVolumeSource: corev1.PersistentVolumeSource{
							Local: &corev1.LocalVolumeSource{Path: fmt.Sprintf("/mnt/disk-%d", i)}},
						NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
							NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
								Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"small"},
							}}}},
						}},
					},
				})
				return start
			},
			cleanup: func(e *harness.Env, i int) {
				deleteNow(e, fmt.Sprintf("wants-volume-%d", i))
			},
		},
	}
}

// Result is one scheduler's figures for one event, in milliseconds.
type Result struct {
	Scheduler string    `json:"scheduler"`
	Event     string    `json:"event"`
	Runs      []float64 `json:"runs_ms"`
	Median    float64   `json:"median_ms"`
	P90       float64   `json:"p90_ms"`
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}

// measure runs every event `runs` times with one scheduler on its own
// control plane.
func measure(t *testing.T, kind string, runs int) []Result {
	cp := harness.StartControlPlane(t, kind)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	e := &harness.Env{T: t, Ctx: ctx, CP: cp, CS: cp.Admin, Kind: kind}
	if _, err := cp.Admin.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.StartFakeKubelets(ctx, cp.Admin)
	e.Create(harness.NewNode("small", "1", "8Gi", nil))
	e.Sched = harness.Deploy(t, cp, kind, harness.SchedulerOptions{})
	replica := e.Sched.Start(kind + "-0")
	defer replica.Stop(t)
	w := harness.WatchPods(ctx, e.CS)
	// The scheduler is up once it has bound a first pod.
	e.Create(harness.NewPod("warm-up", "", ""))
	w.WaitBound(t, "warm-up")
	deleteNow(e, "warm-up")

	var out []Result
	for _, ev := range events() {
		r := Result{Scheduler: kind, Event: ev.name}
		for i := 0; i < runs; i++ {
			pod := ev.setup(e, w, i)
			w.WaitFailed(t, pod)
			time.Sleep(backoffMargin)
			start := ev.fire(e, i)
			r.Runs = append(r.Runs, float64(w.WaitBound(t, pod).Sub(start).Microseconds())/1000)
			ev.cleanup(e, i)
		}
		sorted := append([]float64(nil), r.Runs...)
		sort.Float64s(sorted)
		r.Median, r.P90 = quantile(sorted, 0.5), quantile(sorted, 0.9)
		out = append(out, r)
	}
	return out
}

// TestEventToBind runs each scheduler alone (one after the other, so they
// do not share the machine), EVENT_TO_BIND_RUNS times per event (default
// 5), and prints each event's median and p90 from the event's request to
// the test's informer seeing the waiting pod bound. EVENT_TO_BIND_OUT names
// a JSON file for the figures. It checks only that every pod was bound:
// timing is measured here, never asserted.
func TestEventToBind(t *testing.T) {
	runs := harness.EnvInt("EVENT_TO_BIND_RUNS", 5)
	kinds := []string{harness.KSched, harness.KubeScheduler}
	if only := os.Getenv("K8S_SCHEDULERS"); only != "" {
		kinds = strings.Split(only, ",")
	}
	var all []Result
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { all = append(all, measure(t, kind, runs)...) })
	}
	var b strings.Builder
	fmt.Fprintf(&b, "event to bind, %d runs each (ms)\n%-14s %-15s %8s %8s  runs\n", runs, "event", "scheduler", "median", "p90")
	for _, r := range all {
		fmt.Fprintf(&b, "%-14s %-15s %8.1f %8.1f  %v\n", r.Event, r.Scheduler, r.Median, r.P90, r.Runs)
	}
	t.Log("\n" + b.String())
	if path := os.Getenv("EVENT_TO_BIND_OUT"); path != "" {
		data, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
