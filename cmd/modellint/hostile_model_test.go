package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/model/safetensors"
)

// TestHostileModelBounds lints models and an image built to hold as much
// as their formats allow: each run stays within the time and memory
// limits, ending in the finding or the error that is the right answer.
func TestHostileModelBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of hundreds of MiB")
	}
	dir := repository(t)
	cases := []struct {
		name  string
		build func(dir string) string
		exit  int
		want  string
	}{
		{"safetensors header of 100 MB", hugeSafetensorsHeader, exitClean, ""},
		{"config.pbtxt nested 400,000 deep", deepTritonConfig, exitFindings, "nest deeper than the 100 levels"},
		{"image of 290,000 executables", manyExecutables, exitFindings, "MDL301"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.build(filepath.Join(dir, fmt.Sprint(i)))
			output := runHostile(t, []string{"--no-color", "--no-cache", path}, c.exit)
			if !strings.Contains(output, c.want) {
				t.Errorf("output %q does not contain %q", truncate(output, 4000), c.want)
			}
		})
	}
}

// hugeSafetensorsHeader writes a safetensors file whose header is as long
// as the library accepts, one small tensor after another; the data is a
// hole.
func hugeSafetensorsHeader(dir string) string {
	var header strings.Builder
	header.WriteString("{")
	tensors := 0
	for ; header.Len() < safetensors.MaxHeader-100; tensors++ {
		i := tensors
		if i > 0 {
			header.WriteString(",")
		}
		fmt.Fprintf(&header, `"t%d":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}`, i, 4*i, 4*i+4)
	}
	header.WriteString("}")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "model.safetensors")
	data := binary.LittleEndian.AppendUint64(nil, uint64(header.Len()))
	if err := os.WriteFile(file, append(data, header.String()...), 0o644); err != nil {
		panic(err)
	}
	if err := os.Truncate(file, int64(len(data)+header.Len()+4*tensors)); err != nil {
		panic(err)
	}
	return dir
}

// deepTritonConfig writes a Triton model repository whose config.pbtxt
// opens 400,000 nested messages, within the bound on its size.
func deepTritonConfig(dir string) string {
	model := filepath.Join(dir, "models", "deep")
	os.MkdirAll(filepath.Join(model, "1"), 0o755)
	config := "name: \"deep\"\nplatform: \"onnxruntime_onnx\"\nparameters " +
		strings.Repeat("{ value ", 400_000) + strings.Repeat("}", 400_000) + "\n"
	os.WriteFile(filepath.Join(model, "config.pbtxt"), []byte(config), 0o644)
	os.WriteFile(filepath.Join(model, "1", "model.onnx"), []byte("onnx"), 0o644)
	return filepath.Join(dir, "models")
}

// manyExecutables saves an image whose one layer holds 290,000 empty
// executables and whose entrypoint is missing.
func manyExecutables(dir string) string {
	files := make([]imagetest.FileSpec, 0, 290_000)
	for i := range 290_000 {
		files = append(files, imagetest.FileSpec{Path: fmt.Sprintf("/usr/bin/x%06d", i), Mode: "0755"})
	}
	built, err := imagetest.Build(&imagetest.ImageSpec{
		Ref:    "registry.example.com/many:1",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/serve"}},
		Layers: []imagetest.LayerSpec{{Files: files}},
	}, nil)
	if err != nil {
		panic(err)
	}
	os.MkdirAll(dir, 0o755)
	tarball := filepath.Join(dir, "many.tar")
	if err := imagetest.WriteTarball(tarball, built, ""); err != nil {
		panic(err)
	}
	return tarball
}
