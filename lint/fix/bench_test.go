package fix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// BenchmarkFix3kDeployments plans and shows the fixes of a file of 3,000
// Deployments, each getting a startupProbe: --fix and --diff stay linear
// in the edits.
func BenchmarkFix3kDeployments(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "deploy.yaml")
	var source strings.Builder
	var at []int
	for i := range 3000 {
		fmt.Fprintf(&source, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\nspec:\n  replicas: 1\n"+
			"  template:\n    spec:\n      containers:\n        - name: app\n          image: app:1\n", i)
		at = append(at, source.Len())
	}
	if err := os.WriteFile(path, []byte(source.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	var findings []lint.Finding
	probe := editOf(path, source.String(), 0, 0, "          startupProbe:\n            httpGet: {path: /healthz, port: 8080}\n            failureThreshold: 60\n")
	for _, offset := range at {
		probe.Start, probe.End = offset, offset
		findings = append(findings, finding(path, lint.FixSafe, probe))
	}
	roots, err := OpenRoots([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	defer roots.Close()
	for b.Loop() {
		changes, err := Plan(findings, false, roots)
		if err != nil {
			b.Fatal(err)
		}
		if len(changes.Files[0].Fixed) != 3000 || changes.Files[0].Diff() == "" {
			b.Fatal("not every fix was planned")
		}
	}
}
