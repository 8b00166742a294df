package harness

import (
	"reflect"
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
