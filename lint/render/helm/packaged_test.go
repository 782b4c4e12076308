package helm

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

// TestPackagedFixtures checks that the packaged dependencies a scenario
// keeps under charts/ hold their sources under testdata/charts/packaged, so
// the archives are never edited by hand; -update packages them again.
func TestPackagedFixtures(t *testing.T) {
	for _, fixture := range []struct{ scenario, name string }{
		{"helm-packaged-library", "nim-library"},
		{"helm-packaged-library", "worker"},
		{"helm-packaged-subchart", "embedder"},
	} {
		name, scenarioCharts := fixture.name, filepath.Join("../../../testdata/scenarios", fixture.scenario, "chart/charts")
		t.Run(name, func(t *testing.T) {
			source, err := loader.Load(filepath.Join(chartsDir, "packaged", name))
			if err != nil {
				t.Fatal(err)
			}
			archive := filepath.Join(scenarioCharts, name+"-"+source.Metadata.Version+".tgz")
			if *update {
				if _, err := chartutil.Save(source, scenarioCharts); err != nil {
					t.Fatal(err)
				}
			}
			packaged, err := loader.Load(archive)
			if err != nil {
				t.Fatalf("%v (run `go test ./lint/render/helm -run TestPackagedFixtures -update`)", err)
			}
			// Save writes Chart.yaml again from its fields (without its
			// comments): the templates, values and metadata are compared.
			if !sameFiles(source.Templates, packaged.Templates) || !reflect.DeepEqual(source.Values, packaged.Values) ||
				!reflect.DeepEqual(source.Metadata, packaged.Metadata) {
				t.Errorf("%s does not hold the files of testdata/charts/packaged/%s (run `go test ./lint/render/helm -run TestPackagedFixtures -update`)", archive, name)
			}
		})
	}
}

func sameFiles(a, b []*chart.File) bool {
	files := map[string][]byte{}
	for _, file := range a {
		files[file.Name] = file.Data
	}
	if len(a) != len(b) {
		return false
	}
	for _, file := range b {
		if data, ok := files[file.Name]; !ok || !bytes.Equal(data, file.Data) {
			return false
		}
	}
	return true
}
