package image

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/modellint/modellint/lint/image/rootfs"
)

func seedLayer() []byte {
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	for _, h := range []*tar.Header{
		{Name: "bin", Typeflag: tar.TypeSymlink, Linkname: "usr/bin"},
		{Name: "usr/bin/serve", Typeflag: tar.TypeReg, Mode: 0o755, Size: 10},
		{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644, Size: 10},
		{Name: "opt/.wh..wh..opq", Typeflag: tar.TypeReg},
		{Name: "usr/bin/sh", Typeflag: tar.TypeLink, Linkname: "usr/bin/serve"},
	} {
		writer.WriteHeader(h)
		if h.Size > 0 {
			writer.Write([]byte("#!/bin/sh\n"))
		}
	}
	writer.Close()
	return buf.Bytes()
}

// FuzzIndexLayer streams arbitrary bytes as a layer (plain, gzip or zstd,
// sniffed) and merges what it finds: an error or an index, never a panic or
// an allocation beyond the limits.
func FuzzIndexLayer(f *testing.F) {
	f.Add(seedLayer())
	f.Add([]byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		stream, _, err := decompress(context.Background(), bytes.NewReader(data), "")
		if err != nil {
			return
		}
		defer stream.Close()
		policy := &capturePolicy{elfNames: map[string]bool{"serve": true}}
		index, err := indexLayer(stream, policy)
		if err != nil {
			return
		}
		fs := rootfs.New()
		if fs.Apply(0, index.Entries) == nil {
			fs.Walk(func(n *rootfs.Node) { fs.Resolve(n.Path(), true) })
		}
	})
}

// FuzzSaveArchive opens arbitrary bytes as a docker-save tarball.
func FuzzSaveArchive(f *testing.F) {
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	manifest := []byte(`[{"Config":"c.json","RepoTags":["a:1"],"Layers":["l.tar"]}]`)
	writer.WriteHeader(&tar.Header{Name: "manifest.json", Typeflag: tar.TypeReg, Size: int64(len(manifest))})
	writer.Write(manifest)
	writer.WriteHeader(&tar.Header{Name: "l.tar", Typeflag: tar.TypeSymlink, Linkname: "l.tar"})
	writer.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "image.tar")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opened, err := openTarball(file, "a:1")
		if err != nil {
			return
		}
		defer opened.close()
		for _, layer := range opened.layers {
			if reader, err := layer.open(); err == nil {
				reader.Close()
			}
		}
	})
}
