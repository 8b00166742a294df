package plugincompare

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"ksched.dev/test/k8s/harness"
	"ksched.dev/test/k8s/kubeexplain"
)

var (
	seeds     = flag.Int("seeds", harness.EnvInt("PLUGINCOMPARE_SEEDS", 1000), "number of seeds (env PLUGINCOMPARE_SEEDS)")
	seedStart = flag.Int64("seed-start", int64(harness.EnvInt("PLUGINCOMPARE_SEED_START", 1)), "first seed (env PLUGINCOMPARE_SEED_START)")
	keepGoing = flag.Bool("keep-going", os.Getenv("PLUGINCOMPARE_KEEP_GOING") != "", "report every failing seed, not only the first (env PLUGINCOMPARE_KEEP_GOING)")
	withDRA   = flag.Bool("dra", os.Getenv("PLUGINCOMPARE_DRA") != "0", "add DRA devices and claims to the cases; -dra=false or env PLUGINCOMPARE_DRA=0 leaves them out")
	progressN = flag.Int("progress", harness.EnvInt("PLUGINCOMPARE_PROGRESS", 10000), "log a progress line every N seeds, and at least once a minute (env PLUGINCOMPARE_PROGRESS)")
)

// The framework logs at V(0) when a config re-enables a multiPoint plugin,
// once per case; the comparison's own output is what matters.
func init() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

type checker struct {
	bin      string
	config   string                             // the YAML, for ksched
	cfg      *config.KubeSchedulerConfiguration // the same, decoded by kube
	mu       *sync.Mutex
	coverage map[string]int // nil while shrinking
}

// check runs both schedulers on c; dir holds ksched's input files.
func (k *checker) check(dir string, c *kubeexplain.Cluster) ([]string, int, error) {
	// The oracle reads the cluster as ksched does, through its YAML: on the
	// wire an empty map and an absent one are the same (omitempty), in
	// memory they are not, and kube 1.37's resize accounting tells them
	// apart (a status with empty requests).
	y, err := YAML(c)
	if err != nil {
		return nil, 0, err
	}
	wire := &kubeexplain.Cluster{}
	if err := wire.Decode(y); err != nil {
		return nil, 0, err
	}
	want, err := kubeexplain.Run(context.Background(), k.cfg, wire)
	if err != nil {
		return nil, 0, err
	}
	if k.coverage != nil {
		k.mu.Lock()
		Coverage(want, k.coverage)
		k.mu.Unlock()
	}
	got, err := RunKsched(k.bin, dir, k.config, c)
	if err != nil {
		return nil, 0, err
	}
	d, retried := Diff(want, got)
	for _, i := range retried {
		w := &want.Pods[i]
		key := w.Namespace + "/" + w.Name
		fc, err := FirstAttempt(c, want, i)
		if err != nil {
			return nil, 0, err
		}
		first, err := RunKsched(k.bin, dir, k.config, fc)
		if err != nil {
			return nil, 0, err
		}
		// A cycle that ends in an error is retried (kube-scheduler's backoff
		// too); alone in an unchanging cluster each retry repeats the first.
		if len(first.Pods) != 1 || (first.Pods[0].Attempts != 1 && len(w.Errors) == 0) {
			d = append(d, fmt.Sprintf("%s: alone with the first pass's placements, ksched reported %d pods, not one attempt", key, len(first.Pods)))
			continue
		}
		d = append(d, DiffPod(key+" (first attempt)", w, &first.Pods[0])...)
	}
	return d, len(retried), nil
}

func TestPluginByPlugin(t *testing.T) {
	build := harness.BuildDir()
	bin := filepath.Join(build, "ksched")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("ksched binary: %v (set KSCHED_BUILD)", err)
	}
	var cfgs []*config.KubeSchedulerConfiguration
	for i, text := range Configs {
		f := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := kubeexplain.LoadConfig(f)
		if err != nil {
			t.Fatalf("Configs[%d]: %v", i, err)
		}
		cfgs = append(cfgs, cfg)
	}
	coverage := map[string]int{}
	var covMu sync.Mutex
	checkerFor := func(seed int64) *checker {
		i := seed % int64(len(Configs))
		return &checker{bin: bin, config: Configs[i], cfg: cfgs[i], coverage: coverage, mu: &covMu}
	}

	known, err := KnownDivergences(kubeexplain.EmulatedVersion())
	if err != nil {
		t.Fatal(err)
	}
	knownSeeds := map[string][]int64{} // by pattern, the seeds it explained

	start := time.Now()
	var mu sync.Mutex
	failed, pods, skipped, done, diffs := 0, 0, 0, 0, 0
	next := *seedStart
	lastLine := start
	// progress logs with mu held.
	progress := func() {
		lastLine = time.Now()
		rss, peak := memoryKB()
		el := time.Since(start)
		t.Logf("progress: %d/%d seeds, %d failing seeds (%d differences), %.1f seeds/s, %v elapsed, RSS %d MB (peak %d MB)",
			done, *seeds, failed, diffs, float64(done)/el.Seconds(), el.Round(time.Second), rss>>10, peak>>10)
	}
	stopTicker, tickerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(tickerDone)
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopTicker:
				return
			case <-tick.C:
				mu.Lock()
				if time.Since(lastLine) >= time.Minute {
					progress()
				}
				mu.Unlock()
			}
		}
	}()
	defer func() { // no progress line once the test has returned
		close(stopTicker)
		<-tickerDone
	}()
	var wg sync.WaitGroup
	// Two workers: ksched's process start overlaps the oracle's run.
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := t.TempDir()
			for {
				mu.Lock()
				if next >= *seedStart+int64(*seeds) || (failed > 0 && !*keepGoing) {
					mu.Unlock()
					return
				}
				seed := next
				next++
				mu.Unlock()
				c := GenerateWith(seed, Options{DRA: *withDRA})
				k := checkerFor(seed)
				d, s, err := k.check(dir, c)
				mu.Lock()
				pods += countPending(c)
				skipped += s
				done++
				diffs += len(d)
				if *progressN > 0 && done%*progressN == 0 {
					progress()
				}
				mu.Unlock()
				if err != nil {
					t.Errorf("seed %d: %v", seed, err)
					mu.Lock()
					failed++
					mu.Unlock()
					continue
				}
				if len(d) == 0 {
					continue
				}
				if kd := explainedBy(d, known); kd != nil {
					mu.Lock()
					knownSeeds[kd.Pattern] = append(knownSeeds[kd.Pattern], seed)
					mu.Unlock()
					continue
				}
				mu.Lock()
				failed++
				first := failed == 1
				mu.Unlock()
				if !first && !*keepGoing {
					continue
				}
				quiet := &checker{bin: k.bin, config: k.config, cfg: k.cfg}
				small := quiet.shrink(dir, c)
				sd, _, _ := quiet.check(dir, small)
				path := filepath.Join(build, "k8s", "plugincompare-failure-"+strconv.FormatInt(seed, 10)+".yaml")
				cfgPath := strings.TrimSuffix(path, ".yaml") + "-config.yaml"
				if y, err := YAML(small); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
					_ = os.WriteFile(path, y, 0o644)
					_ = os.WriteFile(cfgPath, []byte(k.config), 0o644)
				}
				if len(sd) == 0 { // kube's randomness: the shrunk case came out equal
					sd = append([]string{"(the shrunk case did not differ again; the whole case's differences:)"}, d...)
				}
				t.Errorf("seed %d differs (%d nodes, %d pods); shrunk to %d nodes, %d pods, written to %s (config %s):\n%s",
					seed, len(c.Nodes), len(c.Pods), len(small.Nodes), len(small.Pods), path, cfgPath, joinDiffs(sd, 20))
			}
		}()
	}
	wg.Wait()
	_, peak := memoryKB()
	t.Logf("%d seeds from %d (%d run), %d pending pods, %d pods retried by ksched (compared at their first attempt), %d failing seeds, %v, peak RSS %d MB",
		*seeds, *seedStart, done, pods, skipped, failed, time.Since(start).Round(time.Millisecond), peak>>10)
	for _, kd := range known {
		if n := len(knownSeeds[kd.Pattern]); n > 0 {
			first := knownSeeds[kd.Pattern]
			sort.Slice(first, func(i, j int) bool { return first[i] < first[j] })
			t.Logf("known divergence at %s (docs/conformance.md): %d seeds (first %d) show %q: %s",
				kd.Minor, n, first[0], kd.Pattern, kd.Cause)
		}
	}
	keys := make([]string, 0, len(coverage))
	for key := range coverage {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		t.Logf("  %s: %d", key, coverage[key])
	}
}

func countPending(c *kubeexplain.Cluster) int {
	n := 0
	for _, p := range c.Pods {
		if p.Spec.NodeName == "" {
			n++
		}
	}
	return n
}

// shrink drops pods, then nodes (with their bound pods), one at a time,
// keeping each drop that still shows a difference, until none can go.
func (k *checker) shrink(dir string, c *kubeexplain.Cluster) *kubeexplain.Cluster {
	fails := func(x *kubeexplain.Cluster) bool {
		d, _, err := k.check(dir, x)
		return err == nil && len(d) > 0
	}
	cp := *c
	c = &cp
	budget := 300
	for changed := true; changed && budget > 0; {
		changed = false
		for i := 0; i < len(c.Pods) && budget > 0; i++ {
			x := *c
			x.Pods = append(append([]*v1Pod{}, c.Pods[:i]...), c.Pods[i+1:]...)
			budget--
			if fails(&x) {
				*c, changed = x, true
				i--
			}
		}
		for i := 0; i < len(c.Nodes) && len(c.Nodes) > 1 && budget > 0; i++ {
			x := *c
			x.Nodes = append(append([]*v1Node{}, c.Nodes[:i]...), c.Nodes[i+1:]...)
			x.Pods = nil
			for _, p := range c.Pods {
				if p.Spec.NodeName != c.Nodes[i].Name {
					x.Pods = append(x.Pods, p)
				}
			}
			budget--
			if fails(&x) {
				*c, changed = x, true
				i--
			}
		}
	}
	return c
}

// memoryKB is this process's resident set and its peak, in KiB; 0 where
// /proc is missing. ksched runs as short-lived children of a few MB each.
func memoryKB() (rss, peak int64) {
	m, _ := harness.ProcessMemory(0)
	return m.RSS, m.Peak
}
