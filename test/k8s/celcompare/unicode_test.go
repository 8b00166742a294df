package celcompare

import (
	"encoding/json"
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
	cases := UnicodeRegexCorpus(start, seeds)
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
			t.Errorf("seed %d: Kubernetes disagrees with Go's regexp: %s", start+int64(i), c.Expression)
		}
		if outcome, why := Compare(c, kube, ours[i]); outcome != Same {
			if diffs++; diffs <= 30 {
				dev, _ := json.Marshal(c.Device)
				t.Errorf("seed %d: %s\n  expression: %s\n  device: %s", start+int64(i), why, c.Expression, dev)
			}
		}
	}
	t.Logf("%d expressions: %d true on Kubernetes, %d errors (patterns Go refuses); %d differences", len(cases), kubeTrue, kubeErr, diffs)
	if diffs > 0 {
		t.Fatalf("%d differences", diffs)
	}
}

// TestCompareRegexUnicodeNames evaluates UnicodeNameCases with both
// evaluators: every class name, in four forms, on text from its edges.
func TestCompareRegexUnicodeNames(t *testing.T) {
	cases := UnicodeNameCases()
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
			t.Errorf("Kubernetes disagrees with Go's regexp: %s", Shorten(c.Expression))
		}
		if outcome, why := Compare(c, kube, ours[i]); outcome != Same {
			if diffs++; diffs <= 30 {
				t.Errorf("%s\n  expression: %s", why, Shorten(c.Expression))
			}
		}
	}
	t.Logf("%d expressions: %d true on Kubernetes, %d errors (names Go does not find); %d differences", len(cases), kubeTrue, kubeErr, diffs)
	if diffs > 0 {
		t.Fatalf("%d differences", diffs)
	}
}
