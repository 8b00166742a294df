package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// After the same work (pods bound, one that fits nowhere, one preemption),
// every scheduler_*, workqueue_*, leader_election_* and rest_client_* family kube-scheduler
// exposes is on ksched's /metrics with the same type, help text (its
// stability prefix included), label names and buckets, at the cluster's
// minor, and ksched exposes none that kube-scheduler does not, except where
// docs/conformance.md says why: dashboards and alerts written for the
// cluster's kube-scheduler work on ksched unchanged.
func TestMetricsMatchKubeScheduler(t *testing.T) {
	var mu sync.Mutex
	scraped := map[string]map[string]harness.MetricFamily{}
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewPriorityClass("low", 100), harness.NewPriorityClass("high", 1000))
			e.Create(harness.NewNode("node-a", "2", "8Gi", nil), harness.NewNode("node-b", "2", "8Gi", nil))
			for _, name := range []string{"a-0", "a-1"} {
				p := harness.NewPod(name, "1", "1Gi")
				p.Spec.PriorityClassName = "low"
				p.Spec.NodeName = "node-a"
				e.Create(p)
			}
			// node-a is full: both go to node-b.
			e.Create(harness.NewPod("fit-0", "500m", "1Gi"), harness.NewPod("fit-1", "500m", "1Gi"))
			e.WaitBound(30*time.Second, "fit-0", "fit-1")
			e.Create(harness.NewPod("too-big", "4", "1Gi"))
			// The cheapest victims are node-b's (priority 0 against 100).
			pre := harness.NewPod("preemptor", "2", "1Gi")
			pre.Spec.PriorityClassName = "high"
			e.Create(pre)
			e.WaitBound(60*time.Second, "preemptor")
			o := e.Outcome(2*time.Second, "fit-0", "fit-1")
			families, err := e.Replicas[0].ScrapeMetrics(e.Ctx, e.Kind)
			if err != nil {
				e.T.Fatalf("scraping %s: %v", e.Kind, err)
			}
			// Kept for reading when the comparison fails.
			var dump strings.Builder
			for _, name := range sortedKeys(families) {
				fmt.Fprintf(&dump, "%s %+v\n", name, families[name])
			}
			_ = os.WriteFile(filepath.Join(filepath.Dir(e.CP.Dir), e.Kind+"-metrics.txt"), []byte(dump.String()), 0o644)
			mu.Lock()
			scraped[e.Kind] = families
			mu.Unlock()
			return o
		},
	})
	ours, theirs := scraped[harness.KSched], scraped[harness.KubeScheduler]
	if ours == nil || theirs == nil {
		return
	}
	minor, err := harness.K8sMinor()
	if err != nil {
		t.Fatal(err)
	}
	known, err := harness.KnownDivergences(minor)
	if err != nil {
		t.Fatalf("reading docs/conformance.md: %v", err)
	}
	for _, d := range harness.Unexplained(t.Name(), diffFamilies(ours, theirs), known) {
		t.Errorf("not explained in docs/conformance.md at %s: %s", minor, d)
	}
}

// comparedPrefixes are the families both schedulers define: the scheduler's
// own, client-go's work queues, leader election and API traffic.
var comparedPrefixes = []string{"scheduler_", "workqueue_", "leader_election_", "rest_client_"}

// diffFamilies lists how ksched's families differ from kube-scheduler's, as
// divergences whose "pod" is the family's name.
func diffFamilies(ours, theirs map[string]harness.MetricFamily) []harness.Divergence {
	names := map[string]bool{}
	for _, m := range []map[string]harness.MetricFamily{ours, theirs} {
		for name := range m {
			for _, p := range comparedPrefixes {
				if strings.HasPrefix(name, p) {
					names[name] = true
				}
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	describe := func(m harness.MetricFamily, ok bool) string {
		if !ok {
			return "absent"
		}
		return fmt.Sprintf("%+v", m)
	}
	var divs []harness.Divergence
	for _, name := range sorted {
		a, inOurs := ours[name]
		b, inTheirs := theirs[name]
		if inOurs != inTheirs || !reflect.DeepEqual(a, b) {
			divs = append(divs, harness.Divergence{Pod: name, Field: "metric family",
				KSched: describe(a, inOurs), KubeScheduler: describe(b, inTheirs)})
		}
	}
	return divs
}

func sortedKeys(m map[string]harness.MetricFamily) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
