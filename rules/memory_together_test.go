package rules_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// TestModelsTogetherReportedOnce: a server that loads three models at
// start gets one finding for them together, not one for each model past
// the second.
func TestModelsTogetherReportedOnce(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "MDL401"))
	result, err := engine.Run(engine.Options{Paths: []string{"."}, Rules: []*lint.Rule{rules.Lookup(rules.All(), "MDL401")}})
	if err != nil {
		t.Fatal(err)
	}
	var together []string
	for _, finding := range result.Findings {
		if strings.Contains(finding.Message, "for the 3 it loads together at start") {
			together = append(together, finding.Location.String()+": "+finding.Message)
		}
	}
	if len(together) != 1 {
		t.Errorf("%d findings for the three models together, want 1:\n%s", len(together), strings.Join(together, "\n"))
	}
}
