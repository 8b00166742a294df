package harness

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// ConformanceTable reads the Markdown table under the heading "## section"
// of docs/conformance.md: its data rows of `columns` cells, each trimmed and
// stripped of backticks. The header row, the separator and rows of another
// width are skipped.
func ConformanceTable(section string, columns int) ([][]string, error) {
	f, err := os.Open(filepath.Join(RepoDir(), "docs", "conformance.md"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]string
	inSection, header := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "## ") {
			inSection, header = line == "## "+section, false
			continue
		}
		if !inSection || !strings.HasPrefix(line, "|") {
			continue
		}
		if !header { // the first row of the table names its columns
			header = true
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != columns || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		rows = append(rows, cells)
	}
	return rows, sc.Err()
}

// MinorMatches says whether a table's minor cell ("all", "1.37" or
// "1.35, 1.36") names minor ("1.37").
func MinorMatches(cell, minor string) bool {
	for _, m := range strings.Split(cell, ",") {
		m = strings.TrimSpace(m)
		if m == "all" || m == minor {
			return true
		}
	}
	return false
}
