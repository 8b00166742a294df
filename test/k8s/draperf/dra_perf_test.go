// Package draperf runs kube-scheduler's scheduler_perf DRA workload
// SchedulingWithResourceClaimTemplate (test/integration/scheduler_perf/dra)
// side by side: each scheduler alone on a real control plane of its own,
// the same objects as kube's templates, and per run the pods/s, the
// scheduler's CPU per 1000 pods and its peak RSS (issue 30's performance
// figures, docs/performance.md).
package draperf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"ksched.dev/test/k8s/harness"
)

const (
	driver      = "test-driver.cdi.k8s.io"
	className   = "test-class"
	template    = "test-claim-template"
	devicesEach = 10 // kube's numDevices
	pciRoots    = 2  // kube's numPCIRoots
)

// workload is one of kube's SchedulingWithResourceClaimTemplate sizes:
// nodes with a ResourceSlice of 10 devices each, initClaims claims already
// allocated in namespace "init", and measurePods pods each with a claim
// from the template, created at once.
type workload struct {
	name                           string
	nodes, initClaims, measurePods int
}

var workloads = []workload{
	{"fast", 1, 0, 10},
	{"2000pods_200nodes", 200, 1000, 1000},
	{"5000pods_500nodes", 500, 2500, 2500},
	// Not one of kube's: its 5000-node DRA workload (PublishResourceSlices)
	// only publishes the slices; this schedules over them.
	{"1000pods_5000nodes", 5000, 0, 1000},
}

// Result is one run of one scheduler.
type Result struct {
	Workload  string  `json:"workload"`
	Scheduler string  `json:"scheduler"`
	PodsPerS  float64 `json:"pods_per_s"`
	CPUPer1k  float64 `json:"cpu_s_per_1000_pods"`
	PeakRSS   float64 `json:"peak_rss_mib"`
	Seconds   float64 `json:"seconds"`
	// Attempts is scheduler_schedule_attempts_total by result, over the
	// whole run (the warm-up pod included): more attempts than pods means
	// pods were tried before their claims existed.
	Attempts map[string]float64 `json:"attempts"`
}

// slice is kube's resourceslice-basic-devices.yaml for node i.
func slice(i int) *resourcev1.ResourceSlice {
	node := nodeName(i)
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("resourceslice-%d", i)},
		Spec: resourcev1.ResourceSliceSpec{
			Pool:     resourcev1.ResourcePool{Name: fmt.Sprintf("resourceslice-%d", i), Generation: 1, ResourceSliceCount: 1},
			Driver:   driver,
			NodeName: &node,
		},
	}
	str := func(v string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: &v} }
	for d := 0; d < devicesEach; d++ {
		version, sriov := "1.2.3", true
		root := strconv.Itoa(d % pciRoots)
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{
			Name: fmt.Sprintf("basic-device-%d", d),
			Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
				"driver":                          str("xe"),
				"driverVersion":                   {VersionValue: &version},
				"resource.k8s.io/pciRoot":         str(root),
				"family":                          str("Arc Pro B-Series"),
				"health":                          str("Healthy"),
				"model":                           str("B60"),
				"pciAddress":                      str(fmt.Sprintf("0000:0%d:00.0", d)),
				"pciId":                           str("0xe211"),
				"pciRoot":                         str("0" + root),
				"resource.kubernetes.io/pciBusID": str(fmt.Sprintf("0000:0%d:00.0", d)),
				"resource.kubernetes.io/pciRoot":  str("pci0000:0" + root),
				"sriov":                           {BoolValue: &sriov},
				"type":                            str("gpu"),
			},
			Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
				"memory":     {Value: resource.MustParse("24480Mi")},
				"millicores": {Value: resource.MustParse("1k")},
			},
		})
	}
	return s
}

func nodeName(i int) string { return fmt.Sprintf("scheduler-perf-dra-%d", i) }

func request() resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: "req-0", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: className, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}
}

// populate creates kube's objects: nodes, their slices, the class, the
// init claims allocated round-robin over the nodes (kube's
// allocResourceClaims op allocates them the same way: one device each,
// nodes filled evenly), and the claim template.
func populate(t *testing.T, ctx context.Context, cs kubernetes.Interface, w workload) {
	for _, ns := range []string{"init", harness.Namespace} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	harness.Parallel(t, w.nodes, func(i int) error {
		n := harness.NewNode(nodeName(i), "4", "32Gi", map[string]string{"node-with-dra": "true"})
		created, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		created.Status = n.Status
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return err
		}
		_, err = cs.ResourceV1().ResourceSlices().Create(ctx, slice(i), metav1.CreateOptions{})
		return err
	})
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, harness.NewDeviceClass(className, driver),
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.Parallel(t, w.initClaims, func(i int) error {
		c := harness.NewResourceClaim(fmt.Sprintf("init-%d", i), request())
		c.Namespace = "init"
		created, err := cs.ResourceV1().ResourceClaims("init").Create(ctx, c, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		node := i % w.nodes
		created.Status.Allocation = &resourcev1.AllocationResult{
			Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
				Request: "req-0", Driver: driver, Pool: fmt.Sprintf("resourceslice-%d", node),
				Device: fmt.Sprintf("basic-device-%d", i/w.nodes)}}},
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn,
					Values: []string{nodeName(node)}}}}}},
		}
		_, err = cs.ResourceV1().ResourceClaims("init").UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	})
	tpl := harness.NewResourceClaimTemplate(template, request())
	tpl.Namespace = harness.Namespace
	if _, err := cs.ResourceV1().ResourceClaimTemplates(harness.Namespace).Create(ctx, tpl,
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// procStat is the process's CPU time (user+system) and peak RSS.
func procStat(t *testing.T, pid int) (cpu time.Duration, peakMiB float64) {
	t.Helper()
	cpu, err := harness.ProcessCPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := harness.ProcessMemory(pid)
	if err != nil {
		t.Fatal(err)
	}
	return cpu, harness.MiB(mem.Peak)
}

// run measures one scheduler on a fresh control plane.
func run(t *testing.T, kind string, load workload) Result {
	cp := harness.StartControlPlane(t, kind, harness.WithControllerManagerQPS(5000))
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	cfg := *cp.AdminConfig
	cfg.QPS, cfg.Burst = 5000, 5000
	cs := kubernetes.NewForConfigOrDie(&cfg)
	populate(t, ctx, cs, load)

	sched := harness.Deploy(t, cp, kind, harness.SchedulerOptions{ClientQPS: 5000, ClientBurst: 5000})
	replica := sched.Start(kind + "-0")
	defer replica.Stop(t)
	w := harness.WatchPods(ctx, cs)
	// Up once it binds a pod without claims (removed before measuring).
	warm := harness.NewPod("warm-up", "", "")
	if _, err := cs.CoreV1().Pods(harness.Namespace).Create(ctx, warm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.WaitBound(t, "warm-up")
	zero := int64(0)
	if err := cs.CoreV1().Pods(harness.Namespace).Delete(ctx, "warm-up",
		metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}

	cpu0, _ := procStat(t, replica.Pid())
	start := time.Now()
	harness.Parallel(t, load.measurePods, func(i int) error {
		p := harness.NewPod(fmt.Sprintf("test-dra-%d", i), "", "")
		p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "resource"}}
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "resource", ResourceClaimTemplateName: ptr(template)}}
		_, err := cs.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	last, ok := w.WaitBoundCount(load.measurePods+1, 30*time.Minute) // and the warm-up pod
	if !ok {
		t.Fatalf("%s: not every pod was bound within 30 minutes", kind)
	}
	cpu1, peak := procStat(t, replica.Pid())
	secs := last.Sub(start).Seconds()
	families, err := replica.ScrapeFamilies(ctx, kind)
	if err != nil {
		t.Fatal(err)
	}
	return Result{Workload: load.name, Scheduler: kind, PodsPerS: float64(load.measurePods) / secs,
		CPUPer1k: (cpu1 - cpu0).Seconds() / float64(load.measurePods) * 1000, PeakRSS: peak, Seconds: secs,
		Attempts: harness.CounterByLabel(families["scheduler_schedule_attempts_total"], "result")}
}

func ptr[T any](v T) *T { return &v }

// TestDRASideBySide runs the workloads DRA_PERF_WORKLOADS names (default
// "fast"; comma-separated, from `workloads`) with each scheduler
// (K8S_SCHEDULERS, default both), alternating, DRA_PERF_REPEAT times
// (default 1), and prints each run and the medians. DRA_PERF_OUT names a
// JSON file for the runs. It checks that every pod was bound; timing is
// reported, never asserted.
func TestDRASideBySide(t *testing.T) {
	names := strings.Split(os.Getenv("DRA_PERF_WORKLOADS"), ",")
	if names[0] == "" {
		names = []string{"fast"}
	}
	kinds := []string{harness.KSched, harness.KubeScheduler}
	if only := os.Getenv("K8S_SCHEDULERS"); only != "" {
		kinds = strings.Split(only, ",")
	}
	repeat := harness.EnvInt("DRA_PERF_REPEAT", 1)
	var all []Result
	for _, name := range names {
		var w *workload
		for i := range workloads {
			if workloads[i].name == name {
				w = &workloads[i]
			}
		}
		if w == nil {
			t.Fatalf("unknown workload %q", name)
		}
		for r := 0; r < repeat; r++ {
			for _, kind := range kinds {
				t.Run(fmt.Sprintf("%s/%s/%d", w.name, kind, r), func(t *testing.T) {
					res := run(t, kind, *w)
					t.Logf("%+v", res)
					all = append(all, res)
				})
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SchedulingWithResourceClaimTemplate, %d run(s) each, medians\n%-20s %-15s %9s %12s %10s\n",
		repeat, "workload", "scheduler", "pods/s", "CPU s/1000", "peak MiB")
	groups := map[string][]Result{}
	var keys []string
	for _, r := range all {
		k := r.Workload + "\x00" + r.Scheduler
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	median := func(rs []Result, f func(Result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	for _, k := range keys {
		rs := groups[k]
		fmt.Fprintf(&b, "%-20s %-15s %9.1f %12.3f %10.1f\n", rs[0].Workload, rs[0].Scheduler,
			median(rs, func(r Result) float64 { return r.PodsPerS }),
			median(rs, func(r Result) float64 { return r.CPUPer1k }),
			median(rs, func(r Result) float64 { return r.PeakRSS }))
	}
	t.Log("\n" + b.String())
	if path := os.Getenv("DRA_PERF_OUT"); path != "" {
		data, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
