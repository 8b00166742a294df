package celcompare

import (
	"strings"
	"testing"
)

// TestMessagesOnly compares CELCOMPARE_MESSAGE_SEEDS expressions built only
// by gen_message.go (kubernetes.DRADevice, Struct, ListValue and Value
// messages, Timestamp messages outside years 1 to 9999), each on one
// random device: a denser check of that generator than TestCompare's mix;
// skipped when the variable is unset.
func TestMessagesOnly(t *testing.T) {
	compareOnly(t, "CELCOMPARE_MESSAGE_SEEDS", func(_ int64, g *Gen) Case {
		return Case{Expression: g.messageBoolean(), Device: g.Device(false)}
	}, func(why string) bool {
		// Timestamps past 2^53 seconds are refused on purpose (conformance.md).
		return strings.Contains(why, "more than 2^53 seconds")
	})
}
