package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// TestImageFlags lints images the ways a user names them: a tarball as a
// PATH, and a manifest's image mapped with --image.
func TestImageFlags(t *testing.T) {
	dir := t.TempDir()
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    "registry.example.com/serving/app:1.0",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/entrypoint.sh"}},
		Layers: []imagetest.LayerSpec{{Files: []imagetest.FileSpec{
			{Path: "/bin/sh", ELF: "stub-amd64"},
			{Path: "/entrypoint.sh", Content: "#!/bin/sh\nexec serve\n", Mode: "0644"},
		}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "app.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	manifest := writeFile(t, dir, "manifests/pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
    - name: app
      image: registry.example.com/serving/app:1.0
`)
	cases := []struct {
		name       string
		args       []string
		want       int
		wantStdout string
		wantStderr string
	}{
		{"tarball as a path", []string{"--no-color", "--no-cache", tarball}, exitFindings, "MDL302", ""},
		{"mapped", []string{"--no-color", "--no-cache", "--image", "registry.example.com/serving/app:1.0=" + tarball, manifest}, exitFindings,
			"7:7       container app: argv[0]", ""},
		{"offline, unmapped", []string{"--no-color", "-v", manifest}, exitClean, "", ""},
		// `modellint ./`: a tarball saved by an earlier step stands for the
		// image its tags name, and is linted at the manifest's lines.
		{"tarball found in the tree", []string{"--no-color", "--no-cache", "-v", dir}, exitFindings,
			"image registry.example.com/serving/app:1.0 is read from " + tarball, ""},
		{"tarball and manifest as paths", []string{"--no-color", "--no-cache", tarball, manifest}, exitFindings,
			"7:7       container app: argv[0]", ""},
		{"bad --image", []string{"--image", "=x", manifest}, exitError, "", "want REF=SOURCE"},
		{"bad --platform", []string{"--platform", "amd64", manifest}, exitError, "", "--platform"},
		{"missing source", []string{"--image", "registry.example.com/serving/app:1.0=" + filepath.Join(dir, "nope.tar"), manifest}, exitError, "",
			"nope.tar: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := lintArgs(t, "", c.args...)
			if code != c.want {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, c.want, stdout, stderr)
			}
			if !strings.Contains(stdout, c.wantStdout) || !strings.Contains(stderr, c.wantStderr) {
				t.Errorf("stdout %q\nstderr %q\nwant %q / %q", stdout, stderr, c.wantStdout, c.wantStderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("stderr is more than one line: %q", stderr)
			}
		})
	}
}

// TestImageOnItsOwnPythonImport lints a tarball given as a PATH: its own
// CMD runs python3 /app/main.py, whose source is fetched by a targeted
// read of its layer, and its import of torch is missing.
func TestImageOnItsOwnPythonImport(t *testing.T) {
	dir := t.TempDir()
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    "registry.example.com/vision/app:1.0",
		Config: imagetest.ConfigSpec{Cmd: []string{"python3", "/app/main.py"}, Env: []string{"PATH=/usr/local/bin:/usr/bin"}},
		Layers: []imagetest.LayerSpec{
			{Files: []imagetest.FileSpec{
				{Path: "/usr/local/bin/python3.11", ELF: "stub-amd64"},
				{Path: "/usr/local/bin/python3", Symlink: "python3.11"},
				{Path: "/usr/local/lib/python3.11/os.py", Content: "import abc\n"},
				{Path: "/usr/local/lib/python3.11/site-packages/numpy/__init__.py", Content: ""},
			}},
			{Files: []imagetest.FileSpec{{Path: "/app/main.py", Content: "import numpy\nimport torch\n"}}},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tarball := filepath.Join(dir, "app.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lintArgs(t, "", "--no-color", "--no-cache", "--disable", "MDL308", tarball)
	if code != exitFindings || !strings.Contains(stdout, "MDL322") || !strings.Contains(stdout, "No module named 'torch'") {
		t.Fatalf("exit %d, want %d with MDL322 for torch\nstdout %s\nstderr %s", code, exitFindings, stdout, stderr)
	}
}
