package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/rules/rulestest"
)

// TestRuleFixtures runs each rule over its fixture dir, testdata/ID (see
// rulestest for what one holds): every rule has one, its want comments
// hold, and it shows the rule firing and passing.
func TestRuleFixtures(t *testing.T) {
	var uncovered []string
	for _, rule := range All() {
		dir := filepath.Join("testdata", rule.ID)
		if _, err := os.Stat(dir); err != nil {
			uncovered = append(uncovered, rule.ID+" (no "+filepath.ToSlash(dir)+")")
			continue
		}
		var also []*lint.Rule
		if rule.Check == nil {
			// The engine reports a meta rule on the other rules' findings.
			also = slices.DeleteFunc(All(), func(other *lint.Rule) bool { return other.ID == rule.ID })
		}
		var coverage rulestest.Coverage
		ran := false
		t.Run(rule.ID, func(t *testing.T) {
			defer func() { ran = !t.Skipped() }() // a skipped fixture (no gcc for its images) shows nothing
			coverage = rulestest.Run(t, rule, dir, also...)
		})
		switch {
		case !ran: // left out by -run, or skipped
		case !coverage.Fired:
			uncovered = append(uncovered, rule.ID+" (no firing case)")
		case !coverage.Passed:
			uncovered = append(uncovered, rule.ID+" (no passing target)")
		}
	}
	if len(uncovered) > 0 {
		t.Errorf("every rule needs a fixture dir testdata/ID with a case where it fires and a target where it passes: %s",
			strings.Join(uncovered, ", "))
	}
}
