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
	compareOnly(t, "CELCOMPARE_FORMAT_SEEDS", func(s int64, g *Gen) Case {
		expr := g.fmtBoolean
		if s%3 == 0 {
			expr = g.kfmtBoolean
		}
		return Case{Expression: expr(), Device: g.Device(false)}
	}, func(string) bool { return false })
}

// compareOnly compares the cases `draw` makes for seeds 1..$seedsVar (the
// test is skipped when it is unset) and logs the tallies; an unsupported
// case is listed unless expected(why).
func compareOnly(t *testing.T, seedsVar string, draw func(seed int64, g *Gen) Case, expected func(why string) bool) {
	n := harness.EnvInt(seedsVar, 0)
	if n == 0 {
		t.Skip(seedsVar + " not set")
	}
	var cases []Case
	for s := int64(1); s <= int64(n); s++ {
		cases = append(cases, draw(s, NewGen(s)))
	}
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
