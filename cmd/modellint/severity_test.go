package main

import (
	"encoding/json"
	"testing"
)

// TestSeverityOverride: a rule's severity set in the config is every one of
// its findings' severity, also of those the rule reports above its default
// (MDL206's request above its limit is an error) or below it (MDL208's tag
// without a digest is info).
func TestSeverityOverride(t *testing.T) {
	code, stdout, stderr := lintArgs(t, "", "--offline", "-f", "json", "testdata/severity-override")
	var report struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	got := map[string]string{}
	for _, finding := range report.Findings {
		got[finding.Rule] = finding.Severity
	}
	if got["MDL206"] != "info" || got["MDL208"] != "error" || code != exitFindings {
		t.Errorf("exit %d, severities %v; want MDL206 info, MDL208 error, exit 1", code, got)
	}
}
