package kustomize

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/render/rendertest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	overlays        = "../../../testdata/kustomize"
	overlaysDisplay = "kustomize"
)

func TestBuildLocations(t *testing.T) {
	for _, overlay := range []string{"serving/overlays/prod", "serving/overlays/dev", "serving/base", "inline-patches"} {
		t.Run(overlay, func(t *testing.T) {
			files, err := Build(filepath.Join(overlays, overlay), overlaysDisplay+"/"+overlay, "")
			if err != nil {
				t.Fatal(err)
			}
			got := rendertest.Locations(files)
			golden := filepath.Join("testdata", strings.ReplaceAll(overlay, "/", "-")+".golden")
			rendertest.CheckGolden(t, golden, got, *update, "./lint/render/kustomize")
		})
	}
}

// TestBuildDeterministic builds twice: objects and placements must not change.
func TestBuildDeterministic(t *testing.T) {
	build := func() string {
		files, err := Build(filepath.Join(overlays, "serving/overlays/prod"), "prod", "")
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, file := range files {
			for _, object := range file.Objects {
				fmt.Fprintf(&out, "%v\n", object.Plain())
			}
		}
		return out.String() + rendertest.Locations(files)
	}
	if first, second := build(), build(); first != second {
		t.Error("the overlay builds differently the second time")
	}
}

// TestBuildLeavesNoOriginAnnotation checks that the annotation asked for to
// trace objects is not left on them: the objects are those kustomize build
// writes.
func TestBuildLeavesNoOriginAnnotation(t *testing.T) {
	files, err := Build(filepath.Join(overlays, "serving/overlays/prod"), "prod", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		for _, object := range file.Objects {
			if _, ok := object.Lookup("metadata", "annotations", "config.kubernetes.io/origin"); ok {
				t.Errorf("%s keeps the origin annotation", object.ID())
			}
		}
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("missing/kustomization.yaml", "resources: [../nowhere]\n")
	write("http/kustomization.yaml", "resources:\n  - https://raw.githubusercontent.com/org/repo/main/deploy.yaml\n")
	write("git/kustomization.yaml", "resources:\n  - git@github.com:org/serving.git//base\n")
	write("cycle/kustomization.yaml", "resources: [../cycle]\n")
	write("malformed/kustomization.yaml", "resources: [a\n")
	write("unknown-field/kustomization.yaml", "resources: [pod.yaml]\nfrobnicate: true\n")
	write("unknown-field/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
	write("helm/kustomization.yaml", "resources: []\nhelmCharts:\n  - name: triton\n    repo: https://charts.example.com\n")
	cases := []struct{ dir, want string }{
		{filepath.Join(overlays, "remote-base"), "remote-base/kustomization.yaml: resources entry " +
			"github.com/modellint/serving-bases//tfserving?ref=v1.2.0 is a remote base: modellint builds overlays offline and does not fetch it"},
		{filepath.Join(dir, "http"), "http/kustomization.yaml: resources entry https://raw.githubusercontent.com/org/repo/main/deploy.yaml is a remote base"},
		{filepath.Join(dir, "git"), "git/kustomization.yaml: resources entry git@github.com:org/serving.git//base is a remote base"},
		{filepath.Join(dir, "missing"), "missing/kustomization.yaml: resources entry ../nowhere: no such file or directory"},
		{filepath.Join(dir, "cycle"), "cycle/kustomization.yaml: includes itself"},
		{filepath.Join(dir, "malformed"), "malformed/kustomization.yaml:1: invalid YAML"},
		{filepath.Join(dir, "unknown-field"), "unknown-field/kustomization.yaml: invalid Kustomization"},
		{filepath.Join(dir, "helm"), "helm/kustomization.yaml:2: helmCharts inflates a chart with the helm binary, which modellint does not run"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			_, err := Build(c.dir, filepath.Base(c.dir), "")
			if err == nil {
				t.Fatal("built without error")
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error:\n  %s\nwant one line starting with:\n  %s", err, c.want)
			}
		})
	}
}

func TestIncludes(t *testing.T) {
	included, err := Includes(filepath.Join(overlays, "serving/overlays/prod"))
	if err != nil {
		t.Fatal(err)
	}
	serving, err := filepath.Abs(filepath.Join(overlays, "serving"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(serving, "base"), filepath.Join(serving, "components/gpu")}
	if !slices.Equal(included, want) {
		t.Errorf("Includes = %v, want %v", included, want)
	}
}

func TestIsRemote(t *testing.T) {
	for entry, want := range map[string]bool{
		"../../base":                        false,
		"deployment.yaml":                   false,
		".hidden/base":                      false,
		"github.com/org/repo//base?ref=v1":  true,
		"https://example.com/deploy.yaml":   true,
		"git@github.com:org/repo.git//base": true,
		"gitlab.com/org/repo/base":          true,
	} {
		if got := isRemote(entry); got != want {
			t.Errorf("isRemote(%q) = %v, want %v", entry, got, want)
		}
	}
}

// TestSharedBase builds an overlay that reaches one base along several
// paths and spellings: the base is read once, kustomize builds it once per
// path (two prefixed copies of its object), and each copy's fields trace
// to the base's file.
func TestSharedBase(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base/kustomization.yaml", "resources: [pod.yaml]\n")
	write("base/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: serve:1}]\n")
	write("a/kustomization.yaml", "namePrefix: a-\nresources: [../base]\n")
	write("b/kustomization.yaml", "namePrefix: b-\nresources: [./../base/]\n")
	write("top/kustomization.yaml", "resources: [../a, ../b/]\n")

	walk := newTreeWalk()
	root, err := readTree(filepath.Join(dir, "top"), "top", nil, walk)
	if err != nil {
		t.Fatal(err)
	}
	if len(walk.read) != 4 || root.builds != 5 {
		t.Errorf("read %d kustomizations counting %d builds, want 4 and 5", len(walk.read), root.builds)
	}
	files, err := Build(filepath.Join(dir, "top"), "top", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sources := 0
	for _, file := range files {
		for _, object := range file.Objects {
			names = append(names, file.Path+":"+object.Name)
		}
		if file.Path == "base/kustomization.yaml" {
			sources++
		}
	}
	if want := []string{"base/pod.yaml:a-p", "base/pod.yaml:b-p"}; !slices.Equal(names, want) {
		t.Errorf("objects %v, want %v", names, want)
	}
	if sources != 1 {
		t.Errorf("base/kustomization.yaml listed %d times among the source files, want once", sources)
	}
}

// TestBuildBudget refuses a chain whose levels each list the next under
// eight spellings before kustomize would build the bottom 8^n times,
// having read each directory once.
func TestBuildBudget(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "l0"), 0o755)
	os.WriteFile(filepath.Join(dir, "l0", "kustomization.yaml"), []byte("namePrefix: x-\n"), 0o644)
	for level := 1; level <= 10; level++ {
		below := fmt.Sprintf("l%d", level-1)
		spellings := []string{"../" + below, "../" + below + "/", "./../" + below, "../" + below + "/.", "../" + below + "//",
			"./../" + below + "/", "../../" + filepath.Base(dir) + "/" + below, "../" + below + "/./"}
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("l%d", level)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("l%d", level), "kustomization.yaml"), []byte("resources:\n- "+strings.Join(spellings, "\n- ")+"\n"), 0o644)
	}
	walk := newTreeWalk()
	_, err := readTree(filepath.Join(dir, "l10"), "l10", nil, walk)
	if budget, ok := err.(*buildBudgetError); !ok || budget.at != "l4/kustomization.yaml" {
		t.Errorf("error %v, want the budget passed at l4/kustomization.yaml", err)
	}
	_, err = Build(filepath.Join(dir, "l10"), "l10", "")
	want := "l10/kustomization.yaml: the overlay builds more than 1000 kustomizations counted along every path, passing the bound at l4/kustomization.yaml"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want one starting %q", err, want)
	}
	if len(walk.read) != 4 {
		t.Errorf("read %d kustomizations, want 4 (l0 to l3) before l4 passed the budget", len(walk.read))
	}
}
