package celcompare

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"ksched.dev/test/k8s/harness"
)

// TestCompare evaluates the seeded corpus (CELCOMPARE_SEEDS expressions,
// default 4000, each on 4 devices) with both evaluators and fails on any
// difference.
func TestCompare(t *testing.T) {
	seeds := harness.EnvInt("CELCOMPARE_SEEDS", 4000)
	start := int64(harness.EnvInt("CELCOMPARE_SEED_START", 1))
	cases := Corpus(start, seeds, 4)
	ours, err := EvalKsched(filepath.Join(harness.BuildDir(), "test", "cel_eval"), cases)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	unsupported := map[string]int{}
	reasons := map[string]int{}
	diffs := 0
	for i, c := range cases {
		kube := EvalKube(c)
		switch {
		case kube.Error != nil && strings.HasPrefix(*kube.Error, "compile: panic"):
			counts["kube compile error"]++
			if counts["kube panic"]++; counts["kube panic"] <= 3 {
				t.Logf("kube's compiler panics (counted as a compile error): %s: %s", c.Expression, *kube.Error)
			}
		case kube.Error != nil && strings.HasPrefix(*kube.Error, "compile"):
			counts["kube compile error"]++
		case kube.Error != nil:
			counts["kube runtime error"]++
			reasons[errorKind(*kube.Error)]++
		case kube.Matches:
			counts["kube match"]++
		default:
			counts["kube no match"]++
		}
		outcome, why := Compare(c, kube, ours[i])
		switch outcome {
		case Unsupported:
			unsupported[c.Expression]++
		case Different:
			diffs++
			if diffs <= 30 {
				dev, _ := json.Marshal(c.Device)
				t.Errorf("case %d (seed %d): %s\n  expression: %s\n  device: %s", i, start+int64(i/4), why, c.Expression, dev)
			}
		}
	}
	t.Logf("%d cases (%d expressions): %d kube matches, %d kube no-matches, %d kube compile errors, %d kube runtime errors; %d differences",
		len(cases), seeds, counts["kube match"], counts["kube no match"], counts["kube compile error"], counts["kube runtime error"], diffs)
	t.Logf("kube runtime errors by kind: %v", reasons)
	var names []string
	for e := range unsupported {
		names = append(names, e)
	}
	sort.Strings(names)
	for _, e := range names {
		t.Logf("not supported by ksched (kube evaluates it; ksched fails the selector): %s", e)
	}
	if diffs > 0 {
		t.Fatalf("%d differences", diffs)
	}
}

// errorKind shortens a runtime error to its kind, for the summary.
func errorKind(msg string) string {
	msg = strings.TrimPrefix(msg, "runtime: ")
	for _, sep := range []string{":", " '", " \""} {
		if i := strings.Index(msg, sep); i > 0 {
			msg = msg[:i]
		}
	}
	return msg
}
