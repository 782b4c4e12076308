package rules_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// neverReadyText is what the message of a finding that keeps the pod from
// ever becoming Ready says: a check that cannot pass, a pod the API server
// rejects, a container that never starts.
var neverReadyText = regexp.MustCompile(`never becomes Ready|rejects the pod|never reach it|stays in CreateContainerConfigError|stays in ContainerCreating`)

// TestNeverReady: over the fixtures of the rules that mark findings
// NeverReady (for the start chart to draw), exactly the certain findings
// whose message says the pod never becomes Ready are marked; a liveness
// probe that restarts the container, a claim that may be created later,
// a Secret that may live elsewhere are not.
func TestNeverReady(t *testing.T) {
	for _, id := range []string{"MDL204", "MDL209", "MDL210", "MDL403", "MDL404", "MDL413"} {
		t.Run(id, func(t *testing.T) {
			dir := filepath.Join("testdata", id)
			result, err := engine.Run(engine.Options{Paths: []string{dir}, Rules: []*lint.Rule{rules.Lookup(rules.All(), id)}})
			if err != nil {
				t.Fatal(err)
			}
			marked := 0
			for _, finding := range result.Findings {
				if finding.RuleID != id {
					continue
				}
				want := finding.Severity == lint.Error && neverReadyText.MatchString(finding.Message)
				if finding.NeverReady != want {
					t.Errorf("%s: NeverReady %t, want %t: %s", finding.Location, finding.NeverReady, want, finding.Message)
				}
				if finding.NeverReady {
					marked++
				}
			}
			if marked == 0 {
				t.Errorf("no %s finding of %s is marked NeverReady", id, dir)
			}
		})
	}
}

// TestNeverReadyBroken: of the findings on the broken example, the
// readinessProbe on a port nothing listens on (MDL204) and the volumeMount
// of no volume (MDL210) keep the pod from becoming Ready; the claim not in
// the files (MDL210, info) and the short liveness budget (MDL203) do not.
func TestNeverReadyBroken(t *testing.T) {
	broken := filepath.Join("..", "testdata", "examples", "broken")
	result, err := engine.Run(engine.Options{Paths: []string{broken}, Rules: rules.All()})
	if err != nil {
		t.Fatal(err)
	}
	var marked []string
	for _, finding := range result.Findings {
		if finding.NeverReady {
			marked = append(marked, finding.RuleID+" "+finding.Severity.String())
		}
	}
	want := []string{"MDL209 error", "MDL204 error", "MDL210 error"}
	if len(marked) != len(want) {
		t.Fatalf("findings marked NeverReady: %v, want %v", marked, want)
	}
	for i := range want {
		if marked[i] != want[i] {
			t.Errorf("findings marked NeverReady: %v, want %v", marked, want)
			break
		}
	}
}
