package plugincompare

import (
	"bufio"
	"os"
	"path/filepath"
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
	f, err := os.Open(filepath.Join(harness.RepoDir(), "docs", "conformance.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []KnownDivergence
	inSection := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "## ") {
			inSection = line == "## Known plugin-comparison divergences"
			continue
		}
		if !inSection || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			continue
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if cells[0] != minor || cells[1] == "" || cells[2] == "" {
			continue
		}
		out = append(out, KnownDivergence{cells[0], cells[1], cells[2]})
	}
	return out, sc.Err()
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
