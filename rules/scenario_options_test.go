package rules_test

import (
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/engine"
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
//	models: [models/resnet:/models/resnet]    #   --model models/resnet:/models/resnet
//	exclude: [tests/]                         #   --exclude tests/
//	cluster: nodes.yaml                       #   --cluster nodes.yaml
//	grow:                                     # make a file this large (sparse) before linting,
//	  models/big/1/variables/variables.data-00000-of-00001: 2Gi   # in a copy of the scenario
type scenarioOptions struct {
	Paths   []string             `json:"paths"`
	Render  engine.RenderOptions `json:"render"`
	Models  []string             `json:"models"`
	Exclude []string             `json:"exclude"`
	Cluster string               `json:"cluster"`
	Grow    map[string]string    `json:"grow"`
}

// applyScenarioOptions reads options.yaml, when the scenario has one, from
// the working directory (the scenario's).
func applyScenarioOptions(t *testing.T, options *engine.Options) {
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
	options.Exclude = scenario.Exclude
	for _, value := range scenario.Models {
		mapping, err := engine.ParseModelMapping(value)
		if err != nil {
			t.Fatal(err)
		}
		options.Models = append(options.Models, mapping)
	}
	if scenario.Cluster != "" {
		nodes, err := cluster.Read(scenario.Cluster)
		if err != nil {
			t.Fatal(err)
		}
		options.Cluster = nodes
	}
	if len(scenario.Grow) > 0 {
		growInCopy(t, scenario.Grow)
	}
}

// growInCopy copies the scenario (the working directory) to a temporary
// directory, moves there, and makes the named files sparse files of the
// given sizes: multi-GiB models without multi-GiB fixtures.
func growInCopy(t *testing.T, sizes map[string]string) {
	t.Helper()
	copyDir := t.TempDir()
	if err := os.CopyFS(copyDir, os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(copyDir)
	for file, size := range sizes {
		quantity, err := resource.ParseQuantity(size)
		if err != nil {
			t.Fatalf("options.yaml: grow %s: %v", file, err)
		}
		if err := os.Truncate(file, quantity.Value()); err != nil {
			t.Fatal(err)
		}
	}
}
