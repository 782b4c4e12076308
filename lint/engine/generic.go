package engine

import (
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// severityKnown lowers an error about a pod that is not all of the pod (a
// kind modellint has no reader for, an override its controller merges into
// another object's) to a warning: what the rest adds (limits, volumes,
// probes) is not known, and an error must mean that the pod fails. So is
// an error found in a pod its controller is assumed to build (a KAITO
// preset's: the release installed may build another), but not one at the
// user's own fields (path, relative to the workload's object).
func severityKnown(finding *lint.Finding, workload *manifest.Workload, path string) {
	if workload == nil || finding.Severity != lint.Error {
		return
	}
	if workload.Incomplete || workload.AssumedAt(path) {
		// Not known to fail, so not known to keep the pod from Ready.
		finding.Severity, finding.NeverReady = lint.Warning, false
	}
}
