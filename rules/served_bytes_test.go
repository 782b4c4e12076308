package rules

import (
	"testing"

	"github.com/modellint/modellint/lint/model"
)

// TestServedBytes covers each source of what a server loads of a model:
// resident versions, exact weights from headers, else every file.
func TestServedBytes(t *testing.T) {
	versions := []model.Version{{Name: "1", Bytes: 20}, {Name: "2", Bytes: 10, Resident: true}}
	for _, c := range []struct {
		name  string
		model model.Model
		bytes int64
		what  string
	}{
		{"a dir without versions, loaded whole", model.Model{Dir: "m", Bytes: 10, ResidentBytes: 10}, 10, "m"},
		{"the resident versions", model.Model{Dir: "m", Bytes: 30, ResidentBytes: 10, Versions: versions}, 10, "m, version 2 resident"},
		{"weights from headers", model.Model{Dir: "m", Bytes: 30, WeightBytes: 20}, 20, "m, weights"},
		{"versions, none resident", model.Model{Dir: "m", Bytes: 30, Versions: versions[:1]}, 30, "m"},
	} {
		bytes, what := servedBytes(&c.model)
		if bytes != c.bytes || what != c.what {
			t.Errorf("%s: %d %q, want %d %q", c.name, bytes, what, c.bytes, c.what)
		}
	}
}
