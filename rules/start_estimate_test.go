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
	if start.MinStartupSeconds != 60 {
		t.Errorf("minimum start-up %ds, want the default probes.minStartupSeconds, 60", start.MinStartupSeconds)
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

// TestStartEstimateCountsThePull: a start whose image was read begins with
// its pull, the image's stored layer bytes at the download rate.
func TestStartEstimateCountsThePull(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "scenarios", "e2e-liveness-no-startup"))
	if err != nil {
		t.Fatal(err)
	}
	images := loadScenarioImages(t, dir, &scenarioRegistry{parent: t})
	options, _ := images.options(t, "tarball")
	result := lintScenario(t, dir, options, nil)
	if len(result.Starts) != 1 {
		t.Fatalf("%d start estimates, want 1: %+v", len(result.Starts), result.Starts)
	}
	var stored int64
	for _, built := range images.Built {
		for _, img := range built.Images {
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			for _, layer := range layers {
				size, err := layer.Size()
				if err != nil {
					t.Fatal(err)
				}
				stored += size
			}
		}
	}
	start := result.Starts[0]
	pull := float64(stored) / (100 << 20) // the default 100 MiB/s
	if stored == 0 || start.ImageBytes != stored || start.PullMiBPerSecond != 100 || start.PullSeconds != pull {
		t.Errorf("pull of %d bytes at %g MiB/s in %gs, want the image's %d stored bytes at 100 MiB/s in %gs",
			start.ImageBytes, start.PullMiBPerSecond, start.PullSeconds, stored, pull)
	}
}
