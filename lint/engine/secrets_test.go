package engine

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// TestRunHidesSecrets: the values of Secret objects (data decoded) and of
// --helm-set, and credential query values, are hidden in what a rule
// reports and in skip reasons, but kept in the edit --fix writes.
func TestRunHidesSecrets(t *testing.T) {
	const stringData, data, helmSet = "sEcReT-value-123", "another-secret-456", "hElMsEt-value-789"
	dir := t.TempDir()
	file := filepath.Join(dir, "pod.yaml")
	manifests := `apiVersion: v1
kind: Secret
metadata: {name: s}
stringData: {token: ` + stringData + `}
data: {key: ` + base64.StdEncoding.EncodeToString([]byte(data)) + `}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x:1}]
`
	if err := os.WriteFile(file, []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	quoting := stringData + " " + data + " " + helmSet + " /health?token=abc123"
	rules := []*lint.Rule{
		{ID: "MDL901", Name: "quotes-secrets", Severity: lint.Error, Needs: []lint.Fact{lint.FactManifest}, Check: func(pass *lint.Pass) {
			if pass.Workload() == nil {
				return
			}
			pass.Report(lint.Diagnostic{Severity: lint.Error, Path: "spec.containers[0].image", Message: "message " + quoting,
				Image: lint.ImageLocation{Reference: "registry.example.com/" + stringData},
				Fix: &lint.Fix{Description: "fix " + quoting, Suggestion: "token: " + stringData + "\n",
					Edits: []manifest.Edit{{File: file, Text: "token: " + stringData, Review: manifest.Review{Text: "token: " + stringData}}}}})
		}},
		{ID: "MDL902", Name: "skips", Needs: []lint.Fact{lint.FactManifest}, Check: func(pass *lint.Pass) { pass.Skip("skipped " + quoting) }},
	}
	result, err := Run(Options{Paths: []string{dir}, Rules: rules, Render: RenderOptions{HelmSet: []string{"image.tag=" + helmSet}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Findings) != 1 {
		t.Fatalf("findings %+v", result.Findings)
	}
	finding := result.Findings[0]
	printed := map[string]string{
		"message": finding.Message, "image": finding.Image.Reference, "fix description": finding.Fix.Description,
		"suggestion": finding.Fix.Suggestion, "review": finding.Fix.Edits[0].Review.Text,
	}
	for _, evaluation := range result.Evaluations {
		printed["reason "+evaluation.RuleID] = evaluation.Reason
	}
	for what, text := range printed {
		for _, secret := range []string{stringData, data, helmSet, "abc123"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s %q holds the secret %q", what, text, secret)
			}
		}
	}
	if want := "message [redacted] [redacted] [redacted] /health?token=[redacted]"; finding.Message != want {
		t.Errorf("message %q, want %q", finding.Message, want)
	}
	if got := finding.Fix.Edits[0].Text; got != "token: "+stringData {
		t.Errorf("the edit --fix writes is %q, want the value kept", got)
	}
	if result.Secrets.String(stringData) != redact.Marker {
		t.Error("the result's secrets do not hide the Secret's value, which the reports hide in edits")
	}
}

// TestRedactResultHidesLinks: the model links are hidden whether the
// result holds them whole or makes them a part at a time as they are read
// (a run linted in batches).
func TestRedactResultHidesLinks(t *testing.T) {
	const secret = "sEcReT-value-123"
	secrets := &redact.Set{}
	secrets.Add(secret)
	links := []string{"Deployment/a container server: --model /models/" + secret + " → model models/a (--model flag)"}
	whole := &lint.Result{Links: slices.Clone(links)}
	inParts := &lint.Result{}
	inParts.SetParts(func(yield func([]lint.Finding) bool) {}, func(yield func([]string) bool) { yield(slices.Clone(links)) })
	for name, result := range map[string]*lint.Result{"whole": whole, "in parts": inParts} {
		redactResult(result, secrets)
		read := 0
		for part := range result.LinkParts() {
			for _, link := range part {
				read++
				if strings.Contains(link, secret) {
					t.Errorf("%s: link %q holds the secret", name, link)
				}
			}
		}
		if read != len(links) {
			t.Errorf("%s: %d links read, want %d", name, read, len(links))
		}
	}
}
