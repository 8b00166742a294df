package celcompare

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"ksched.dev/test/k8s/harness"
)

// TestCompareRegexUnicode evaluates CELCOMPARE_SEEDS (default 4000)
// expressions of UnicodeRegexCorpus, from CELCOMPARE_SEED_START, with both
// evaluators: Unicode classes and (?i) over non-ASCII text in matches(),
// find() and findAll(). It fails on any difference, and when Kubernetes
// disagrees with Go's regexp, which the expressions assume (then the
// corpus no longer tests what it means to).
func TestCompareRegexUnicode(t *testing.T) {
	seeds := harness.EnvInt("CELCOMPARE_SEEDS", 4000)
	start := int64(harness.EnvInt("CELCOMPARE_SEED_START", 1))
	compareRegexCases(t, UnicodeRegexCorpus(start, seeds), "patterns Go refuses", func(i int, c Case) string {
		dev, _ := json.Marshal(c.Device)
		return fmt.Sprintf("seed %d: expression: %s\n  device: %s", start+int64(i), c.Expression, dev)
	})
}

// TestCompareRegexUnicodeNames evaluates UnicodeNameCases with both
// evaluators: every class name, in four forms, on text from its edges.
func TestCompareRegexUnicodeNames(t *testing.T) {
	compareRegexCases(t, UnicodeNameCases(), "names Go does not find", func(_ int, c Case) string {
		return "expression: " + Shorten(c.Expression)
	})
}

// compareRegexCases evaluates cases, each expected true on Kubernetes
// unless Kubernetes refuses it (`refused` says why it may), with both
// evaluators, and fails on a difference or an unexpected false; `where`
// names case i in messages.
func compareRegexCases(t *testing.T, cases []Case, refused string, where func(i int, c Case) string) {
	t.Helper()
	ours, err := EvalKsched(filepath.Join(harness.BuildDir(), "test", "cel_eval"), cases)
	if err != nil {
		t.Fatal(err)
	}
	diffs, kubeTrue, kubeErr := 0, 0, 0
	for i, c := range cases {
		kube := EvalKube(c)
		switch {
		case kube.Error != nil:
			kubeErr++
		case kube.Matches:
			kubeTrue++
		default:
			t.Errorf("Kubernetes disagrees with Go's regexp: %s", where(i, c))
		}
		if outcome, why := Compare(c, kube, ours[i]); outcome != Same {
			if diffs++; diffs <= 30 {
				t.Errorf("%s\n  %s", why, where(i, c))
			}
		}
	}
	t.Logf("%d expressions: %d true on Kubernetes, %d errors (%s); %d differences", len(cases), kubeTrue, kubeErr, refused, diffs)
	if diffs > 0 {
		t.Fatalf("%d differences", diffs)
	}
}
