package rules_test

import (
	"os"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint"
)

// scenarioOptions is a scenario's options.yaml: what a user would give on the
// command line besides the default PATH ".", e.g.
//
//	paths: [../../charts/serving/tfserving]   # modellint ../../charts/serving/tfserving
//	render:
//	  helmValues: [values-fixed.yaml]         #   --helm-values values-fixed.yaml
//	  helmSet: [replicaCount=3]               #   --helm-set replicaCount=3
//	  releaseName: bert                       #   --release-name bert
//	  namespace: serving                      #   --namespace serving
//	  helmIncludeTests: true                  #   --helm-include-tests
type scenarioOptions struct {
	Paths  []string           `json:"paths"`
	Render lint.RenderOptions `json:"render"`
}

// applyScenarioOptions reads options.yaml, when the scenario has one, from
// the working directory (the scenario's).
func applyScenarioOptions(t *testing.T, options *lint.Options) {
	t.Helper()
	data, err := os.ReadFile("options.yaml")
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var scenario scenarioOptions
	if err := yaml.UnmarshalStrict(data, &scenario); err != nil {
		t.Fatalf("options.yaml: %v", err)
	}
	if len(scenario.Paths) > 0 {
		options.Paths = scenario.Paths
	}
	options.Render = scenario.Render
}
