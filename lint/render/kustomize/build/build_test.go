package build

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/kustomize"
	"github.com/modellint/modellint/lint/render/rendertest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	overlays        = "../../../../testdata/kustomize"
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
			rendertest.CheckGolden(t, golden, got, *update, "./lint/render/kustomize/build")
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
	// dir stands for the repository: its root holds .git.
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
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
		{filepath.Join(overlays, "remote-base"), `remote-base/kustomization.yaml:4: resources[0] entry ` +
			`"github.com/modellint/serving-bases//tfserving?ref=v1.2.0" is remote: modellint builds overlays offline and does not fetch it`},
		{filepath.Join(dir, "http"), `http/kustomization.yaml:2: resources[0] entry "https://raw.githubusercontent.com/org/repo/main/deploy.yaml" is remote`},
		{filepath.Join(dir, "git"), `git/kustomization.yaml:2: resources[0] entry "git@github.com:org/serving.git//base" is remote`},
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

// TestSharedBase builds an overlay that reaches one base along several
// paths and spellings: the base is read once, kustomize builds it once per
// path (two prefixed copies of its object), and each copy's fields trace
// to the base's file.
func TestSharedBase(t *testing.T) {
	files, err := Build(filepath.Join(overlays, "shared-base", "top"), "top", "")
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

// Build is Overlay's files, as modellint reads them.
func Build(dir, display, loadRestrictor string) ([]*manifest.File, error) {
	built, err := Overlay(dir, display, "", loadRestrictor)
	if err != nil {
		return nil, err
	}
	files := make([]*manifest.File, len(built))
	for i, b := range built {
		files[i] = b.File
	}
	return files, nil
}

// TestFileNames: the kustomization file names modellint looks for are
// kustomize's own.
func TestFileNames(t *testing.T) {
	if got, want := kustomize.FileNames(), konfig.RecognizedKustomizationFileNames(); !slices.Equal(got, want) {
		t.Errorf("kustomize.FileNames() = %v, kustomize recognises %v", got, want)
	}
}
