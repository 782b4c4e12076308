package rules_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// TestLivenessFixEditsPath: on MDL202's fixture, --fix points TorchServe's
// httpGet liveness probe from /models/resnet at /ping, its process health;
// TF Serving's process health is a tcpSocket on its gRPC port, a change of
// probe kind that stays a suggestion, for an httpGet probe and an exec
// probe alike.
func TestLivenessFixEditsPath(t *testing.T) {
	result, err := engine.Run(engine.Options{Paths: []string{filepath.Join("testdata", "MDL202")},
		Rules: []*lint.Rule{rules.Lookup(rules.All(), "MDL202")}})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, finding := range result.Findings {
		if !strings.Contains(finding.Message, "which fails until the model is loaded") {
			continue
		}
		checked++
		if finding.Fix == nil {
			t.Errorf("%s: no fix", finding.Location)
			continue
		}
		var edits []string
		for _, edit := range finding.Fix.Edits {
			edits = append(edits, edit.Text)
		}
		want, health := "", "tcpSocket on port 8500" // TF Serving's gRPC port, --port's default
		if strings.Contains(finding.Message, "(TorchServe)") {
			want, health = "/ping", "httpGet /ping"
		}
		if strings.Join(edits, "|") != want || finding.Fix.Description != "point livenessProbe at process health ("+health+")" {
			t.Errorf("%s: fix %q edits %q, want edits %q and the description naming %s", finding.Location, finding.Fix.Description, edits, want, health)
		}
	}
	if checked != 3 {
		t.Errorf("%d findings of a model check in liveness, want 3 (TF Serving httpGet and exec, TorchServe)", checked)
	}
}
