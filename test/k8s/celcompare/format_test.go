package celcompare

import (
	"path/filepath"
	"testing"

	"ksched.dev/test/k8s/harness"
)

// TestFormatOnly compares CELCOMPARE_FORMAT_SEEDS expressions built only by
// gen_format.go (string.format calls, and every third one over Kubernetes'
// format library), each on one random device: a denser check of those
// generators than TestCompare's mix; skipped when the variable is unset.
func TestFormatOnly(t *testing.T) {
	n := harness.EnvInt("CELCOMPARE_FORMAT_SEEDS", 0)
	if n == 0 {
		t.Skip("CELCOMPARE_FORMAT_SEEDS not set")
	}
	var cases []Case
	for s := int64(1); s <= int64(n); s++ {
		g := NewGen(s)
		expr := g.fmtBoolean
		if s%3 == 0 {
			expr = g.kfmtBoolean
		}
		cases = append(cases, Case{Expression: expr(), Device: g.Device(false)})
	}
	compareOnly(t, cases, func(string) bool { return false })
}

// compareOnly compares cases made by one generator (seed i+1 is cases[i])
// and logs the tallies; an unsupported case is listed unless expected(why).
func compareOnly(t *testing.T, cases []Case, expected func(why string) bool) {
	ours, err := EvalKsched(filepath.Join(harness.BuildDir(), "test", "cel_eval"), cases)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Outcome]int{}
	kubeErrors := 0
	for i, c := range cases {
		kube := EvalKube(c)
		if kube.Error != nil {
			kubeErrors++
		}
		outcome, why := Compare(c, kube, ours[i])
		if counts[outcome]++; outcome == Different && counts[outcome] <= 30 {
			t.Errorf("seed %d: %s\n  expression: %s", i+1, why, c.Expression)
		} else if outcome == Unsupported && !expected(why) {
			t.Logf("seed %d: not supported by ksched: %s", i+1, c.Expression)
		}
	}
	t.Logf("%d cases: %d kube errors, %d not supported by ksched (listed above unless expected), %d differences",
		len(cases), kubeErrors, counts[Unsupported], counts[Different])
}
