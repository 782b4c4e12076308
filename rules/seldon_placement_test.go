package rules_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// TestModelUnschedulableMemoryCause: a pinned Model's memory finding names,
// as its related location, the server container's resources that set what
// each replica offers (here written by the Server's ServerConfig, so the
// Server's serverConfig line).
func TestModelUnschedulableMemoryCause(t *testing.T) {
	dir := filepath.Join("testdata", "MDL221")
	result, err := engine.Run(engine.Options{Paths: []string{dir}, Rules: []*lint.Rule{rules.Lookup(rules.All(), "MDL221")}})
	if err != nil {
		t.Fatal(err)
	}
	memory := 0
	for _, finding := range result.Findings {
		if !strings.Contains(finding.Message, "the Model asks for") {
			continue
		}
		memory++
		const want = `the memory of Server small's mlserver container`
		if len(finding.Related) != 1 || finding.Related[0].Message != want || finding.Related[0].Line == 0 {
			t.Errorf("%s: related %+v, want one line: %q", finding.Location, finding.Related, want)
		}
	}
	if memory != 2 {
		t.Errorf("%d memory findings of a pinned Model in %s, want 2 (beyond the offer, beyond the limit)", memory, dir)
	}
}
