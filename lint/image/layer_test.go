package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"testing"
)

func TestTextFileFrameworkAndDistMetadata(t *testing.T) {
	cases := map[string]bool{
		"usr/local/lib/python3.11/site-packages/torch/version.py":                               true,
		"usr/lib/python3/dist-packages/torch/version.py":                                        true,
		"usr/local/lib/python3.11/site-packages/tensorflow/python/platform/build_info.py":       true,
		"opt/venv/lib/python3.11/site-packages/onnxruntime/capi/build_and_package_info.py":      true,
		"opt/venv/lib/python3.11/site-packages/numpy-2.1.0.dist-info/WHEEL":                     true,
		"opt/venv/lib/python3.11/site-packages/opencv_python-4.10.0.84.dist-info/top_level.txt": true,
		"opt/venv/lib/python3.11/site-packages/numpy-2.1.0.dist-info/RECORD":                    false,
		"app/numpy-2.1.0.dist-info/WHEEL":                                                       false,
		"app/torch/version.py":                                                                  false,
		"usr/local/lib/python3.11/site-packages/mypkg/version.py":                               false,
	}
	for name, want := range cases {
		if got := textFile(name); got != want {
			t.Errorf("textFile(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestDistMetadataBounded: one layer keeps at most maxDistMetadataFiles
// WHEEL/top_level.txt files, each up to maxDistMetadata bytes; the rest are
// listed and sized with their content not captured.
func TestDistMetadataBounded(t *testing.T) {
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	wheel := []byte("Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_17_x86_64\n")
	add := func(name string, body []byte) {
		if err := writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		writer.Write(body)
	}
	const site = "usr/local/lib/python3.11/site-packages/"
	add(site+"huge-1.0.dist-info/WHEEL", bytes.Repeat([]byte("Tag: x\n"), maxDistMetadata))
	for i := range maxDistMetadataFiles + 10 {
		add(fmt.Sprintf("%spkg%05d-1.0.dist-info/WHEEL", site, i), wheel)
	}
	writer.Close()
	index, err := indexLayer(&buf, &capturePolicy{})
	if err != nil {
		t.Fatal(err)
	}
	captured := 0
	for _, facts := range index.Files {
		if facts.Text != nil {
			captured++
		}
	}
	if captured != maxDistMetadataFiles {
		t.Errorf("captured %d dist-info files, want the bound %d", captured, maxDistMetadataFiles)
	}
	if facts := index.Files[site+"huge-1.0.dist-info/WHEEL"]; facts != nil {
		t.Errorf("a WHEEL over %d bytes was captured", maxDistMetadata)
	}
	if len(index.Entries) != maxDistMetadataFiles+11 {
		t.Errorf("%d entries indexed, want every one", len(index.Entries))
	}
}
