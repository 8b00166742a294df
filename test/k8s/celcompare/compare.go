package celcompare

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"ksched.dev/test/k8s/kubeexplain"
)

// Result is one evaluation's outcome.
type Result struct {
	Matches    bool    `json:"matches"`
	Error      *string `json:"error"`
	InputError bool    `json:"inputError,omitempty"`
}

type compileKey struct {
	expr       string
	consumable bool
}

// Compiled expressions, as the allocator's cache keeps them. Not safe for
// concurrent use; the comparison runs in one goroutine.
var compiled = map[compileKey]dracel.CompilationResult{}

// EvalKube evaluates c as kube-scheduler's DRA allocator does: the
// expression compiled by the package's cache settings (no cost estimation,
// the stored-expressions environment, the default cost limit), then
// DeviceMatches.
func EvalKube(c Case) (result Result) {
	// cel-go's homogeneous-literal validator panics on some optional
	// entries (an index out of range): kube-scheduler would crash there;
	// reported as a compile error.
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("compile: panic: %v", r)
			result = Result{Error: &msg}
		}
	}()
	key := compileKey{c.Expression, c.ConsumableCapacity}
	expr, ok := compiled[key]
	if !ok {
		compiler := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: c.ConsumableCapacity})
		expr = compiler.CompileCELExpression(c.Expression, dracel.Options{DisableCostEstimation: true})
		compiled[key] = expr
	}
	if expr.Error != nil {
		msg := "compile: " + expr.Error.Error()
		return Result{Error: &msg}
	}
	dev := dracel.Device{
		Driver:                   c.Device.Driver,
		AllowMultipleAllocations: c.Device.AllowMultipleAllocations,
		Attributes:               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		Capacity:                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
	}
	for name, a := range c.Device.Attributes {
		dev.Attributes[resourceapi.QualifiedName(name)] = resourceapi.DeviceAttribute{
			IntValue: a.Int, BoolValue: a.Bool, StringValue: a.String, VersionValue: a.Version,
		}
	}
	for name, q := range c.Device.Capacity {
		dev.Capacity[resourceapi.QualifiedName(name)] = resourceapi.DeviceCapacity{Value: resource.MustParse(q)}
	}
	matches, _, err := expr.DeviceMatches(context.Background(), dev)
	if err != nil {
		msg := "runtime: " + err.Error()
		return Result{Error: &msg}
	}
	return Result{Matches: matches}
}

// EvalKsched runs cel_eval (build/test/cel_eval) over all cases at once.
func EvalKsched(bin string, cases []Case) ([]Result, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
	}
	// The CEL semantics of the release the comparison links.
	cmd := exec.Command(bin, "--emulated-version="+kubeexplain.EmulatedVersion())
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", bin, err, stderr.String())
	}
	var results []Result
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("cel_eval output %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if len(results) != len(cases) {
		return nil, fmt.Errorf("cel_eval answered %d of %d cases", len(results), len(cases))
	}
	return results, nil
}

// Outcome classifies one comparison.
type Outcome int

const (
	Same        Outcome = iota // same match result, or both errors
	Unsupported                // kube evaluates it; ksched rejects it as not supported
	Different
)

// Compare tells whether ksched's result agrees with kube's: the same
// boolean, or an error on both sides. ksched's errors must name the
// expression. An expression ksched rejects as "not supported" while kube
// accepts it is reported apart: such selectors fail claims in ksched instead
// of matching, by design (docs/conformance.md).
func Compare(c Case, kube, ours Result) (Outcome, string) {
	if ours.InputError {
		return Different, "cel_eval could not read the case: " + *ours.Error
	}
	if ours.Error != nil && !strings.Contains(*ours.Error, "CEL expression \""+prefix(c.Expression)) {
		return Different, "ksched's error does not name the expression: " + *ours.Error
	}
	switch {
	case kube.Error == nil && ours.Error == nil:
		if kube.Matches == ours.Matches {
			return Same, ""
		}
		return Different, fmt.Sprintf("kube matches=%v, ksched matches=%v", kube.Matches, ours.Matches)
	case kube.Error != nil && ours.Error != nil:
		return Same, ""
	case kube.Error == nil:
		if strings.Contains(*ours.Error, "not supported") {
			return Unsupported, *ours.Error
		}
		return Different, fmt.Sprintf("kube matches=%v, ksched error: %s", kube.Matches, *ours.Error)
	default:
		return Different, fmt.Sprintf("kube error: %s; ksched matches=%v", *kube.Error, ours.Matches)
	}
}

// The part of an expression ksched's messages quote in full.
func prefix(expr string) string {
	if len(expr) > 100 {
		return expr[:100]
	}
	return expr
}
