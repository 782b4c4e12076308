package rules_test

import (
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
)

// TestWithoutFixes: a run whose reports read no fix finds the same, with
// no fix attached but the mark of one --fix applies, in every scenario: plain, Helm and CRD workloads,
// images started through wrapper scripts, models baked into images.
func TestWithoutFixes(t *testing.T) {
	fixed := 0
	eachScenario(t, func(t *testing.T, dir string, images engine.ImageOptions, _ func(string) string) {
		with := lintScenario(t, dir, images, nil).Findings
		without := lintScenario(t, dir, images, func(options *engine.Options) { options.WithoutFixes = true }).Findings
		for i := range with {
			if with[i].Fix != nil {
				fixed++
			}
			if with[i].Fix.Applicable(true) {
				with[i].Fix = lint.FixableOnly(with[i].Fix.Safety) // counted by the table, not kept
			} else {
				with[i].Fix = nil
			}
		}
		if !reflect.DeepEqual(with, without) {
			t.Errorf("without fixes:\n%+v\nwant the findings with their fixes removed:\n%+v", without, with)
		}
	})
	if fixed == 0 {
		t.Error("no finding of any scenario has a fix: the test shows nothing")
	}
}
