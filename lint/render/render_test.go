package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

const testdata = "../../testdata"

func TestIsChartArchive(t *testing.T) {
	chart, err := loader.Load(filepath.Join(testdata, "charts/serving/tfserving"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive, err := chartutil.Save(chart, dir)
	if err != nil {
		t.Fatal(err)
	}
	notChart := filepath.Join(dir, "logs.tgz")
	if err := os.WriteFile(notChart, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		archive:  true,
		notChart: false,
		filepath.Join(testdata, "charts/serving/tfserving/values.yaml"): false,
	} {
		if got := IsChartArchive(path); got != want {
			t.Errorf("IsChartArchive(%s) = %v, want %v", path, got, want)
		}
	}
}

// TestRenderLintsBasesThroughOverlays gives a base and the two overlays that
// build on it, as a directory walk finds them: the base is linted through
// the overlays only.
func TestRenderLintsBasesThroughOverlays(t *testing.T) {
	serving := filepath.Join(testdata, "kustomize/serving")
	base := filepath.Join(serving, "base")
	files, errs := Render([]string{base, filepath.Join(serving, "overlays/dev"), filepath.Join(serving, "overlays/prod")}, Options{})
	if errs != nil {
		t.Fatal(errs)
	}
	var objects []string
	for _, file := range files {
		if file.Path == base {
			if len(file.Skipped) != 1 || !strings.HasPrefix(file.Skipped[0], "Kustomize base of "+filepath.Join(serving, "overlays/dev")) {
				t.Errorf("base skipped with %q", file.Skipped)
			}
		}
		for _, object := range file.Objects {
			objects = append(objects, object.ID())
		}
	}
	want := "Deployment/serving-dev/dev-bert Service/serving-dev/dev-bert ConfigMap/serving-dev/dev-bert-settings-hc7bhhbkmk " +
		"Deployment/serving-prod/prod-bert Service/serving-prod/prod-bert"
	if got := strings.Join(objects, " "); got != want {
		t.Errorf("objects:\n  %s\nwant:\n  %s", got, want)
	}
}

// TestRenderOneLineErrors: each path that fails is one error, and the
// paths after it are still rendered.
func TestRenderOneLineErrors(t *testing.T) {
	files, errs := Render([]string{filepath.Join(testdata, "kustomize/remote-base"),
		filepath.Join(testdata, "charts/broken/required-value"), filepath.Join(testdata, "kustomize/serving/overlays/prod")}, Options{})
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "is a remote base") || !strings.Contains(errs[1].Error(), "model.name is required") {
		t.Errorf("errors: %v", errs)
	}
	objects := 0
	for _, file := range files {
		objects += len(file.Objects)
		if len(file.Objects) > 0 && file.Unit != 2 {
			t.Errorf("%s: unit %d, want 2 (the third path)", file.Path, file.Unit)
		}
	}
	if objects != 2 {
		t.Errorf("%d objects rendered after the failing paths, want the overlay's 2", objects)
	}
}
