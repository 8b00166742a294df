package celcompare

import (
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
	// Timestamps past 2^53 seconds are refused on purpose (conformance.md).
	compareOnly(t, cases, func(why string) bool { return strings.Contains(why, "more than 2^53 seconds") })
}
