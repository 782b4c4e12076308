package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// TestStartEstimateRecorded: MDL402 lists the start it judges in
// Result.Starts, with the numbers of its message, for the reports to draw.
func TestStartEstimateRecorded(t *testing.T) {
	broken := filepath.Join("..", "testdata", "examples", "broken")
	result, err := engine.Run(engine.Options{Paths: []string{broken}, Rules: []*lint.Rule{rules.Lookup(rules.All(), "MDL402")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Starts) != 1 {
		t.Fatalf("%d start estimates, want 1 (the serving container): %+v", len(result.Starts), result.Starts)
	}
	start := result.Starts[0]
	if start.Target != "Deployment/serving/resnet" || start.Container != "serving" || start.ModelBytes <= 0 {
		t.Errorf("start estimate %+v, want the serving container of Deployment/serving/resnet with its model's bytes", start)
	}
	// 12 KiB at 100 MiB/s after 10s of start-up.
	if start.StartupSeconds != 10 || start.LoadMiBPerSecond != 100 || start.LoadSeconds < 10 || start.LoadSeconds > 10.01 {
		t.Errorf("load %.3fs (start-up %gs, %g MiB/s), want 10s at the default estimates", start.LoadSeconds, start.StartupSeconds, start.LoadMiBPerSecond)
	}
	var kinds []string
	for _, probe := range start.Probes {
		kinds = append(kinds, probe.Kind)
		if probe.Kind == "livenessProbe" && probe.Budget() != 30 {
			t.Errorf("livenessProbe budget %ds, want 30 (periodSeconds 10 × failureThreshold 3)", probe.Budget())
		}
	}
	if len(kinds) != 2 || kinds[0] != "livenessProbe" || kinds[1] != "readinessProbe" {
		t.Errorf("probes %v, want livenessProbe and readinessProbe", kinds)
	}
}
