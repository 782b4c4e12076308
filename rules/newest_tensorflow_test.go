package rules

import (
	"testing"

	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/savedmodel"
)

// TestNewestTensorFlow: MDL407 compares the serving image with the newest
// TensorFlow that wrote a resident version, whichever version and graph
// it is in; versions that stay unloaded and unread graphs do not count.
func TestNewestTensorFlow(t *testing.T) {
	version := func(resident bool, tensorflow ...string) model.Version {
		graph := &savedmodel.SavedModel{}
		for _, v := range tensorflow {
			graph.MetaGraphs = append(graph.MetaGraphs, savedmodel.MetaGraph{TensorFlowVersion: v})
		}
		return model.Version{Resident: resident, SavedModel: &model.SavedModelDir{Graph: graph}}
	}
	for _, c := range []struct {
		name     string
		versions []model.Version
		want     string
		parsed   [2]int
	}{
		{"one graph", []model.Version{version(true, "2.11.0")}, "2.11.0", [2]int{2, 11}},
		{"a newer minor in a later graph", []model.Version{version(true, "2.11.0", "2.15.1")}, "2.15.1", [2]int{2, 15}},
		{"an older graph after a newer", []model.Version{version(true, "2.15.1", "2.9.0")}, "2.15.1", [2]int{2, 15}},
		{"a newer major", []model.Version{version(true, "1.15.0"), version(true, "2.1.0")}, "2.1.0", [2]int{2, 1}},
		{"an older major after a newer", []model.Version{version(true, "2.1.0"), version(true, "1.15.5")}, "2.1.0", [2]int{2, 1}},
		{"a version that is not loaded", []model.Version{version(false, "2.16.0"), version(true, "2.11.0")}, "2.11.0", [2]int{2, 11}},
		{"a version without its minor", []model.Version{version(true, "2")}, "", [2]int{}},
		{"an unread graph", []model.Version{{Resident: true, SavedModel: &model.SavedModelDir{}}}, "", [2]int{}},
	} {
		m := &model.Model{Versions: c.versions}
		if got, parsed := newestTensorFlow(m); got != c.want || parsed != c.parsed {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, parsed, c.want, c.parsed)
		}
	}
}
