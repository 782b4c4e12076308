package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// bigStream is a stream of documents over splitSize, in the shapes a
// rendered chart has: block and flow style, comments, block scalars, an
// explicit document end, a scalar document.
func bigStream(documents int) string {
	var b strings.Builder
	for i := 0; i < documents; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "---\n# Source: chart/templates/deploy-%d.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m-%d\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          args: [--port, \"8000\"]\n          command:\n            - sh\n            - -c\n            - |\n              echo start\n              exec serve --model /models/%d\n", i, i, i)
		case 1:
			fmt.Fprintf(&b, "--- {apiVersion: v1, kind: Service, metadata: {name: s-%d}, spec: {ports: [{port: 80}]}}\n", i)
		case 2:
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-%d}\ndata:\n  script: |-\n    ----not a marker\n    line %d\n...\n", i, i)
		default:
			fmt.Fprintf(&b, "--- plain scalar %d\n", i)
		}
	}
	return b.String()
}

// TestSplitStreamMatchesWholeParse parses a large stream in parts and whole
// and compares every document: its index, every field's position and its
// value.
func TestSplitStreamMatchesWholeParse(t *testing.T) {
	source := []byte(bigStream(12000))
	if len(source) < splitSize {
		t.Fatalf("the stream is %d bytes, under splitSize", len(source))
	}
	parts := splitStream(source)
	if len(parts) < 4 {
		t.Fatalf("%d parts", len(parts))
	}
	split, err := ParseDocuments("s.yaml", source)
	if err != nil {
		t.Fatal(err)
	}
	whole := parsePart("s.yaml", streamPart{source: source})
	if whole.err != nil || whole.convertErr != nil {
		t.Fatal(whole.err, whole.convertErr)
	}
	if len(split) != len(whole.docs) {
		t.Fatalf("%d documents in parts, %d whole", len(split), len(whole.docs))
	}
	for i, doc := range split {
		want := whole.docs[i]
		if doc.Index != want.Index || !reflect.DeepEqual(doc.fields, want.fields) || !reflect.DeepEqual(doc.Plain(), want.Plain()) {
			t.Fatalf("document %d differs: index %d, want %d; first field at %v, want %v", i, doc.Index, want.Index,
				doc.fields.position(0), want.fields.position(0))
		}
	}
}

// TestSplitStreamErrors: an error in a late part names the file's line, as
// a whole parse does, and document numbers count from the file's start.
func TestSplitStreamErrors(t *testing.T) {
	stream := bigStream(12000)
	lines := strings.Count(stream, "\n")
	broken := stream + "---\napiVersion: v1\nkind: ConfigMap\ndata: {a: [}\n"
	_, err := ParseDocuments("s.yaml", []byte(broken))
	whole := parsePart("s.yaml", streamPart{source: []byte(broken)})
	if err == nil || whole.err == nil || err.Error() != whole.err.Error() {
		t.Fatalf("parts: %v\nwhole: %v", err, whole.err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("s.yaml:%d:", lines+4)) {
		t.Errorf("error %q: want line %d", err, lines+4)
	}
	bomb := stream + "---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	_, err = ParseDocuments("s.yaml", []byte(bomb))
	if want := fmt.Sprintf("s.yaml: document %d: ", 12001); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("alias bomb: %v; want it to start %q", err, want)
	}
}
