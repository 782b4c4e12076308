package report

import (
	"testing"

	"github.com/modellint/modellint/lint"
)

// TestFileGroups: the unsuppressed findings of each file, files in the
// order the findings name them; a file's findings side by side are a part
// of the result's, not a copy.
func TestFileGroups(t *testing.T) {
	at := func(file, rule string, suppressed bool) lint.Finding {
		f := lint.Finding{RuleID: rule, Location: lint.Location{File: file}}
		if suppressed {
			f.Suppression = &lint.Suppression{Kind: lint.SuppressedByComment}
		}
		return f
	}
	findings := []lint.Finding{
		at("a.yaml", "MDL1", false), at("a.yaml", "MDL2", false),
		at("b.yaml", "MDL3", false), at("b.yaml", "MDL4", true), at("b.yaml", "MDL5", false),
		at("c.yaml", "MDL6", true),
		at("a.yaml", "MDL7", false), // not side by side with a.yaml's others
		at("d.yaml", "MDL8", false),
	}
	groups := fileGroups(findings)
	var got [][]string
	for _, group := range groups {
		var rules []string
		for _, f := range group {
			rules = append(rules, f.Location.File+" "+f.RuleID)
		}
		got = append(got, rules)
	}
	want := [][]string{{"a.yaml MDL1", "a.yaml MDL2", "a.yaml MDL7"}, {"b.yaml MDL3", "b.yaml MDL5"}, {"d.yaml MDL8"}}
	if len(got) != len(want) {
		t.Fatalf("groups %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("groups %v, want %v", got, want)
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("groups %v, want %v", got, want)
			}
		}
	}
	if &groups[2][0] != &findings[7] {
		t.Error("d.yaml's findings were copied")
	}
	if findings[2].RuleID != "MDL3" || findings[3].RuleID != "MDL4" || findings[6].RuleID != "MDL7" {
		t.Errorf("the result's findings changed: %v", findings)
	}
}
