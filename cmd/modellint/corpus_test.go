package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// corpusDir holds real public manifests (KServe samples and runtimes,
// kubernetes/examples). It sits beside the repository, not in it.
const corpusDir = "../../../shared/corpus/manifests"

// approvedCorpusErrors lists the error-level findings on the corpus that a
// reviewer checked and found true. Any other error-level finding is a false
// alarm until proven otherwise.
const approvedCorpusErrors = "testdata/corpus-approved-errors.txt"

func lintCorpus(tb testing.TB) *lint.Result {
	tb.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		tb.Skipf("corpus %s not present (%v): it lives beside the repository in the shared folder", corpusDir, err)
	}
	result, err := engine.Run(engine.Options{Paths: []string{corpusDir}, Rules: rules.All(), Config: &lint.Config{}})
	if err != nil {
		tb.Fatalf("corpus must lint without errors: %v", err)
	}
	return result
}

func TestCorpusNoFalseAlarms(t *testing.T) {
	result := lintCorpus(t)
	counts := map[string]int{}
	var errors []string
	for _, finding := range result.Findings {
		counts[finding.RuleID+" "+finding.Severity.String()]++
		if finding.Severity == lint.Error && !finding.Suppressed() {
			file := strings.TrimPrefix(finding.Location.File, filepath.ToSlash(filepath.Clean(corpusDir))+"/")
			errors = append(errors, fmt.Sprintf("%s %s %s", finding.RuleID, file, finding.Target))
		}
	}
	keys := make([]string, 0, len(counts))
	for key := range counts {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		t.Logf("%-20s %d", key, counts[key])
	}
	t.Logf("%d files, %d findings", len(result.Files), len(result.Findings))

	errors = uniqueSorted(errors)
	if *update {
		content := "# Error-level findings on ../shared/corpus/manifests that were reviewed and are true.\n" +
			"# One per line: rule, file (relative to the corpus), target. Regenerate: go test ./cmd/modellint -update\n" +
			strings.Join(errors, "\n") + "\n"
		if err := os.WriteFile(approvedCorpusErrors, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(approvedCorpusErrors)
	if err != nil {
		t.Fatal(err)
	}
	approved := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			approved[line] = true
		}
	}
	for _, e := range errors {
		if !approved[e] {
			t.Errorf("unreviewed error-level finding on the corpus: %s", e)
		}
		delete(approved, e)
	}
	for e := range approved {
		t.Errorf("approved finding no longer reported (update %s): %s", approvedCorpusErrors, e)
	}
}

func uniqueSorted(items []string) []string {
	sort.Strings(items)
	var out []string
	for i, item := range items {
		if i == 0 || item != items[i-1] {
			out = append(out, item)
		}
	}
	return out
}

func BenchmarkCorpus(b *testing.B) {
	lintCorpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lintCorpus(b)
	}
}
