package engine

import (
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// severityKnown lowers an error about a pod read generically (a kind
// modellint has no reader for) to a warning: what its controller adds to
// the pod (limits, volumes, probes) is not known, and an error must mean
// that the pod fails.
func severityKnown(finding *lint.Finding, workload *manifest.Workload) {
	if workload != nil && workload.Generic && finding.Severity == lint.Error {
		finding.Severity = lint.Warning
	}
}
