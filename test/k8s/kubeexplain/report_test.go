package kubeexplain

import (
	"encoding/json"
	"testing"
)

// The report must round-trip through ksched's JSON shape, which the
// comparison decodes ksched's output with.
func TestReportShape(t *testing.T) {
	in := `{"pods":[{"namespace":"d","name":"p","node":null,"attempts":1,` +
		`"filter":{"a":"feasible","b":{"plugin":null,"code":"UnschedulableAndUnresolvable","reason":"x","reasons":["x"]},"c":"notEvaluated"},` +
		`"scores":null}]}`
	var r Report
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	f := r.Pods[0].Filter
	if !f["a"].Feasible || !f["c"].NotEvaluated || f["b"].Plugin != "" || f["b"].Reason != "x" || r.Pods[0].Node != "" {
		t.Fatalf("decoded %+v", r)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Pods) != 1 || !back.Pods[0].Filter["a"].Feasible || back.Pods[0].Filter["b"].Code != "UnschedulableAndUnresolvable" {
		t.Fatalf("round trip: %s", out)
	}
}
