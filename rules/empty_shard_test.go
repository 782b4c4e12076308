package rules

import (
	"testing"

	"github.com/modellint/modellint/lint/model"
)

// TestEmptyShard: of a SavedModel's two variables shards, the one the
// index stores nothing in may be empty (TensorFlow writes it anyway); the
// one it stores tensors in may not, whatever its neighbour holds.
func TestEmptyShard(t *testing.T) {
	const (
		used   = "1/variables/variables.data-00000-of-00002"
		unused = "1/variables/variables.data-00001-of-00002"
	)
	m := &model.Model{Versions: []model.Version{{SavedModel: &model.SavedModelDir{Dir: "1", File: "1/saved_model.pb",
		Variables: model.Variables{Index: "1/variables/variables.index", Shards: []model.Shard{
			{File: used, Present: true, Need: 20},
			{File: unused, Present: true, Need: 0},
		}}}}}}
	for rel, want := range map[string]bool{used: false, unused: true, "1/variables/variables.data-00002-of-00002": false} {
		if allowed, index := emptyShard(m, rel); allowed != want || index != "" {
			t.Errorf("emptyShard(%s) = %v, %q; want %v, \"\"", rel, allowed, index, want)
		}
	}
}
