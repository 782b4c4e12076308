package launch

import (
	"archive/tar"
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
)

// startLayer is a layer with the shapes the start-path resolver follows:
// a PATH lookup through a symlinked directory, a script naming its
// interpreter, an env shebang, a symlink loop and a hard link.
func startLayer() []byte {
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	files := []struct {
		header  tar.Header
		content string
	}{
		{tar.Header{Name: "bin", Typeflag: tar.TypeSymlink, Linkname: "usr/bin"}, ""},
		{tar.Header{Name: "usr/bin/", Typeflag: tar.TypeDir, Mode: 0o755}, ""},
		{tar.Header{Name: "usr/bin/sh", Typeflag: tar.TypeReg, Mode: 0o755}, "\x7fELF\x02\x01\x01"},
		{tar.Header{Name: "usr/bin/env", Typeflag: tar.TypeLink, Linkname: "usr/bin/sh"}, ""},
		{tar.Header{Name: "serve", Typeflag: tar.TypeReg, Mode: 0o755}, "#!/usr/bin/env -S python3 -u\nexec x \"$@\"\n"},
		{tar.Header{Name: "start.sh", Typeflag: tar.TypeReg, Mode: 0o755}, "#!/bin/sh\nexec /serve\n"},
		{tar.Header{Name: "loop", Typeflag: tar.TypeSymlink, Linkname: "loop2"}, ""},
		{tar.Header{Name: "loop2", Typeflag: tar.TypeSymlink, Linkname: "/loop"}, ""},
		{tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644}, "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/:/bin/sh\n"},
	}
	for _, file := range files {
		file.header.Size = int64(len(file.content))
		writer.WriteHeader(&file.header)
		writer.Write([]byte(file.content))
	}
	writer.Close()
	return buf.Bytes()
}

// FuzzAnalyze reads an arbitrary layer as a one-layer image and replays a
// container start from an arbitrary argv[0] through it: the image is
// refused or the start path resolves, never a panic or a hang.
func FuzzAnalyze(f *testing.F) {
	layer := startLayer()
	for _, argv0 := range []string{"start.sh", "/serve", "sh", "/loop", "../bin/env", "", "/bin/"} {
		f.Add(layer, argv0, "/usr/local/bin:/bin")
	}
	f.Fuzz(func(t *testing.T, layerTar []byte, argv0, pathValue string) {
		layer, err := imagetest.NewLayer(layerTar, "none")
		if err != nil {
			return
		}
		built, err := mutate.AppendLayers(empty.Image, layer)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "image.tar")
		if err := tarball.WriteToFile(file, nil, built); err != nil {
			t.Fatal(err)
		}
		img, err := image.Open(context.Background(), file, file, image.Options{Parallelism: 1})
		if err != nil {
			return
		}
		spec := Spec{Argv: []string{argv0, "--port", "8000"}, Env: []string{"PATH=" + pathValue}, WorkingDir: "/"}
		Analyze(img, spec, "amd64")
	})
}
