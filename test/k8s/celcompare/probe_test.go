package celcompare

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"ksched.dev/test/k8s/harness"
)

// TestProbe prints Kubernetes' verdict on the expressions in the file named
// by CELCOMPARE_PROBE (one per line) for one fixed device, and ksched's
// beside it when KSCHED_BUILD names a build with test/cel_eval; a tool for
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
	var cases []Case
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cases = append(cases, Case{Expression: sc.Text(), Device: dev})
	}
	var ours []Result
	if os.Getenv("KSCHED_BUILD") != "" {
		if ours, err = EvalKsched(filepath.Join(harness.BuildDir(), "test", "cel_eval"), cases); err != nil {
			t.Fatal(err)
		}
	}
	show := func(r Result) string {
		if r.Error != nil {
			return "ERROR " + *r.Error
		}
		return fmt.Sprint(r.Matches)
	}
	for i, c := range cases {
		r := EvalKube(c)
		fmt.Printf("%s\n    => %s\n", c.Expression, show(r))
		if ours != nil {
			mark := ""
			if o, _ := Compare(c, r, ours[i]); o != Same {
				mark = "  <<< DIFFERENT"
			}
			fmt.Printf("    ksched %s%s\n", show(ours[i]), mark)
		}
	}
}
