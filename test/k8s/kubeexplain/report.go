// Package kubeexplain runs kube-scheduler's own framework (the in-tree
// plugins of the pinned k8s.io/kubernetes module) plugin by plugin over a
// cluster snapshot and reports, per pending pod, what `ksched simulate
// --explain -o json --tie-break lowest-name` reports: the Filter verdict of
// every node, every Score plugin's score per feasible node, the totals and
// the chosen node. It is the oracle the plugin-by-plugin comparison checks
// ksched against.
package kubeexplain

import (
	"encoding/json"

	resourceapi "k8s.io/api/resource/v1"
)

// Report is the subset of ksched's SimulationReport (version 1) the oracle
// fills. The JSON field names are ksched's, so both decode into this type.
type Report struct {
	Pods []PodReport `json:"pods"`
}

// PodReport is one pending pod's outcome.
type PodReport struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Node is where the pod was placed; empty when it stayed pending.
	Node string `json:"node"`
	// Attempts is ksched's count of scheduling cycles; the oracle runs one.
	Attempts int `json:"attempts"`
	// FitError is kube's FitError text when no node fits (no PostFilter
	// part: PostFilter is not run); ksched's PodScheduled message.
	FitError string `json:"fitError"`
	// Errors: set when the cycle ended in an error (the oracle's FitError
	// is then the first of them): the text of each node whose Filter
	// failed, in node order, or PreFilter's alone. kube-scheduler filters
	// nodes in parallel, so it may report any of them.
	Errors []string              `json:"-"`
	Filter map[string]Verdict    `json:"filter"`
	Scores map[string]NodeScores `json:"scores"`
	// Volumes: the oracle's VolumeBinding decisions for the node taken
	// (ksched's report does not carry them).
	Volumes []VolumeDecision `json:"-"`
	// Claims: the pod's ResourceClaims as the oracle's DynamicResources
	// PreBind wrote them for the node taken (allocation, reservedFor).
	Claims []*resourceapi.ResourceClaim `json:"-"`
}

// Verdict is "feasible" (Feasible true), "notEvaluated", or a rejection.
type Verdict struct {
	Feasible     bool     `json:"-"`
	NotEvaluated bool     `json:"-"`
	Plugin       string   `json:"plugin"`
	Code         string   `json:"code"`
	Reason       string   `json:"reason"`
	Reasons      []string `json:"reasons"`
}

// MarshalJSON writes ksched's shape: a string for feasible/notEvaluated.
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch {
	case v.Feasible:
		return []byte(`"feasible"`), nil
	case v.NotEvaluated:
		return []byte(`"notEvaluated"`), nil
	}
	type plain Verdict
	return json.Marshal(plain(v))
}

// UnmarshalJSON reads ksched's shape (plugin may be null).
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*v = Verdict{Feasible: s == "feasible", NotEvaluated: s == "notEvaluated"}
		return nil
	}
	var p struct {
		Plugin  *string  `json:"plugin"`
		Code    string   `json:"code"`
		Reason  string   `json:"reason"`
		Reasons []string `json:"reasons"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*v = Verdict{Code: p.Code, Reason: p.Reason, Reasons: p.Reasons}
	if p.Plugin != nil {
		v.Plugin = *p.Plugin
	}
	return nil
}

// NodeScores is one feasible node's per-plugin scores and total.
type NodeScores struct {
	Plugins map[string]PluginScore `json:"plugins"`
	Total   int64                  `json:"total"`
}

// PluginScore: the framework's runner only exposes the weighted score, so
// the oracle derives normalized = weighted / weight and leaves raw out.
type PluginScore struct {
	Normalized int64 `json:"normalized"`
	Weight     int64 `json:"weight"`
	Weighted   int64 `json:"weighted"`
}

// MarshalJSON writes ksched's shape: node and scores null when absent.
func (p PodReport) MarshalJSON() ([]byte, error) {
	type plain PodReport
	out := struct {
		plain
		Node     *string `json:"node"`
		FitError *string `json:"fitError"`
	}{plain: plain(p)}
	if p.Node != "" {
		out.Node = &p.Node
	}
	if p.FitError != "" {
		out.FitError = &p.FitError
	}
	return json.Marshal(out)
}
