// Package chaos is the fault campaign on a real control plane (make chaos;
// a short smoke in make test): two leader-elected ksched replicas, each
// reaching kube-apiserver through a fault-injecting proxy of ours, under a
// seeded random load and seeded random faults, with invariants checked from
// an independent watch and kube-apiserver's audit log. docs/reliability.md
// describes it.
package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"ksched.dev/test/k8s/harness"
)

// Lease timing: short, so faults cross it often (as resilience_test.go).
var leaderElection = harness.LeaderElection{LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: time.Second}

// Bounds of the end: after the last fault, every pod that fits is bound
// within recoveryBound; a probe pod after a fault within probeBound.
// On real nodes, every pod ksched bound there and not deleted is Running
// within runningBound of the last fault.
const (
	recoveryBound = 60 * time.Second
	probeBound    = 60 * time.Second
	runningBound  = 60 * time.Second
)

type config struct {
	Seed     int64         `json:"seed"`
	Duration time.Duration `json:"-"`
	JSONPath string        `json:"-"`
	Kubelets int           `json:"-"` // real nodes wanted (CHAOS_KUBELETS; 0: fake nodes only)
}

func configFromEnv() config {
	c := config{Seed: time.Now().UnixNano() % 1_000_000, Duration: 2 * time.Minute}
	if v := os.Getenv("CHAOS_SEED"); v != "" {
		fmt.Sscan(v, &c.Seed)
	}
	if v := os.Getenv("CHAOS_DURATION"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			c.Duration = d
		} else {
			var s int
			if _, err := fmt.Sscan(v, &s); err == nil {
				c.Duration = time.Duration(s) * time.Second
			}
		}
	}
	c.Kubelets = realKubelets
	if v := os.Getenv("CHAOS_KUBELETS"); v != "" {
		fmt.Sscan(v, &c.Kubelets)
	}
	c.JSONPath = os.Getenv("CHAOS_JSON")
	if c.JSONPath == "" {
		c.JSONPath = filepath.Join(harness.BuildDir(), "chaos.json")
	}
	return c
}

// record is the JSON record of a run.
type record struct {
	Seed            int64          `json:"seed"`
	DurationSeconds float64        `json:"duration_seconds"` // fault phase
	Faults          map[string]int `json:"faults"`
	Created         map[string]int `json:"created"`
	LoadErrors      int            `json:"load_api_errors"`
	PodsBound       int            `json:"pods_bound"`         // distinct pods the watch saw bound
	AuditBindings   int            `json:"audit_bindings"`     // successful bindings in the audit log
	WritesChecked   int            `json:"writes_checked"`     // leader-only writes checked against the Lease
	LeaseRecords    int            `json:"lease_records"`      // Lease states accepted, seen by the proxies
	LeaderChanges   int            `json:"leader_changes"`     // holder changes seen by the watch
	Unaudited       int            `json:"unaudited_bindings"` // bound while kube-apiserver was killed: no audit event
	MaxProbeSeconds float64        `json:"max_probe_seconds"`  // longest fault end -> probe pod bound
	QuietSeconds    float64        `json:"quiet_seconds"`      // last fault end -> every fitting pod bound
	// Real nodes (kubelets); empty with the reason when the machine has none.
	RealNodes          []string    `json:"real_nodes"`
	RealNodesMissing   string      `json:"real_nodes_missing,omitempty"`
	RealScales         int         `json:"real_scales"`          // scalings of the real Deployment
	RealBound          int         `json:"real_pods_bound"`      // ksched pods the watch saw bound to a real node
	RealRunning        int         `json:"real_pods_running"`    // of those, seen Running
	RealFailed         int         `json:"real_pods_failed"`     // failed there undeleted (kubelet admission refused them)
	RealRunningSeconds float64     `json:"real_running_seconds"` // last fault end -> every real pod Running
	Violations         int         `json:"violations"`
	ViolationList      []string    `json:"violation_list"`
	Processes          []*lifetime `json:"processes"`
}

type campaign struct {
	t       *testing.T
	cfg     config
	cp      *harness.ControlPlane
	slots   []*slot
	obs     *observer
	v       *violations
	load    *load
	real    *realLoad  // nil without real nodes
	kinds   []string   // process fault kinds
	rng     *rand.Rand // faults
	mu      sync.Mutex
	faults  map[string]int
	kills   []time.Time // kube-apiserver SIGKILLs
	probes  []time.Duration
	probeN  int
	stopped sync.WaitGroup
	ending  atomic.Bool // the run is over: no more restarts
}

func TestChaos(t *testing.T) {
	cfg := configFromEnv()
	fmt.Printf("chaos: seed %d, duration %v (CHAOS_SEED=%d reproduces the schedule of actions)\n", cfg.Seed, cfg.Duration, cfg.Seed)
	top := filepath.Join(harness.RunsDir(), "TestChaos")
	auditDir := filepath.Join(top, "audit")
	if err := os.RemoveAll(auditDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(auditDir, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(auditDir, "policy.yaml")
	auditLog := filepath.Join(auditDir, "audit.log")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("K8S_APISERVER_EXTRA_ARGS", strings.TrimSpace(os.Getenv("K8S_APISERVER_EXTRA_ARGS")+
		" --audit-policy-file="+policy+" --audit-log-path="+auditLog+" --audit-log-maxsize=0"))
	// Real nodes when the machine can run them; the campaign runs on fake
	// nodes alone otherwise, as it did before kubelets existed.
	missing := harness.RealNodesMissing()
	if missing == "" && cfg.Kubelets == 0 {
		missing = "CHAOS_KUBELETS=0"
	}
	var opts []harness.ControlPlaneOption
	if missing == "" {
		opts = append(opts, harness.WithKubelets(cfg.Kubelets))
	} else {
		fmt.Printf("chaos: no real nodes (%s): fake nodes only\n", missing)
	}
	cp := harness.StartControlPlane(t, "cluster", opts...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := cp.Admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	harness.StartFakeKubelets(ctx, cp.Admin)
	c := &campaign{t: t, cfg: cfg, cp: cp, v: &violations{}, rng: rand.New(rand.NewSource(cfg.Seed + 1)), faults: map[string]int{},
		kinds: processFaultKinds}
	var realNodes []string
	if missing == "" {
		var err error
		if realNodes, err = findRealNodes(ctx, cp.Admin); err != nil || len(realNodes) != cfg.Kubelets {
			t.Fatalf("want %d real nodes, found %v (%v)", cfg.Kubelets, realNodes, err)
		}
		c.kinds = append(append([]string(nil), processFaultKinds...), "kubelet-restart")
	}
	c.obs = startObserver(ctx, cp.Admin, c.v, realNodes)
	c.load = newLoad(cp.Admin, cfg.Seed)
	if err := c.load.Setup(ctx); err != nil {
		t.Fatalf("load setup: %v", err)
	}
	if len(realNodes) > 0 {
		// The node-lifecycle controller runs with kubelets: the fake nodes
		// heartbeat as kubelets do, or it would taint them unreachable.
		go heartbeatFakeNodes(ctx, cp.Admin, c.obs.nodes)
		var err error
		if c.real, err = setupRealLoad(ctx, cp.Admin, realNodes, cp.Env["NODES_IMAGE_PAUSE"]); err != nil {
			t.Fatalf("real nodes' load: %v", err)
		}
		fmt.Printf("chaos: real nodes %v: Deployment %q of %s CPU pods, 0-%d replicas, %d fit\n",
			realNodes, realDeployment, c.real.cpu.String(), c.real.max, c.real.fit)
	}
	base := harness.Deploy(t, cp, harness.KSched, harness.SchedulerOptions{LeaderElection: &leaderElection})
	for _, name := range []string{"a", "b"} {
		s := newSlot(t, name, cp, base)
		s.onExit = func(l *lifetime) {
			if l.Expected {
				return
			}
			// A leader that cannot renew its Lease within renewDeadline exits
			// 1, as kube-scheduler does; its Deployment restarts it. Any
			// other exit is a crash.
			tail := l.proc.LogTail(15)
			if strings.Contains(l.Exit, "exit status 1") && strings.Contains(tail, "leader election lost") {
				c.count("lease-lost-exit")
			} else {
				c.v.Add("replica %s exited on its own (%s); log tail:\n%s", l.Name, l.Exit, tail)
			}
			if c.ending.Load() {
				return
			}
			time.Sleep(time.Second)
			s.EnsureRunning()
		}
		c.slots = append(c.slots, s)
		s.Start()
	}
	if err := waitFor(ctx, 30*time.Second, func() bool { return c.obs.Holder() != "" }); err != nil {
		t.Fatalf("no replica took the Lease: %v", err)
	}

	// The fault phase: load, process/control-plane faults, proxy faults and
	// samplers run side by side until the deadline.
	phase, endPhase := context.WithTimeout(ctx, cfg.Duration)
	defer endPhase()
	start := time.Now()
	var wg sync.WaitGroup
	run := func(f func(context.Context)) {
		wg.Add(1)
		go func() { defer wg.Done(); f(phase) }()
	}
	run(c.loadLoop)
	if c.real != nil {
		run(func(ctx context.Context) { c.real.Loop(ctx, cfg.Seed+4) })
	}
	run(c.processFaults)
	run(c.proxyFaults)
	samplerCtx, stopSampler := context.WithCancel(ctx)
	go c.sampler(samplerCtx)
	wg.Wait()
	c.stopped.Wait() // restarts scheduled by kill faults
	lastFault := time.Now()
	faultPhase := lastFault.Sub(start)

	// The quiet phase: every pod that fits must be bound within
	// recoveryBound; the impossible pod must have a FailedScheduling Event.
	for _, s := range c.slots {
		if l := s.Current(); l != nil && l.stopped {
			s.Resume(l)
		}
		s.EnsureRunning()
	}
	if c.real != nil {
		c.real.Quiesce(ctx)
	}
	c.load.Quiesce(ctx, c.obs.Pending())
	var quiet time.Duration
	err := waitFor(ctx, recoveryBound, func() bool {
		for _, p := range c.obs.Pending() {
			if p.Name != impossiblePod {
				return false
			}
		}
		return true
	})
	quiet = time.Since(lastFault)
	if err != nil {
		var names []string
		for _, p := range c.obs.Pending() {
			if p.Name != impossiblePod {
				names = append(names, p.Name)
			}
		}
		c.v.Add("%d pods still pending %v after the last fault: %v", len(names), recoveryBound, names)
	}
	// Every pod on a real node (bound by now) runs: its kubelet admitted it
	// and containerd started it.
	var realRunning time.Duration
	if c.real != nil {
		err := waitFor(ctx, time.Until(lastFault.Add(runningBound)), func() bool { return len(c.obs.realPodsNotRunning()) == 0 })
		realRunning = time.Since(lastFault)
		if err != nil {
			c.v.Add("pods on real nodes not Running %v after the last fault: %v", runningBound, c.obs.realPodsNotRunning())
		}
	}
	c.checkEvents(ctx)
	c.obs.CheckCapacity()
	// Let in-flight work settle, then take the last samples.
	time.Sleep(3 * time.Second)
	for _, s := range c.slots {
		if l := s.Current(); l != nil {
			s.Sample(ctx, l)
		}
	}
	stopSampler()
	c.checkRSS()
	var procs []*lifetime
	c.ending.Store(true)
	for _, s := range c.slots {
		for _, l := range s.Lives() {
			procs = append(procs, l)
		}
		if l := s.Current(); l != nil {
			l.AtEnd = true
			s.Terminate(l)
		}
	}
	// The audit log is written as requests complete; give it a moment.
	time.Sleep(time.Second)
	events, err := readAudit(auditLog)
	if err != nil {
		c.v.Add("reading the audit log: %v", err)
	}
	var proxies []*proxy
	for _, s := range c.slots {
		proxies = append(proxies, s.proxy)
	}
	fr := checkFencing(events, proxies)
	for _, text := range fr.ViolationText {
		c.v.Add("fencing: %s", text)
	}
	c.checkMetrics(proxies, procs)
	unaudited := c.checkAudited(fr)

	created, loadErrors := c.load.Counts()
	n, list := c.v.Snapshot()
	rec := record{
		Seed: cfg.Seed, DurationSeconds: faultPhase.Seconds(), Faults: c.faults, Created: created, LoadErrors: loadErrors,
		PodsBound: c.obs.BoundCount(), AuditBindings: fr.Bindings, WritesChecked: fr.Writes, LeaseRecords: fr.LeaseRecords,
		LeaderChanges: len(c.obs.Holders()) - 1, QuietSeconds: quiet.Seconds(), Unaudited: unaudited, Violations: n, ViolationList: list, Processes: procs,
	}
	for _, p := range c.probes {
		rec.MaxProbeSeconds = max(rec.MaxProbeSeconds, p.Seconds())
	}
	rec.RealNodes, rec.RealNodesMissing = realNodes, missing
	rec.RealBound, rec.RealRunning, rec.RealFailed = c.obs.RealCounts()
	rec.RealRunningSeconds = realRunning.Seconds()
	realLine := "no real nodes (" + missing + ")"
	if c.real != nil {
		rec.RealScales, _ = c.real.Counts()
		realLine = fmt.Sprintf("real nodes: %d scalings, %d pods bound, %d seen Running, %d failed (kubelet admission), all Running %.1fs after the last fault",
			rec.RealScales, rec.RealBound, rec.RealRunning, rec.RealFailed, rec.RealRunningSeconds)
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.MkdirAll(filepath.Dir(cfg.JSONPath), 0o755); err == nil {
		_ = os.WriteFile(cfg.JSONPath, data, 0o644)
	}
	var kinds []string
	for k, v := range c.faults {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(kinds)
	podsCreated := 0
	for k, v := range created {
		if k != "scale" && k != "cordon" && k != "node" && k != "node-removed" {
			podsCreated += v
		}
	}
	fmt.Printf("chaos: seed %d, %v of faults [%s], %d standalone pods created, %d pods bound (%d bindings audited, %d leader-only writes checked), %d leader changes, %d bindings unaudited (kube-apiserver killed, or answered 5xx), longest recovery %.1fs (probe) / %.1fs (quiet), %s, %d violations; record %s\n",
		cfg.Seed, faultPhase.Round(time.Second), strings.Join(kinds, " "), podsCreated, rec.PodsBound, fr.Bindings, fr.Writes,
		rec.LeaderChanges, unaudited, rec.MaxProbeSeconds, rec.QuietSeconds, realLine, n, cfg.JSONPath)
	for _, v := range list {
		t.Errorf("violation: %s", v)
	}
}

func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

func (c *campaign) count(kind string) {
	c.mu.Lock()
	c.faults[kind]++
	c.mu.Unlock()
	c.t.Logf("%s fault %s", time.Now().Format("15:04:05.000"), kind)
}

func (c *campaign) loadLoop(ctx context.Context) {
	rng := rand.New(rand.NewSource(c.cfg.Seed + 2))
	for sleepCtx(ctx, time.Duration(200+rng.Intn(400))*time.Millisecond) {
		c.load.Step(ctx)
	}
}

// leader is the process holding the Lease now, by the identity its proxy
// saw it write; nil when none is known.
func (c *campaign) leader() (*slot, *lifetime) {
	holder := c.obs.Holder()
	for _, s := range c.slots {
		l := s.Current()
		if l == nil {
			continue
		}
		for _, ls := range s.proxy.Leases() {
			if ls.Replica == l.Name && ls.Holder == holder && holder != "" {
				return s, l
			}
		}
	}
	return nil, nil
}

// processFaultKinds; with real nodes, also "kubelet-restart".
var processFaultKinds = []string{"kill-leader", "stop-leader", "apiserver-restart", "etcd-restart", "etcd-compact"}

func (c *campaign) processFaults(ctx context.Context) {
	bag := newBag(c.rng, len(c.kinds))
	for sleepCtx(ctx, time.Duration(6000+c.rng.Intn(8000))*time.Millisecond) {
		kind := c.kinds[bag.Next()]
		switch kind {
		case "kill-leader":
			s, l := c.leader()
			if s == nil {
				continue
			}
			s.Kill(l)
			c.count(kind)
			restart := time.Duration(3000+c.rng.Intn(7000)) * time.Millisecond
			c.stopped.Add(1)
			go func() {
				defer c.stopped.Done()
				time.Sleep(restart)
				s.EnsureRunning()
			}()
		case "stop-leader":
			s, l := c.leader()
			if s == nil {
				continue
			}
			s.Pause(l)
			c.count(kind)
			// Longer than the lease: the standby takes over meanwhile.
			time.Sleep(leaderElection.LeaseDuration + time.Duration(1000+c.rng.Intn(4000))*time.Millisecond)
			s.Resume(l)
		case "apiserver-restart":
			c.count(kind)
			c.mu.Lock()
			c.kills = append(c.kills, time.Now())
			c.mu.Unlock()
			if err := c.cp.RestartAPIServer(context.Background()); err != nil {
				c.v.Add("restarting kube-apiserver: %v", err)
			}
		case "etcd-restart":
			c.count(kind)
			if err := c.cp.RestartEtcd(context.Background()); err != nil {
				c.v.Add("restarting etcd: %v", err)
			}
		case "etcd-compact":
			c.count(kind)
			if _, err := c.cp.CompactEtcd(context.Background()); err != nil {
				c.t.Logf("compaction: %v", err)
			}
		case "kubelet-restart":
			// SIGKILL of one kubelet, started again at once: the new one
			// admits the node's pods again, against what ksched placed.
			node := c.real.nodes[c.rng.Intn(len(c.real.nodes))]
			c.count(kind)
			if err := c.cp.RestartKubelet(context.Background(), node); err != nil {
				c.v.Add("restarting the kubelet of %s: %v", node, err)
			}
		}
		c.probe()
	}
}

var proxyFaultKinds = []fault{faultDelay, faultDrop, faultResetBody, faultHalfOpen, fault429, fault5xx}

func (c *campaign) proxyFaults(ctx context.Context) {
	rng := rand.New(rand.NewSource(c.cfg.Seed + 3))
	bag := newBag(rng, len(proxyFaultKinds))
	for sleepCtx(ctx, time.Duration(3000+rng.Intn(6000))*time.Millisecond) {
		kind := proxyFaultKinds[bag.Next()]
		d := time.Duration(1000+rng.Intn(5000)) * time.Millisecond
		delay := time.Duration(100+rng.Intn(1900)) * time.Millisecond
		targets := c.slots
		if rng.Intn(3) > 0 {
			targets = []*slot{c.slots[rng.Intn(len(c.slots))]}
		}
		for _, s := range targets {
			s.proxy.Set(kind, d, delay)
		}
		c.count(string(kind))
		sleepCtx(ctx, d)
	}
}

// bag draws fault kinds in seeded shuffled rounds, so every kind comes once
// per round: a short run (the smoke) still injects each of them.
type bag struct {
	rng  *rand.Rand
	n    int
	left []int
}

func newBag(rng *rand.Rand, n int) *bag { return &bag{rng: rng, n: n} }

func (b *bag) Next() int {
	if len(b.left) == 0 {
		b.left = b.rng.Perm(b.n)
	}
	k := b.left[0]
	b.left = b.left[1:]
	return k
}

// probe creates a tiny high-priority pod after a fault and records how long
// it takes to be bound (the time to recover), in the background.
func (c *campaign) probe() {
	c.mu.Lock()
	c.probeN++
	name := fmt.Sprintf("probe-%d", c.probeN)
	c.mu.Unlock()
	go func() {
		ctx := context.Background()
		p := harness.NewPod(name, "10m", "16Mi")
		p.Spec.PriorityClassName = highClass
		start := time.Now()
		if err := waitFor(ctx, 30*time.Second, func() bool {
			_, err := c.cp.Admin.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
			return err == nil
		}); err != nil {
			return
		}
		err := waitFor(ctx, probeBound, func() bool {
			got, err := c.obs.pods.Pods(harness.Namespace).Get(name)
			return err == nil && got.Spec.NodeName != ""
		})
		took := time.Since(start)
		if err != nil {
			c.v.Add("probe %s not bound within %v of the fault's end", name, probeBound)
		}
		c.mu.Lock()
		c.probes = append(c.probes, took)
		c.mu.Unlock()
		_ = c.cp.Admin.CoreV1().Pods(harness.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	}()
}

// sampler: capacity from the watch's view, RSS and metrics of each replica,
// every second.
func (c *campaign) sampler(ctx context.Context) {
	for sleepCtx(ctx, time.Second) {
		c.obs.CheckCapacity()
		for _, s := range c.slots {
			if l := s.Current(); l != nil {
				s.Sample(ctx, l)
			}
		}
	}
}

// checkEvents: every pending ksched pod has a FailedScheduling Event (an
// attempt and its reason recorded); nothing sits in the queue unseen.
func (c *campaign) checkEvents(ctx context.Context) {
	for _, p := range c.obs.Pending() {
		evs, err := c.cp.Admin.CoreV1().Events(harness.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.name": p.Name, "reason": "FailedScheduling"}.String(),
		})
		if err != nil {
			c.v.Add("listing events of %s: %v", p.Name, err)
			continue
		}
		if len(evs.Items) == 0 {
			c.v.Add("pending pod %s has no FailedScheduling event: lost from the queue", p.Name)
		}
	}
}

// checkRSS: for each process that lived long enough (30 samples), the
// largest RSS of its last third is at most 1.5 x that of its first third
// plus 16 MiB: caches fill early; a leak keeps growing.
func (c *campaign) checkRSS() {
	for _, s := range c.slots {
		for _, l := range s.Lives() {
			n := len(l.RSSkB)
			if n < 30 {
				continue
			}
			first, last := int64(0), int64(0)
			for _, v := range l.RSSkB[:n/3] {
				first = max(first, v)
			}
			for _, v := range l.RSSkB[n-n/3:] {
				last = max(last, v)
			}
			if float64(last) > 1.5*float64(first)+16*1024 {
				c.v.Add("replica %s RSS grew: max %d kB in its first third, %d kB in its last", l.Name, first, last)
			}
		}
	}
}

// checkAudited: every pod the watch saw bound has a successful binding in
// the audit log, so each binding is attributed to a replica. The
// exceptions are sound: kube-apiserver killed between storing a binding and
// writing its audit event (the log backend writes after the response); such
// a pod must have been seen bound within a minute of a kill. And a binding
// the audit log answered 5xx: the server may have stored it (a replica
// killed mid-request gets a 504 for a binding that was stored).
func (c *campaign) checkAudited(fr fencingResult) int {
	unaudited := 0
	for name, at := range c.obs.Bound() {
		if fr.BoundPods[name] {
			continue
		}
		if fr.OpenBindings[name] {
			unaudited++
			continue
		}
		nearKill := false
		for _, k := range c.kills {
			if at.After(k.Add(-5*time.Second)) && at.Before(k.Add(60*time.Second)) {
				nearKill = true
			}
		}
		if nearKill {
			unaudited++
			continue
		}
		c.v.Add("pod %s bound (seen %s) without a successful binding in the audit log", name, at.Format("15:04:05.000"))
	}
	return unaudited
}

// checkMetrics: a replica's schedule_attempts_total{result="scheduled"}
// counts the bindings it saw succeed. The proxy knows which binding answers
// (2xx) reached each process in full, and which answers left the outcome
// open (cut, or a 5xx: the server may have bound the pod, and the replica
// then reads the pod back and counts the binding when it finds it made).
// So per process the last scrape is at most the sum of both (a kill loses
// the increments after the last scrape, never adds any), and for processes
// still running at the end, scraped after everything settled, at least the
// first.
func (c *campaign) checkMetrics(proxies []*proxy, procs []*lifetime) {
	ok, open := map[string]int{}, map[string]int{}
	for _, p := range proxies {
		for _, w := range p.Writes() {
			if !strings.HasSuffix(w.Path, "/binding") {
				continue
			}
			switch {
			case w.Delivered >= 200 && w.Delivered < 300:
				ok[w.Replica]++
			case w.Delivered == 0 || w.Delivered >= 500:
				open[w.Replica]++
			}
		}
	}
	for _, l := range procs {
		got, least, most := int(l.Scheduled), ok[l.Name], ok[l.Name]+open[l.Name]
		if l.Scrapes == 0 {
			continue
		}
		if got > most {
			c.v.Add("metrics: %s reports %d scheduled, but at most %d bindings can have succeeded for it (%d answered 2xx, %d open)",
				l.Name, got, most, least, open[l.Name])
		}
		if l.AtEnd && got < least {
			c.v.Add("metrics: %s (running to the end) reports %d scheduled, %d bindings answered 2xx to it", l.Name, got, least)
		}
	}
}
