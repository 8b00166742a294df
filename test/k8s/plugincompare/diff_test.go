package plugincompare

import (
	"testing"

	"ksched.dev/test/k8s/kubeexplain"
)

// TestDiffSeesChanges: the comparison must notice each kind of change, or
// a passing run would prove nothing.
func TestDiffSeesChanges(t *testing.T) {
	base := func() *kubeexplain.Report {
		return &kubeexplain.Report{Pods: []kubeexplain.PodReport{{
			Namespace: "default", Name: "p", Node: "a", Attempts: 1,
			Filter: map[string]kubeexplain.Verdict{
				"a": {Feasible: true}, "b": {Feasible: true},
				"c": {Plugin: "NodeResourcesFit", Code: "Unschedulable", Reason: "Insufficient cpu", Reasons: []string{"Insufficient cpu"}},
			},
			Scores: map[string]kubeexplain.NodeScores{
				"a": {Plugins: map[string]kubeexplain.PluginScore{"X": {Normalized: 50, Weight: 2, Weighted: 100}}, Total: 100},
				"b": {Plugins: map[string]kubeexplain.PluginScore{"X": {Normalized: 10, Weight: 2, Weighted: 20}}, Total: 20},
			},
		}}}
	}
	if d, _ := Diff(base(), base()); len(d) != 0 {
		t.Fatalf("equal reports differ: %v", d)
	}
	for name, mutate := range map[string]func(r *kubeexplain.Report){
		"node":   func(r *kubeexplain.Report) { r.Pods[0].Node = "b" },
		"plugin": func(r *kubeexplain.Report) { v := r.Pods[0].Filter["c"]; v.Plugin = "Other"; r.Pods[0].Filter["c"] = v },
		"reason": func(r *kubeexplain.Report) {
			v := r.Pods[0].Filter["c"]
			v.Reason, v.Reasons = "Insufficient memory", []string{"Insufficient memory"}
			r.Pods[0].Filter["c"] = v
		},
		"verdict": func(r *kubeexplain.Report) { r.Pods[0].Filter["b"] = r.Pods[0].Filter["c"] },
		"score": func(r *kubeexplain.Report) {
			r.Pods[0].Scores["b"].Plugins["X"] = kubeexplain.PluginScore{Normalized: 11, Weight: 2, Weighted: 22}
		},
		"total":    func(r *kubeexplain.Report) { s := r.Pods[0].Scores["b"]; s.Total = 21; r.Pods[0].Scores["b"] = s },
		"missing":  func(r *kubeexplain.Report) { r.Pods = nil },
		"fitError": func(r *kubeexplain.Report) { r.Pods[0].FitError = "0/3 nodes are available" },
	} {
		got := base()
		mutate(got)
		if d, _ := Diff(base(), got); len(d) == 0 {
			t.Errorf("%s: change not seen", name)
		}
	}
}

// TestDiffErrors: a cycle kube ends in an error agrees with ksched's error
// text when it is any erring node's (kube filters nodes in parallel), and
// with nothing else.
func TestDiffErrors(t *testing.T) {
	errs := []string{`running "DynamicResources" filter plugin: pool a`, `running "DynamicResources" filter plugin: pool b`}
	want := &kubeexplain.Report{Pods: []kubeexplain.PodReport{{Namespace: "default", Name: "p", Attempts: 1,
		Filter: map[string]kubeexplain.Verdict{}, FitError: errs[0], Errors: errs}}}
	got := func(fitError, node string) *kubeexplain.Report {
		return &kubeexplain.Report{Pods: []kubeexplain.PodReport{{Namespace: "default", Name: "p", Attempts: 1,
			Filter: map[string]kubeexplain.Verdict{}, FitError: fitError, Node: node}}}
	}
	for _, e := range errs {
		if d, _ := Diff(want, got(e, "")); len(d) != 0 {
			t.Errorf("ksched's %q: %v", e, d)
		}
	}
	if d, _ := Diff(want, got(`running "DynamicResources" filter plugin: pool c`, "")); len(d) == 0 {
		t.Error("another error text not seen")
	}
	if d, _ := Diff(want, got("", "a")); len(d) == 0 {
		t.Error("a placement not seen")
	}
}

func TestKnownDivergencesExplainASeed(t *testing.T) {
	known := []KnownDivergence{{"1.37", " VolumeBinding: kube normalized", "StorageCapacityScoring"}}
	diffs := []string{"default/pod-5: total node-m9: kube 519, ksched 493",
		"default/pod-5: score node-m9 VolumeBinding: kube normalized 26 weighted 26, ksched normalized 0 weighted 0"}
	if kd := explainedBy(diffs, known); kd == nil || kd.Cause != "StorageCapacityScoring" {
		t.Fatalf("explainedBy = %v, want the StorageCapacityScoring row", kd)
	}
	if kd := explainedBy(diffs[:1], known); kd != nil {
		t.Fatalf("explainedBy(total only) = %v, want nil", kd)
	}
	// The rows docs/conformance.md lists parse, each with a cause.
	rows, err := KnownDivergences("1.37")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Pattern == "" || r.Cause == "" {
			t.Errorf("row %+v lacks a pattern or a cause", r)
		}
	}
}
