package engine

import (
	"testing"

	"github.com/modellint/modellint/lint"
)

// TestNearestRule: a misspelt rule ID or name is answered with the rule
// meant when one is clearly closest, and with none when the guess would be
// one of several.
func TestNearestRule(t *testing.T) {
	all := []*lint.Rule{
		{ID: "MDL205", Name: "memory-limit-missing"}, {ID: "MDL206", Name: "requests-missing"},
		{ID: "MDL208", Name: "image-tag-mutable"}, {ID: "MDL101", Name: "version-dir-missing"},
	}
	for name, want := range map[string]string{
		"MDL2O8": "MDL208", "mdl2o8": "MDL208", "MDL2088": "MDL208", "MDLI01": "MDL101",
		"memory-limit-mising": "memory-limit-missing", "image-tag-mutabel": "image-tag-mutable",
		"MDL20": "", "MDL999": "", "cpu-limit": "",
	} {
		if got := nearestRule(all, name); got != want {
			t.Errorf("nearestRule(%q) = %q, want %q", name, got, want)
		}
	}
}
