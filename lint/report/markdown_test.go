package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// TestMarkdownTableCells checks that every row of the findings table has
// exactly four cells, whatever the text: an unescaped "|" or line break
// would shift or split the row.
func TestMarkdownTableCells(t *testing.T) {
	var out bytes.Buffer
	if err := Write(&out, "markdown", hostileResult(), testOptions); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Severity | Count") {
			continue
		}
		unescaped := strings.ReplaceAll(strings.ReplaceAll(line, `\\`, ""), `\|`, "")
		if cells := strings.Count(unescaped, "|") - 1; cells != 4 && cells != 2 {
			t.Errorf("row has %d cells: %s", cells, line)
		}
		if strings.Contains(line, "<script>") {
			t.Errorf("HTML passed through unescaped: %s", line)
		}
		rows++
	}
	if rows == 0 {
		t.Fatalf("no table rows:\n%s", out.String())
	}
}

func TestMarkdownSizeLimit(t *testing.T) {
	result := &lint.Result{Files: []string{"big.yaml"}}
	message := strings.Repeat("x", 1000)
	for i := 0; i < 2000; i++ {
		result.Findings = append(result.Findings, lint.Finding{RuleID: "MDL900", Severity: lint.Error, Message: message,
			Location: lint.Location{File: "big.yaml", Line: i + 1}})
	}
	var out bytes.Buffer
	if err := Write(&out, "markdown", result, testOptions); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 1<<20 {
		t.Errorf("summary is %d bytes, over GitHub's 1 MiB limit", out.Len())
	}
	if !strings.Contains(out.String(), "more findings not shown") {
		t.Error("the summary does not say that findings were left out")
	}
	if !strings.Contains(out.String(), "| error | 2000 |") {
		t.Error("the counts do not include the findings left out of the table")
	}
}
