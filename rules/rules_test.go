package rules

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/rules/rulestest"
)

// TestRuleFixtures runs each rule that has a fixture dir in testdata/ (named
// by its ID) over it, checking the `# want` comments and want.txt.
func TestRuleFixtures(t *testing.T) {
	for _, rule := range All() {
		dir := filepath.Join("testdata", rule.ID)
		if _, err := filepath.Glob(dir); err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(matches) == 0 {
			continue
		}
		var also []*lint.Rule
		if rule.Check == nil {
			// The engine reports a meta rule on the other rules' findings.
			also = slices.DeleteFunc(All(), func(other *lint.Rule) bool { return other.ID == rule.ID })
		}
		t.Run(rule.ID, func(t *testing.T) { rulestest.Run(t, rule, dir, also...) })
	}
}
