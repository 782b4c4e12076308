package engine

import (
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/compose"
	"github.com/modellint/modellint/lint/manifest"
)

// composedSet reads the files' objects, each workload's typed object
// decoded while the engine works on it (Workload.Hold), and composes the
// pods controllers build from several of them (lint/compose), noting in
// the result what could not be composed.
func composedSet(files []*manifest.File, result *lint.Result) (*manifest.Set, error) {
	set, err := manifest.NewSet(files, manifest.ReleaseTyped())
	if err != nil {
		return nil, err
	}
	// Each composes the pods of one platform's objects.
	for _, composer := range []func(*manifest.Set) ([]string, error){compose.KServe, compose.SeldonServers} {
		notes, err := composer(set)
		if err != nil {
			return nil, err
		}
		result.Notes = append(result.Notes, notes...)
	}
	return set, nil
}
