package engine

import "github.com/modellint/modellint/lint"

// appliesTo reports whether the rule is about this kind of target: model
// rules judge model directories; manifest, image and cross rules judge
// workloads (image rules also an image linted on its own).
func appliesTo(r *lint.Rule, t *lint.Target) bool {
	switch r.Artifact {
	case lint.ArtifactModel:
		return t.Workload == nil && t.Model != nil
	case lint.ArtifactImage:
		return t.Workload != nil || (t.Model == nil && len(t.Images) > 0)
	}
	return t.Workload != nil
}
