package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// TestLimitRangeDefaultMemory: MDL205 leaves a server without a memory
// limit to a LimitRange default only when the LimitRange applies to the
// workload's namespace (one that writes no namespace applies to any, and
// a workload that writes none may run in any) and sets a default memory
// limit for containers, or a max, which the LimitRanger then uses as one.
func TestLimitRangeDefaultMemory(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: resnet
%s
spec:
  selector:
    matchLabels: {app: resnet}
  template:
    metadata:
      labels: {app: resnet}
    spec:
      containers:
        - name: serving
          image: tensorflow/serving:2.19.0
          args: [--model_name=resnet, --model_base_path=/models/resnet]
          resources:
            requests: {cpu: "1", memory: 2Gi}
---
`
	const limitRange = `apiVersion: %s
kind: LimitRange
metadata:
  name: defaults
%s
spec:
  limits:
    - type: %s
%s
`
	const serving = "  namespace: serving"
	tests := []struct {
		name                        string
		workloadNS, rangeNS         string
		apiVersion, limitType, sets string
		defaulted                   bool
	}{
		{name: "same namespace", workloadNS: serving, rangeNS: serving, defaulted: true},
		{name: "LimitRange without a namespace", workloadNS: serving, defaulted: true},
		{name: "workload without a namespace", rangeNS: serving, defaulted: true},
		{name: "other namespace", workloadNS: serving, rangeNS: "  namespace: batch"},
		{name: "another API group's LimitRange", workloadNS: serving, rangeNS: serving, apiVersion: "policy.example.com/v1"},
		{name: "a Pod limit", workloadNS: serving, rangeNS: serving, limitType: "Pod"},
		{name: "a max is the default limit", workloadNS: serving, rangeNS: serving, sets: "      max: {memory: 16Gi}", defaulted: true},
		{name: "a default request only", workloadNS: serving, rangeNS: serving, sets: "      defaultRequest: {memory: 2Gi}"},
		{name: "a default CPU limit only", workloadNS: serving, rangeNS: serving, sets: "      default: {cpu: \"2\"}"},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			apiVersion, limitType, sets := test.apiVersion, test.limitType, test.sets
			if apiVersion == "" {
				apiVersion = "v1"
			}
			if limitType == "" {
				limitType = "Container"
			}
			if sets == "" {
				sets = "      default: {memory: 4Gi}"
			}
			manifest := fmt.Sprintf(deployment, test.workloadNS) + fmt.Sprintf(limitRange, apiVersion, test.rangeNS, limitType, sets)
			file := filepath.Join(t.TempDir(), "resnet.yaml")
			if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			result, err := engine.Run(engine.Options{Paths: []string{file}, Rules: []*lint.Rule{rules.Lookup(rules.All(), "MDL205")}})
			if err != nil {
				t.Fatal(err)
			}
			var findings []string
			for _, finding := range result.Findings {
				findings = append(findings, finding.Message)
			}
			skipped := ""
			for _, evaluation := range result.Evaluations {
				if evaluation.Status == lint.StatusSkip {
					skipped = evaluation.Reason
				}
			}
			const reason = "a LimitRange in the linted files sets a default memory limit"
			switch {
			case test.defaulted && (skipped != reason || len(findings) > 0):
				t.Errorf("skipped %q with findings %q, want skipped: %s\n%s", skipped, findings, reason, manifest)
			case !test.defaulted && (len(findings) != 1 || !strings.Contains(findings[0], "sets no memory limit")):
				t.Errorf("findings %q (skipped %q), want the missing limit reported\n%s", findings, skipped, manifest)
			}
		})
	}
}
