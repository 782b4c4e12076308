package model

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// Format is a kind of model that no serving layout here is made of, found
// in a dir read as the layout its server expects (Model.Found).
type Format string

const (
	// FormatSavedModel is a SavedModel where the layout has none: not in
	// a numeric version dir.
	FormatSavedModel Format = "savedmodel"
	// FormatCheckpoint is a TensorFlow checkpoint, PREFIX.index and
	// PREFIX.data-K-of-N (and PREFIX.meta from tf.compat.v1.train.Saver):
	// the weights, without the signatures a server needs.
	FormatCheckpoint Format = "tensorflow-checkpoint"
	// FormatKeras is a Keras model file (.keras, .h5, .hdf5).
	FormatKeras Format = "keras"
	// FormatGraphDef is a bare GraphDef in a .pb file (a frozen graph).
	FormatGraphDef Format = "graphdef"
	// FormatTFLite is a TFLite model.
	FormatTFLite Format = "tflite"
	// FormatWeights is any other weight file (File.Weight): a pickle, a
	// TensorRT engine, GGUF ...
	FormatWeights Format = "weights"
)

// Found is one model of a Format.
type Found struct {
	Format Format
	// Path is relative to the model dir: a checkpoint's prefix
	// (model.ckpt), a SavedModel's dir, else the file.
	Path string
	// Files are the files it was recognised by, sorted: a checkpoint's
	// parts, a SavedModel's graph file, else the file itself.
	Files []string
}

// checkpointPart matches the files of a TensorFlow checkpoint (the
// tensor bundle of tf.train.Saver and tf.train.Checkpoint): prefix, part.
var checkpointPart = lazyregexp.New(`^(.+)\.(index|meta|data-\d{5}-of-\d{5})$`)

// findModels lists the models in a dir by format. The files of a
// SavedModel found are its own, not models of their own.
func findModels(t *tree) []Found {
	var found []Found
	var savedModelDirs []string
	for _, file := range t.files {
		dir := path.Dir(file.Path)
		if slices.Contains(savedModelFiles, path.Base(file.Path)) && !slices.Contains(savedModelDirs, dir) {
			savedModelDirs = append(savedModelDirs, dir)
			found = append(found, Found{Format: FormatSavedModel, Path: dir, Files: []string{file.Path}})
		}
	}
	inSavedModel := func(rel string) bool {
		for _, dir := range savedModelDirs {
			if strings.HasPrefix(rel, dir+"/") {
				return true
			}
		}
		return false
	}
	checkpoints := map[string]*Found{}
	for _, file := range t.files {
		if inSavedModel(file.Path) {
			continue
		}
		if part := checkpointPart.FindStringSubmatch(file.Path); part != nil {
			checkpoint := checkpoints[part[1]]
			if checkpoint == nil {
				checkpoint = &Found{Format: FormatCheckpoint, Path: part[1]}
				checkpoints[part[1]] = checkpoint
			}
			checkpoint.Files = append(checkpoint.Files, file.Path)
			continue
		}
		format := fileFormat(file)
		if format != "" {
			found = append(found, Found{Format: format, Path: file.Path, Files: []string{file.Path}})
		}
	}
	for _, checkpoint := range checkpoints {
		// A .meta alone is a graph without weights: no checkpoint.
		if slices.ContainsFunc(checkpoint.Files, func(file string) bool { return !strings.HasSuffix(file, ".meta") }) {
			found = append(found, *checkpoint)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Path < found[j].Path })
	return found
}

// fileFormat is the Format of a single-file model, "" for other files.
func fileFormat(file File) Format {
	name := path.Base(file.Path)
	switch strings.ToLower(path.Ext(name)) {
	case ".keras", ".h5", ".hdf5":
		return FormatKeras
	case ".tflite":
		return FormatTFLite
	case ".pb":
		if name != "fingerprint.pb" {
			return FormatGraphDef
		}
		return ""
	}
	if file.Weight {
		return FormatWeights
	}
	return ""
}
