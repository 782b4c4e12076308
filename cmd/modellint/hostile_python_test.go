package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// TestHostilePythonScale lints images whose Python import path is as long,
// and whose app imports as many missing modules and as deep a package, as
// an image can hold: found within the memory and CPU limits.
func TestHostilePythonScale(t *testing.T) {
	image := func(app pythonApp) func(dir string) []string {
		return func(dir string) []string { return []string{pythonImage(dir, app)} }
	}
	runScaleCases(t, []scaleCase{
		{"20,000 site-packages entries × 3,000 missing imports", image(pythonApp{sitePackages: 20_000, missing: 3_000}), exitFindings, "MDL322", ""},
		{"20,000 import path entries × 3,000 missing imports", image(pythonApp{pathEntries: 20_000, missing: 3_000}), exitFindings, "MDL322", ""},
		{"3,000 missing imports installed for another Python of 20,000 distributions",
			image(pythonApp{missing: 3_000, otherPython: 20_000}), exitFindings, "the packages of another Python", ""},
		{"50,000 missing imports in one module", image(pythonApp{missing: 50_000, inMain: true}), exitFindings, "100 errors", ""},
		{"package 2,000 levels deep", image(pythonApp{depth: 2_000}), exitFindings, "MDL322", ""},
		{"a path of 4,097 bytes", image(pythonApp{depth: 2_045}), exitError, "a path of 4097 bytes, longer than the 4096 Linux resolves", ""},
	})
}

// pythonApp is what pythonImage puts in an image beside CPython 3.11.
type pythonApp struct {
	// sitePackages modules in its site-packages, and a .pth file adding
	// pathEntries directories to the import path.
	sitePackages, pathEntries int
	// missing modules the app imports, a hundred in each module of /app
	// main.py imports (as many as are reported of one module), or all in
	// main.py (inMain); with otherPython, they are installed for Python
	// 3.10, beside that many distributions.
	missing, otherPython int
	inMain               bool
	// depth is how deep a package in /app nests, whose last module main.py
	// imports and which imports a missing one.
	depth int
}

// pythonImage saves an image whose entrypoint runs /app/main.py with
// CPython 3.11.
func pythonImage(dir string, app pythonApp) string {
	files := []imagetest.FileSpec{
		{Path: "/usr/local/bin/python3.11", ELF: "stub-amd64"},
		{Path: "/usr/local/bin/python3", Symlink: "python3.11"},
		{Path: "/usr/local/lib/python3.11/os.py", Content: "import abc\n"},
		{Path: "/usr/local/lib/python3.11/lib-dynload/", Dir: true},
	}
	for i := range app.sitePackages {
		files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/usr/local/lib/python3.11/site-packages/installed%05d.py", i)})
	}
	if app.pathEntries > 0 {
		var pth strings.Builder
		for i := range app.pathEntries {
			fmt.Fprintf(&pth, "/opt/path%05d\n", i)
			files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/opt/path%05d/", i), Dir: true})
		}
		files = append(files, imagetest.FileSpec{Path: "/usr/local/lib/python3.11/site-packages/paths.pth", Content: pth.String()})
	}
	var main, module strings.Builder
	for i := range app.missing {
		if app.inMain {
			fmt.Fprintf(&main, "import missing%05d\n", i)
		} else {
			fmt.Fprintf(&module, "import missing%05d\n", i)
		}
		if !app.inMain && (i%100 == 99 || i == app.missing-1) {
			fmt.Fprintf(&main, "import module%03d\n", i/100)
			files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/app/module%03d.py", i/100), Content: module.String()})
			module.Reset()
		}
		if app.otherPython > 0 {
			files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/usr/lib/python3.10/site-packages/missing%05d.py", i)})
		}
	}
	for i := range app.otherPython {
		files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/usr/lib/python3.10/site-packages/dist%05d-1.0.dist-info/", i), Dir: true})
	}
	if app.depth > 0 {
		parts := make([]string, app.depth)
		for i := range parts {
			parts[i] = "p"
			files = append(files, imagetest.FileSpec{Path: "/app/" + strings.Join(parts[:i+1], "/") + "/__init__.py"})
		}
		files = append(files, imagetest.FileSpec{Path: "/app/" + strings.Join(parts, "/") + "/leaf.py", Content: "import missing_leaf\n"})
		fmt.Fprintf(&main, "import %s.leaf\n", strings.Join(parts, "."))
	}
	files = append(files, imagetest.FileSpec{Path: "/app/main.py", Content: main.String()})
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref: "registry.example.com/python-app:1",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"python3", "/app/main.py"}, WorkingDir: "/app",
			Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}},
		Layers: []imagetest.LayerSpec{{Files: files}},
	}, nil)
	if err != nil {
		panic(err)
	}
	tarball := filepath.Join(dir, "python-app.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		panic(err)
	}
	return tarball
}
