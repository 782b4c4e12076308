package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/config"
)

// TestConfigIgnoreExpires: a config ignore entry applies up to and on its
// expires: date; after it, the finding is reported again and so is the
// entry (MDL003), at the line it is written on. A date that does not parse
// never suppresses (the loader refuses one; a config made in code may not).
func TestConfigIgnoreExpires(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: x:1}]\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := &lint.Rule{ID: "MDL904", Name: "failing", Severity: lint.Error, Needs: []lint.Fact{lint.FactManifest},
		Check: func(pass *lint.Pass) { pass.Reportf("spec.containers[0].image", "bad image") }}
	expiredRule := &lint.Rule{ID: lint.ExpiredSuppressionRuleID, Name: "suppression-expired", Severity: lint.Warning}
	for name, test := range map[string]struct {
		expires    string
		suppressed bool
		expired    string // the MDL003 message, "" for none
	}{
		"no date":       {"", true, ""},
		"in the future": {"2026-06-30", true, ""},
		"today":         {"2026-01-15", true, ""},
		"yesterday": {"2026-01-14", false,
			"the config ignore entry ignore[0] (rule MDL904, object Pod/p) expired on 2026-01-14, so the findings it matched are reported again"},
		"banana":     {"banana", false, "expired on banana"},
		"no month":   {"2027-13-45", false, "expired on 2027-13-45"},
		"day first":  {"30/06/2027", false, "expired on 30/06/2027"},
		"year short": {"27-06-30", false, "expired on 27-06-30"},
	} {
		t.Run(name, func(t *testing.T) {
			settings := &lint.Config{Path: ".modellint.yaml", Ignore: []config.Ignore{
				{Rule: "MDL904", Object: "Pod/p", Reason: "accepted", Expires: test.expires, Line: 7},
			}}
			result, err := Run(Options{Paths: []string{dir}, Rules: []*lint.Rule{failing, expiredRule}, Config: settings, Now: "2026-01-15"})
			if err != nil {
				t.Fatal(err)
			}
			var got *lint.Finding
			var expired []lint.Finding
			for i, finding := range result.Findings {
				switch finding.RuleID {
				case "MDL904":
					got = &result.Findings[i]
				case lint.ExpiredSuppressionRuleID:
					expired = append(expired, finding)
				}
			}
			if got == nil || got.Suppressed() != test.suppressed {
				t.Errorf("MDL904 finding %+v, want suppressed=%v", got, test.suppressed)
			}
			switch {
			case test.expired == "" && len(expired) > 0:
				t.Errorf("MDL003 %+v, want none", expired)
			case test.expired != "" && (len(expired) != 1 || !strings.Contains(expired[0].Message, test.expired)):
				t.Errorf("MDL003 %+v, want one saying %q", expired, test.expired)
			case test.expired != "":
				if loc := expired[0].Location; loc.File != ".modellint.yaml" || loc.Line != 7 || loc.Path != "ignore[0].expires" ||
					expired[0].Severity != lint.Warning || expired[0].Target != "Pod/p" {
					t.Errorf("MDL003 %+v, want a warning on Pod/p at .modellint.yaml:7 ignore[0].expires", expired[0])
				}
			}
		})
	}
}

// TestAnnotationOfItsOwnWorkload: two deployments side by side under one
// PATH may name a workload alike; each one's ignore annotation applies to
// its own findings only.
func TestAnnotationOfItsOwnWorkload(t *testing.T) {
	dir := t.TempDir()
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n%sspec:\n  containers: [{name: c, image: x:1}]\n"
	annotated := "  annotations:\n    modellint.dev/ignore: \"MDL904 -- accepted here\"\n"
	for sub, annotation := range map[string]string{"a": annotated, "b": ""} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "pod.yaml"), []byte(fmt.Sprintf(pod, annotation)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failing := &lint.Rule{ID: "MDL904", Name: "failing", Severity: lint.Warning, Needs: []lint.Fact{lint.FactManifest},
		Check: func(pass *lint.Pass) { pass.Reportf("spec.containers[0].image", "bad image") }}
	result, err := Run(Options{Paths: []string{dir}, Rules: []*lint.Rule{failing}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, finding := range result.Findings {
		got = append(got, fmt.Sprintf("%s suppressed=%v", filepath.Base(filepath.Dir(finding.Location.File)), finding.Suppressed()))
	}
	if want := "a suppressed=true, b suppressed=false"; strings.Join(got, ", ") != want {
		t.Errorf("findings %v, want %s", got, want)
	}
}
