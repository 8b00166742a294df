package harness

import (
	"reflect"
	"strings"
	"testing"
)

func TestCompareForcedAndTiedPlacements(t *testing.T) {
	ksched := Outcome{
		"ns/forced": {Exists: true, Node: "a"},
		"ns/tied":   {Exists: true, Node: "b"},
		"ns/stray":  {Exists: true, Node: "z"},
		"ns/victim": {Exists: false},
	}
	kube := Outcome{
		"ns/forced": {Exists: true, Node: "b"},
		"ns/tied":   {Exists: true, Node: "c"},
		"ns/stray":  {Exists: true, Node: "b"},
		"ns/victim": {Exists: true, Node: "a"},
	}
	placements := map[string]Placement{
		"ns/tied":  {BestNodes: []string{"b", "c"}},
		"ns/stray": {BestNodes: []string{"b", "c"}},
	}
	got := Compare(ksched, kube, placements)
	want := []Divergence{
		{"ns/forced", "node", "a", "b"},
		{"ns/stray", "node not among the best b,c", "z", "b"},
		{"ns/victim", "exists", "false", "true"},
		{"ns/victim", "node", "", "a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare:\n got %v\nwant %v", got, want)
	}
}

func TestUnexplainedMatchesScenarioPodPrefixAndField(t *testing.T) {
	divs := []Divergence{
		{"test/during-1", "FailedScheduling events", "x", ""},
		{"test/big", "PodScheduled.message", "x", "y"},
		{"test/big", "node", "a", "b"},
	}
	known := []KnownDivergence{
		{"TestA", "test/during-*", "FailedScheduling", "cause"},
		{"TestA", "test/big", "PodScheduled.message", "cause"},
		{"TestB", "test/big", "node", "another scenario"},
	}
	got := Unexplained("TestA", divs, known)
	if want := divs[2:]; !reflect.DeepEqual(got, want) {
		t.Errorf("Unexplained: got %v, want %v", got, want)
	}
}

func TestConformanceTablesParseWithACausePerRow(t *testing.T) {
	rows, err := ConformanceTable("Known divergences", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows under \"## Known divergences\"")
	}
	for _, r := range rows {
		if r[0] == "minor" || strings.HasPrefix(r[0], "---") || r[4] == "" {
			t.Errorf("row %q: a header, a separator or no cause", r)
		}
	}
	if got, _ := ConformanceTable("No such section", 5); len(got) != 0 {
		t.Errorf("a missing section gave rows %q", got)
	}
}

func TestMinorMatchesAllAndLists(t *testing.T) {
	for _, c := range []struct {
		cell, minor string
		want        bool
	}{
		{"all", "1.35", true},
		{"1.37", "1.37", true},
		{"1.37", "1.36", false},
		{"1.35, 1.36", "1.36", true},
		{"1.35, 1.36", "1.37", false},
	} {
		if got := MinorMatches(c.cell, c.minor); got != c.want {
			t.Errorf("MinorMatches(%q, %q) = %v, want %v", c.cell, c.minor, got, c.want)
		}
	}
}
