package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONFormatDocExample keeps the example in docs/json-format.md true:
// read into the report's types and written again, it must not change.
func TestJSONFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "json-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(doc), "```json\n")
	example, _, closed := strings.Cut(rest, "```")
	if !found || !closed {
		t.Fatal("docs/json-format.md has no ```json example")
	}
	decoder := json.NewDecoder(strings.NewReader(example))
	decoder.DisallowUnknownFields()
	var report jsonReport
	if err := decoder.Decode(&report); err != nil {
		t.Fatalf("the example does not match the format: %v", err)
	}
	var again bytes.Buffer
	if err := writeIndentedJSON(&again, report); err != nil {
		t.Fatal(err)
	}
	if again.String() != example {
		t.Errorf("the example is not what modellint writes; it would write:\n%s", again.String())
	}
}
