package model

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// checkpointFiles is what tf.compat.v1.train.Saver writes: no SavedModel.
var checkpointFiles = map[string]string{
	"checkpoint":                        `model_checkpoint_path: "model.ckpt"`,
	"model.ckpt.index":                  "index",
	"model.ckpt.data-00000-of-00001":    "data",
	"model.ckpt.meta":                   "graph",
	"README.md":                         "exported by train.py",
	"logs/events.out.tfevents.17000000": "",
}

// loadBothWays loads files (and empty dirs) with options from disk and
// from a MapFS, and fails unless both give the same Model.
func loadBothWays(t *testing.T, files map[string]string, dirs []string, options LoadOptions) *Model {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, files)
	for rel := range files {
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(rel)), 0o644); err != nil {
			t.Fatal(err) // the MapFS's mode, whatever the umask
		}
	}
	fsys := mapFS(files)
	for _, name := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	fromDisk, err := LoadWith(dir, "m", options)
	if err != nil {
		t.Fatal(err)
	}
	fromFS, err := LoadFSWith(fsys, "m", options)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFS, fromDisk) {
		t.Errorf("LoadFSWith and LoadWith differ:\n%s", firstDifference(t, fromFS, fromDisk))
	}
	return fromDisk
}

func TestLoadExpectingTFServing(t *testing.T) {
	expectTFServing := LoadOptions{Expect: LayoutTFServing}
	tests := []struct {
		name    string
		files   map[string]string
		dirs    []string
		ignored []Ignored
		found   []Found
	}{
		{name: "only a checkpoint", files: checkpointFiles,
			ignored: []Ignored{{Name: "logs", IsDir: true, Reason: IgnoredNotNumber}},
			found: []Found{{Format: FormatCheckpoint, Path: "model.ckpt",
				Files: []string{"model.ckpt.data-00000-of-00001", "model.ckpt.index", "model.ckpt.meta"}}}},
		{name: "empty"},
		{name: "only lost+found", dirs: []string{"lost+found"},
			ignored: []Ignored{{Name: "lost+found", IsDir: true, Reason: IgnoredNotNumber}}},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			if m := loadBothWays(t, test.files, test.dirs, LoadOptions{}); m.Layout != LayoutFiles || m.Expected {
				t.Fatalf("without Expect: layout %s, expected %v; want files, as detected", m.Layout, m.Expected)
			}
			m := loadBothWays(t, test.files, test.dirs, expectTFServing)
			if m.Layout != LayoutTFServing || !m.Expected {
				t.Errorf("layout %s, expected %v; want %s, expected", m.Layout, m.Expected, LayoutTFServing)
			}
			if len(m.Versions) != 0 || m.Loose != nil || m.ResidentVersions != 0 || m.ResidentBytes != 0 {
				t.Errorf("versions %+v, loose %+v, resident %d (%d bytes); want none: the server finds no version",
					m.Versions, m.Loose, m.ResidentVersions, m.ResidentBytes)
			}
			if !reflect.DeepEqual(m.Ignored, test.ignored) {
				t.Errorf("ignored %+v, want %+v", m.Ignored, test.ignored)
			}
			if !reflect.DeepEqual(m.Found, test.found) {
				t.Errorf("found %+v, want %+v", m.Found, test.found)
			}
		})
	}
}

func TestLoadExpectingAVersionOfACheckpoint(t *testing.T) {
	files := map[string]string{"1/model.ckpt.index": "index", "1/model.ckpt.data-00000-of-00001": "data"}
	wantFound := []Found{{Format: FormatCheckpoint, Path: "1/model.ckpt",
		Files: []string{"1/model.ckpt.data-00000-of-00001", "1/model.ckpt.index"}}}

	m := loadBothWays(t, files, nil, LoadOptions{Expect: LayoutTFServing})
	if len(m.Versions) != 1 || !m.Versions[0].Resident || m.Versions[0].SavedModel == nil || m.Versions[0].SavedModel.Loadable() {
		t.Fatalf("versions %+v; want version 1, resident, without a SavedModel file", m.Versions)
	}
	if !reflect.DeepEqual(m.Found, wantFound) {
		t.Errorf("found %+v, want %+v", m.Found, wantFound)
	}

	m = loadBothWays(t, files, nil, LoadOptions{Expect: LayoutTriton})
	if m.Layout != LayoutTriton || !m.Expected || m.Triton == nil || len(m.Versions) != 1 || m.Versions[0].ModelFile != "" {
		t.Fatalf("layout %s, triton %+v, versions %+v; want Triton version 1 without a model file", m.Layout, m.Triton, m.Versions)
	}
	if !reflect.DeepEqual(m.Found, wantFound) {
		t.Errorf("found %+v, want %+v", m.Found, wantFound)
	}
}

func TestLoadExpectingKeepsDetectedLayout(t *testing.T) {
	files := map[string]string{"config.json": "{}", "model.safetensors": safetensorsShard("w"), "model.ckpt.index": "index"}
	for _, expect := range []Layout{LayoutTFServing, LayoutTriton} {
		m := loadBothWays(t, files, nil, LoadOptions{Expect: expect})
		if m.Layout != LayoutHuggingFace || m.Expected || m.Found != nil || m.Triton != nil {
			t.Errorf("expecting %s: layout %s, expected %v, found %+v; want the Hugging Face layout the files show",
				expect, m.Layout, m.Expected, m.Found)
		}
		if m.ResidentVersions != 1 || m.WeightBytes != 16 {
			t.Errorf("expecting %s: %d resident versions, %d weight bytes; want the checkpoint as one model of 16 bytes",
				expect, m.ResidentVersions, m.WeightBytes)
		}
	}
}

func TestFoundFormats(t *testing.T) {
	files := map[string]string{
		"export/saved_model.pb":                          "graph",
		"export/fingerprint.pb":                          "fingerprint",
		"export/variables/variables.index":               "index",
		"export/variables/variables.data-00000-of-00001": "data",
		"ckpt/ckpt-2.index":                              "index",
		"ckpt/ckpt-2.data-00000-of-00002":                "data",
		"ckpt/ckpt-2.data-00001-of-00002":                "data",
		"graph.meta":                                     "a graph alone",
		"keras/model.h5":                                 "hdf5",
		"frozen_inference_graph.pb":                      "graph",
		"lite/model.tflite":                              "tflite",
		"torch/model.pt":                                 "weights",
		"README.md":                                      "notes",
		"fingerprint.pb":                                 "not a model",
		"export/assets/vocab.txt":                        "a",
		"export/assets.extra/tf_serving_warmup_requests": "",
	}
	m := loadBothWays(t, files, nil, LoadOptions{Expect: LayoutTFServing})
	want := []Found{
		{Format: FormatCheckpoint, Path: "ckpt/ckpt-2", Files: []string{"ckpt/ckpt-2.data-00000-of-00002", "ckpt/ckpt-2.data-00001-of-00002", "ckpt/ckpt-2.index"}},
		{Format: FormatSavedModel, Path: "export", Files: []string{"export/saved_model.pb"}},
		{Format: FormatGraphDef, Path: "frozen_inference_graph.pb", Files: []string{"frozen_inference_graph.pb"}},
		{Format: FormatKeras, Path: "keras/model.h5", Files: []string{"keras/model.h5"}},
		{Format: FormatTFLite, Path: "lite/model.tflite", Files: []string{"lite/model.tflite"}},
		{Format: FormatWeights, Path: "torch/model.pt", Files: []string{"torch/model.pt"}},
	}
	if !reflect.DeepEqual(m.Found, want) {
		t.Errorf("found %+v,\nwant  %+v", m.Found, want)
	}
}
