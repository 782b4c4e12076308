package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// TestBounds loads files at and past the bounds on documents and values:
// past one, the error names the file, the document and the bound.
func TestBounds(t *testing.T) {
	object := "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: [" + strings.Repeat("a,", MaxDocumentValues-20) + "]}}\n"
	cases := []struct {
		name, source, want string
	}{
		{"documents at the bound", strings.Repeat("---\n", MaxDocuments), ""},
		{"one document more", strings.Repeat("---\n", MaxDocuments+1), fmt.Sprintf("x.yaml: more than %d YAML documents", MaxDocuments)},
		{"values at the bound", object, ""},
		{"the second document past it", "a: 1\n---\n" + strings.Replace(object, "a,", "a,a,a,", 20), fmt.Sprintf("x.yaml: document 2 holds more than %d YAML values", MaxDocumentValues)},
		{"a block mapping past it", "data:\n" + strings.Repeat("  k: v\n", MaxDocumentValues/2), fmt.Sprintf("x.yaml: document 1 holds more than %d YAML values", MaxDocumentValues)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("x.yaml", []byte(c.source))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestValueBudget checks that what is taken waits for what is given back.
func TestValueBudget(t *testing.T) {
	budget := newValueBudget(10)
	first := budget.acquire(8)
	taken := make(chan int)
	go func() { taken <- budget.acquire(20) }()
	select {
	case <-taken:
		t.Fatal("took 10 values with 8 of 10 taken")
	default:
	}
	budget.release(first)
	if n := <-taken; n != 10 {
		t.Errorf("took %d values, want all 10 of the budget", n)
	}
}
