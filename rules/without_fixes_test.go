package rules_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/rules"
)

// TestWithoutFixes: a run whose reports read no fix finds the same, with
// no fix attached.
func TestWithoutFixes(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "examples", "broken"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(withoutFixes bool) []lint.Finding {
		result, err := lint.Run(lint.Options{Paths: []string{dir}, Rules: rules.All(), Now: scenarioToday, WithoutFixes: withoutFixes})
		if err != nil {
			t.Fatal(err)
		}
		return result.Findings
	}
	with, without := run(false), run(true)
	fixed := 0
	for i := range with {
		if with[i].Fix != nil {
			fixed++
		}
		with[i].Fix = nil
	}
	if fixed == 0 {
		t.Fatal("no finding of the broken example has a fix: the test shows nothing")
	}
	if !reflect.DeepEqual(with, without) {
		t.Errorf("without fixes:\n%+v\nwant the findings with their fixes removed:\n%+v", without, with)
	}
}
