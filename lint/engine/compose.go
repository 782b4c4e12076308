package engine

import (
	"fmt"
	"slices"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/compose"
	"github.com/modellint/modellint/lint/crd"
	"github.com/modellint/modellint/lint/manifest"
)

// composedSet reads the files' objects, each workload's typed object
// decoded while the engine works on it (Workload.Hold), and composes the
// pods controllers build from several of them (lint/compose), noting in
// the result what could not be composed. refused are the values the
// schemas of the CRDs (of the files, or crds) refuse.
func composedSet(files []*manifest.File, crds []*manifest.Object, result *lint.Result) (set *manifest.Set, refused []*manifest.InvalidError, err error) {
	set, err = manifest.NewSet(files, manifest.ReleaseTyped())
	if err != nil {
		return nil, nil, err
	}
	// Each composes the pods of one platform's objects.
	for _, composer := range []func(*manifest.Set) ([]string, error){compose.KServe, compose.SeldonServers,
		compose.SeldonDeployments, compose.NIMServices, compose.VLLMRuntimes,
		compose.KubeAIModels, compose.Playgrounds} {
		notes, err := composer(set)
		if err != nil {
			return nil, nil, err
		}
		result.Notes = append(result.Notes, notes...)
	}
	return set, checkCRDs(set, crds, result), nil
}

// checkCRDs judges the custom objects that a CRD of the files (or of
// --crds) defines by that CRD's schema instead of the types modellint
// bundles: it is the version the user runs. Its unknown fields join the
// set's; the values it refuses are returned. A value the bundled types
// already refuse (set.Invalid) is not reported twice.
func checkCRDs(set *manifest.Set, crds []*manifest.Object, result *lint.Result) (refused []*manifest.InvalidError) {
	schemas := crd.Read(append(set.OfKinds("CustomResourceDefinition"), crds...))
	if schemas.Len() == 0 {
		return nil
	}
	invalid := map[string]bool{}
	for _, e := range set.Invalid {
		invalid[e.Object.FullPath(e.Path)] = true
	}
	checked := map[*manifest.Object]bool{}
	var unknown []*manifest.InvalidError
	for _, o := range set.Objects {
		fields, values, ok := schemas.Check(o)
		if !ok {
			continue
		}
		checked[o] = true
		unknown = append(unknown, fields...)
		for _, problem := range values {
			if !invalid[o.FullPath(problem.Path)] {
				refused = append(refused, problem)
			}
		}
	}
	set.Unknown = slices.DeleteFunc(set.Unknown, func(e *manifest.InvalidError) bool { return checked[e.Object] })
	set.Unknown = append(set.Unknown, unknown...)
	result.Notes = append(result.Notes, fmt.Sprintf("%d objects checked against the schemas of the CRDs given (%d "+
		"versions), not modellint's bundled types", len(checked), schemas.Len()))
	return refused
}
