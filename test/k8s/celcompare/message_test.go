package celcompare

import (
	"path/filepath"
	"strings"
	"testing"

	"ksched.dev/test/k8s/harness"
)

// TestMessagesOnly compares CELCOMPARE_MESSAGE_SEEDS expressions built only
// by gen_message.go (kubernetes.DRADevice, Struct, ListValue and Value
// messages, Timestamp messages outside years 1 to 9999), each on one
// random device: a denser check of that generator than TestCompare's mix;
// skipped when the variable is unset.
func TestMessagesOnly(t *testing.T) {
	n := harness.EnvInt("CELCOMPARE_MESSAGE_SEEDS", 0)
	if n == 0 {
		t.Skip("CELCOMPARE_MESSAGE_SEEDS not set")
	}
	var cases []Case
	for s := int64(1); s <= int64(n); s++ {
		g := NewGen(s)
		cases = append(cases, Case{Expression: g.messageBoolean(), Device: g.Device(false)})
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
		} else if outcome == Unsupported && !strings.Contains(why, "more than 2^53 seconds") {
			t.Logf("seed %d: not supported by ksched: %s", i+1, c.Expression)
		}
	}
	t.Logf("%d cases: %d kube errors, %d not supported by ksched (Timestamp messages past 2^53 seconds unless listed), %d differences",
		len(cases), kubeErrors, counts[Unsupported], counts[Different])
}
