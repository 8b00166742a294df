package plugincompare

import (
	"strings"

	"ksched.dev/test/k8s/harness"
)

// KnownDivergence is a row of docs/conformance.md's "Known plugin-comparison
// divergences": a kube minor ("1.37"), a substring of a difference line as
// the comparison prints it, and the cause. A seed with a difference line
// holding the substring, at that minor, is counted as known rather than
// failed: its other differences may follow from it (a score changes the
// chosen node, and later pods see another cluster).
type KnownDivergence struct {
	Minor, Pattern, Cause string
}

// KnownDivergences reads the rows for `minor`.
func KnownDivergences(minor string) ([]KnownDivergence, error) {
	rows, err := harness.ConformanceTable("Known plugin-comparison divergences", 3)
	if err != nil {
		return nil, err
	}
	var out []KnownDivergence
	for _, r := range rows {
		if harness.MinorMatches(r[0], minor) && r[1] != "" && r[2] != "" {
			out = append(out, KnownDivergence{minor, r[1], r[2]})
		}
	}
	return out, nil
}

// explainedBy is the known divergence a difference line shows, if any.
func explainedBy(diffs []string, known []KnownDivergence) *KnownDivergence {
	for _, d := range diffs {
		for i := range known {
			if strings.Contains(d, known[i].Pattern) {
				return &known[i]
			}
		}
	}
	return nil
}
