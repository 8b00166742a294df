package celcompare

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

// TestProbe prints Kubernetes' verdict on the expressions in the file named
// by CELCOMPARE_PROBE (one per line) for one fixed device; a tool for
// studying semantics, skipped otherwise.
func TestProbe(t *testing.T) {
	path := os.Getenv("CELCOMPARE_PROBE")
	if path == "" {
		t.Skip("CELCOMPARE_PROBE not set")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i64 := int64(7)
	s := "a100"
	v := "1.2.3"
	b := true
	dev := Device{Driver: gpuDomain, Attributes: map[string]Attribute{"count": {Int: &i64}, "model": {String: &s}, "driverVersion": {Version: &v}, "enabled": {Bool: &b}}, Capacity: map[string]string{"memory": "1Gi"}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r := EvalKube(Case{Expression: sc.Text(), Device: dev})
		if r.Error != nil {
			fmt.Printf("%s\n    => ERROR %s\n", sc.Text(), *r.Error)
		} else {
			fmt.Printf("%s\n    => %v\n", sc.Text(), r.Matches)
		}
	}
}
