package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// fixModel writes a TF Serving model dir whose variables are 3 GiB
// (sparse): large enough for MDL401 and MDL402 on the fixtures.
func fixModel(t *testing.T) string {
	t.Helper()
	source := "../../testdata/models/saved_model_half_plus_two_cpu"
	versions, err := filepath.Glob(filepath.Join(source, "*", "saved_model.pb"))
	if err != nil || len(versions) == 0 {
		t.Fatalf("no SavedModel under %s", source)
	}
	dir := filepath.Join(t.TempDir(), "resnet")
	version := filepath.Dir(versions[0])
	for _, name := range []string{"saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001", "assets/foo.txt"} {
		data, err := os.ReadFile(filepath.Join(version, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "1"), name, string(data))
	}
	if err := os.Truncate(filepath.Join(dir, "1", "variables", "variables.data-00000-of-00001"), 3<<30); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFixGolden applies --fix to each fixture under testdata/fix (and to
// its CRLF copy; the model-* ones linked to a 3 GiB model, the unsafe-*
// ones with --unsafe-fixes) and compares the file with after.yaml: only the named
// values change or the new fields appear, comments, quoting, flow style
// and blank lines stay. A second --fix changes nothing, and --diff then
// says so with exit 0.
func TestFixGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/fix/*/before.yaml")
	if err != nil || len(cases) == 0 {
		t.Fatal("no fixtures under testdata/fix")
	}
	model := fixModel(t)
	for _, before := range cases {
		name := filepath.Base(filepath.Dir(before))
		for _, lineEnd := range []string{"\n", "\r\n"} {
			label := name
			if lineEnd == "\r\n" {
				label += "/crlf"
			}
			t.Run(label, func(t *testing.T) {
				read := func(path string) string {
					data, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					return strings.ReplaceAll(string(data), "\n", lineEnd)
				}
				dir := t.TempDir()
				file := writeFile(t, dir, "deploy.yaml", read(before))
				want := read(filepath.Join(filepath.Dir(before), "after.yaml"))
				args := []string{"--offline", "--no-color"}
				if strings.HasPrefix(name, "model-") {
					args = append(args, "--model", model+":/models/resnet")
				}
				if strings.HasPrefix(name, "unsafe-") {
					args = append(args, "--unsafe-fixes")
				}

				code, diff, _ := lintArgs(t, "", append(args, "--diff", dir)...)
				if changes := want != read(before); (code == exitFindings) != changes || (diff != "") != changes {
					t.Errorf("--diff: exit %d, diff %q; want a diff: %v", code, diff, changes)
				}
				if unchanged := read(before); readFile(t, file) != unchanged {
					t.Fatal("--diff changed the file")
				}
				lintArgs(t, "", append(args, "--fix", dir)...)
				if got := readFile(t, file); got != want {
					t.Errorf("after --fix:\n%s\nwant:\n%s", got, want)
				}
				if code, diff, _ := lintArgs(t, "", append(args, "--diff", dir)...); code != exitClean && code != exitFindings || diff != "" {
					t.Errorf("a second --diff: exit %d, diff:\n%s", code, diff)
				}
			})
		}
	}
}

// TestFixBrokenExample fixes the bundled broken example: what remains are
// the findings with no fix that can be applied (listed), and with
// --unsafe-fixes the model is moved into its version dir too.
func TestFixBrokenExample(t *testing.T) {
	for _, test := range []struct {
		unsafe bool
		remain []string
	}{
		// MDL208: the image is not read offline, so there is no digest to
		// pin; MDL101 and MDL202 are unsafe (MDL202's TF Serving probe
		// must change kind: a suggestion); MDL403 repeats MDL101; MDL204,
		// MDL209 and MDL210 need a decision only the user can make.
		{false, []string{"MDL101", "MDL202", "MDL204", "MDL208", "MDL209", "MDL210", "MDL210", "MDL403"}},
		{true, []string{"MDL202", "MDL204", "MDL208", "MDL209", "MDL210", "MDL210"}},
	} {
		dir := filepath.Join(t.TempDir(), "broken")
		if err := os.CopyFS(dir, os.DirFS("../../testdata/examples/broken")); err != nil {
			t.Fatal(err)
		}
		args := []string{"--offline", "--no-color", "--fix", "-f", "json=" + filepath.Join(t.TempDir(), "report.json"), dir}
		if test.unsafe {
			args = append([]string{"--unsafe-fixes"}, args...)
		}
		code, _, stderr := lintArgs(t, "", args...)
		if code != exitFindings || !strings.Contains(stderr, "fixed ") {
			t.Fatalf("--fix: exit %d, stderr %q", code, stderr)
		}
		var report struct {
			Findings []struct{ Rule string }
		}
		if err := json.Unmarshal([]byte(readFile(t, args[len(args)-2][len("json="):])), &report); err != nil {
			t.Fatal(err)
		}
		var remain []string
		for _, finding := range report.Findings {
			remain = append(remain, finding.Rule)
		}
		slices.Sort(remain)
		if !slices.Equal(remain, test.remain) {
			t.Errorf("unsafe %v: after --fix %v remain, want %v", test.unsafe, remain, test.remain)
		}
	}
}

// TestFixHelmValues: in a chart, the fix goes to the values-file line the
// value came from, comment kept; the template is not touched, and what can
// only be added to the template (MDL203's startupProbe) stays a suggestion.
func TestFixHelmValues(t *testing.T) {
	chart := filepath.Join(t.TempDir(), "chart")
	if err := os.CopyFS(chart, os.DirFS("testdata/fix-helm/chart")); err != nil {
		t.Fatal(err)
	}
	template := readFile(t, filepath.Join(chart, "templates", "deployment.yaml"))
	values := readFile(t, filepath.Join(chart, "values.yaml"))
	args := []string{"--offline", "--no-color"}
	if code, _, stderr := lintArgs(t, "", append(args, "--fix", chart)...); code != exitClean || !strings.Contains(stderr, "fixed 1 finding in 1 file") {
		t.Fatalf("--fix: exit %d, stderr %q", code, stderr)
	}
	want := strings.Replace(values, "maxUnavailable: 1  # lowered", "maxUnavailable: 0  # lowered", 1)
	if got := readFile(t, filepath.Join(chart, "values.yaml")); got != want {
		t.Errorf("values.yaml after --fix:\n%s\nwant:\n%s", got, want)
	}
	if readFile(t, filepath.Join(chart, "templates", "deployment.yaml")) != template {
		t.Error("--fix edited the template")
	}
	// What remains is a warning: exit 0 at the default --fail-on error.
	code, stdout, _ := lintArgs(t, "", append(args, "-f", "json", chart)...)
	if code != exitClean || !strings.Contains(stdout, `"rule": "MDL203"`) || !strings.Contains(stdout, `"suggestion": "startupProbe:`) {
		t.Errorf("MDL203 with its suggestion: exit %d\n%s", code, stdout)
	}
	if code, diff, _ := lintArgs(t, "", append(args, "--diff", chart)...); code != exitClean || diff != "" {
		t.Errorf("a second --diff: exit %d\n%s", code, diff)
	}
}

// TestFixPinsDigest: MDL208's fix pins the image to the digest the
// registry resolved it to in this run — the index's for a multi-platform
// image, so nodes of every architecture still pull it.
func TestFixPinsDigest(t *testing.T) {
	registry := imagetest.StartRegistry(t)
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:       "registry.example.com/serving/app:1.0",
		Platforms: []string{"linux/amd64", "linux/arm64"},
		Config:    imagetest.ConfigSpec{Entrypoint: []string{"/usr/bin/serve"}},
		Layers:    []imagetest.LayerSpec{{Files: []imagetest.FileSpec{{Path: "/usr/bin/serve", ELF: "stub-amd64"}}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := registry.Ref("serving/app:1.0")
	if err := imagetest.Push(ref, built); err != nil {
		t.Fatal(err)
	}
	parsed, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	head, err := remote.Head(parsed)
	if err != nil {
		t.Fatal(err)
	}
	if !head.MediaType.IsIndex() {
		t.Fatalf("pushed %s, not an index", head.MediaType)
	}
	dir := t.TempDir()
	file := writeFile(t, dir, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: app}\nspec:\n  containers:\n"+
		"    - name: app\n      image: "+ref+"  # the build under test\n")
	// Registry lookups are off in the tests unless an image is mapped.
	if code, _, stderr := lintArgs(t, "", "--no-color", "--fix", "--image", ref+"=registry", "--cache-dir", t.TempDir(), dir); code == exitError {
		t.Fatalf("--fix: %s", stderr)
	}
	want := "      image: " + ref + "@" + head.Digest.String() + "  # the build under test\n"
	if got := readFile(t, file); !strings.HasSuffix(got, want) {
		t.Errorf("after --fix:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// TestFixKustomizePatch: in an overlay, the fix goes to the patch that set
// the value; the base it patches is not touched.
func TestFixKustomizePatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(dir, os.DirFS("testdata/fix-kustomize")); err != nil {
		t.Fatal(err)
	}
	// A repository checkout: the overlay may read its base beside it.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := readFile(t, filepath.Join(dir, "base", "deploy.yaml"))
	patch := readFile(t, filepath.Join(dir, "overlay", "rollout.yaml"))
	overlay := filepath.Join(dir, "overlay")
	if code, _, stderr := lintArgs(t, "", "--offline", "--no-color", "--fix", overlay); code == exitError || !strings.Contains(stderr, "fixed 1 finding in 1 file") {
		t.Fatalf("--fix: exit %d, stderr %q", code, stderr)
	}
	want := strings.NewReplacer("maxUnavailable: 1  #", "maxUnavailable: 0  #", "maxSurge: 0", "maxSurge: 1").Replace(patch)
	if got := readFile(t, filepath.Join(overlay, "rollout.yaml")); got != want {
		t.Errorf("the patch after --fix:\n%s\nwant:\n%s", got, want)
	}
	if readFile(t, filepath.Join(dir, "base", "deploy.yaml")) != base {
		t.Error("--fix edited the base")
	}
}

// TestFixesRead: the findings keep their fixes for --fix, --diff and the
// reports that show them, and only then.
func TestFixesRead(t *testing.T) {
	cases := []struct {
		formats []string
		fix     fixFlags
		want    bool
	}{
		{[]string{"table"}, fixFlags{}, false},
		{[]string{"table", "junit", "gitlab", "github"}, fixFlags{}, false},
		{[]string{"table"}, fixFlags{apply: true}, true},
		{[]string{"table"}, fixFlags{diff: true}, true},
		{[]string{"table", "json"}, fixFlags{}, true},
		{[]string{"sarif"}, fixFlags{}, true},
		{[]string{"markdown"}, fixFlags{}, true},
	}
	for _, c := range cases {
		var outputs []output
		for _, format := range c.formats {
			outputs = append(outputs, output{format: format})
		}
		if got := fixesRead(outputs, c.fix); got != c.want {
			t.Errorf("fixesRead(%v, %+v) = %v, want %v", c.formats, c.fix, got, c.want)
		}
	}
}
