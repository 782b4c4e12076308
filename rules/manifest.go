package rules

import "github.com/modellint/modellint/lint"

// manifestRules check the Kubernetes manifests alone (MDL2xx).
var manifestRules = []*lint.Rule{}
