package engine

import (
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// severityKnown lowers an error about a pod that is not all of the pod (a
// kind modellint has no reader for, an override its controller merges into
// another object's) to a warning: what the rest adds (limits, volumes,
// probes) is not known, and an error must mean that the pod fails. Nor is
// it certain then that the pod never becomes Ready.
func severityKnown(finding *lint.Finding, workload *manifest.Workload) {
	if workload != nil && workload.Incomplete && finding.Severity == lint.Error {
		finding.Severity, finding.NeverReady = lint.Warning, false
	}
}
