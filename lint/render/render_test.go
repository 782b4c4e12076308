package render

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	files, _, errs := Render([]string{base, filepath.Join(serving, "overlays/dev"), filepath.Join(serving, "overlays/prod")}, Options{})
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

// TestRenderNeverBuildsAComponentAlone: when an overlay fails to build,
// its base is built on its own and its component is not, whose patch would
// match nothing there; a component no overlay includes is not built either.
func TestRenderNeverBuildsAComponentAlone(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n")
	write("base/kustomization.yaml", "resources: [cm.yaml]\n")
	component := "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - path: patch.yaml\n"
	patch := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {c: d}\n"
	write("components/extra/kustomization.yaml", component)
	write("components/extra/patch.yaml", patch)
	write("components/unused/kustomization.yaml", component)
	write("components/unused/patch.yaml", patch)
	// The overlay's own patch names an object no base has: the build fails.
	write("overlay/kustomization.yaml", "resources: [../base]\ncomponents: [../components/extra]\npatches:\n  - path: missing.yaml\n")
	write("overlay/missing.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: missing}\ndata: {a: b}\n")
	base, extra, unused, overlay := filepath.Join(dir, "base"), filepath.Join(dir, "components/extra"),
		filepath.Join(dir, "components/unused"), filepath.Join(dir, "overlay")

	files, _, errs := Render([]string{base, extra, unused, overlay}, Options{Paths: []string{dir}})
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), overlay) {
		t.Errorf("errors: %v; want the overlay's only", errs)
	}
	skipped := map[string][]string{}
	objects := 0
	for _, file := range files {
		skipped[file.Path] = append(skipped[file.Path], file.Skipped...)
		objects += len(file.Objects)
	}
	if objects != 1 {
		t.Errorf("%d objects, want the base's ConfigMap", objects)
	}
	for path, want := range map[string]string{
		extra:  "Kustomize component of " + overlay + ", which did not build",
		unused: "a Kustomize Component, built only as part of the overlays that include it",
	} {
		if len(skipped[path]) != 1 || !strings.HasPrefix(skipped[path][0], want) {
			t.Errorf("%s skipped with %q, want %q", path, skipped[path], want)
		}
	}
}

// TestRenderOneLineErrors: each path that fails is one error, and the
// paths after it are still rendered.
func TestRenderOneLineErrors(t *testing.T) {
	files, _, errs := Render([]string{filepath.Join(testdata, "kustomize/remote-base"),
		filepath.Join(testdata, "charts/broken/required-value"), filepath.Join(testdata, "kustomize/serving/overlays/prod")}, Options{})
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "is remote") || !strings.Contains(errs[1].Error(), "model.name is required") {
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

// TestRenderOutlivesABound: the paths of a run share one renderer process;
// a path that passes a bound (a template that loops past the deadline, an
// overlay whose aliases expand past the memory bound) ends it and is the
// one reported, and the paths after it are rendered in a new one.
func TestRenderOutlivesABound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("loop/Chart.yaml", "apiVersion: v2\nname: loop\nversion: 0.1.0\n")
	write("loop/templates/cm.yaml", "{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}\n")
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\ndata:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for level := 'b'; level <= 'i'; level++ {
		bomb += fmt.Sprintf("  %c: &%c [%s]\n", level, level, strings.TrimSuffix(strings.Repeat("*"+string(level-1)+", ", 9), ", "))
	}
	write("bomb/cm.yaml", bomb)
	write("bomb/kustomization.yaml", "resources: [cm.yaml]\n")
	paths := []string{filepath.Join(dir, "loop"), filepath.Join(testdata, "kustomize/serving/overlays/prod"),
		filepath.Join(dir, "bomb"), filepath.Join(testdata, "charts/serving/tfserving")}
	// The deadline leaves the healthy paths time on a loaded machine; the
	// bomb passes the memory bound well before it, unless the machine is so
	// loaded that it passes the deadline first, which is a bound too.
	files, _, errs := Render(paths, Options{RenderTimeout: 3 * time.Second})
	passedBound := func(err error, path string) bool {
		return strings.HasPrefix(err.Error(), path+": rendering needed more than 512 MiB of memory") ||
			strings.HasPrefix(err.Error(), path+": rendering did not finish within 3s")
	}
	if len(errs) != 2 || !strings.HasPrefix(errs[0].Error(), paths[0]+": rendering did not finish within 3s") || !passedBound(errs[1], paths[2]) {
		t.Errorf("errors: %v", errs)
	}
	objects := map[int]int{}
	for _, file := range files {
		objects[file.Unit] += len(file.Objects)
	}
	if objects[1] != 2 || objects[3] == 0 {
		t.Errorf("objects by path: %v; want the overlay's 2 and the chart's after the paths that failed", objects)
	}
}

// TestLibraryLogNotes: what Helm's engine and Kustomize log while a path
// renders comes back as notes naming the path, one line each, and the
// standard logger writes where it did before.
func TestLibraryLogNotes(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "linked")
	os.MkdirAll(filepath.Join(chart, "templates"), 0o755)
	os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: linked\nversion: 0.1.0\n"), 0o644)
	os.WriteFile(filepath.Join(chart, "values.yaml"), []byte("a: 1\n"), 0o644)
	os.WriteFile(filepath.Join(chart, "templates", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: linked}\ndata: {a: b}\n"), 0o644)
	overlay := filepath.Join(dir, "vars")
	os.MkdirAll(overlay, 0o755)
	os.WriteFile(filepath.Join(overlay, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"), 0o644)
	os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte("resources: [cm.yaml]\n"+
		"vars:\n- name: UNUSED\n  objref: {kind: ConfigMap, name: settings, apiVersion: v1}\n  fieldref: {fieldpath: data.a}\n"), 0o644)

	var before strings.Builder
	log.SetOutput(&before)
	defer log.SetOutput(os.Stderr)
	_, notes, errs := Render([]string{chart, overlay}, Options{HelmSet: []string{"a.b=1"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []string{
		chart + ": warning: skipped value for linked.a: Not a table.",
		overlay + ": well-defined vars that were never replaced: UNUSED",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n  %s\nwant:\n  %s", strings.Join(notes, "\n  "), strings.Join(want, "\n  "))
	}
	log.Print("after")
	if before.String() != "after\n" && !strings.HasSuffix(before.String(), " after\n") {
		t.Errorf("the standard logger wrote %q, want only what was logged after the render", before.String())
	}
}
