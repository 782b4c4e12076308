package model

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/modellint/modellint/internal/fileread"
)

// Layout is the serving layout a model dir is written for.
type Layout string

const (
	// LayoutTFServing is a TF Serving base path: numeric version dirs,
	// each a SavedModel (or the mistake of a SavedModel without them).
	LayoutTFServing Layout = "tensorflow-serving"
	// LayoutTriton is one model of a Triton model repository: config.pbtxt
	// and numeric version dirs holding the platform's model file.
	LayoutTriton Layout = "triton"
	// LayoutHuggingFace is a Hugging Face checkpoint: safetensors (or
	// pytorch_model.bin) shards, config and tokenizer files.
	LayoutHuggingFace Layout = "huggingface"
	// LayoutONNX is a dir of .onnx files (and their external data).
	LayoutONNX Layout = "onnx"
	// LayoutTorchServe is a TorchServe model store of .mar archives.
	LayoutTorchServe Layout = "torchserve"
	// LayoutFiles is anything else: weight files without a known layout.
	LayoutFiles Layout = "files"
)

// Model is what modellint knows about one model directory.
type Model struct {
	Dir    string // as reported: relative to the working directory, forward slashes
	Layout Layout

	// Files are the regular files under Dir (.git excluded), sorted by path.
	Files []File
	// Links are symlinks that point outside Dir or at nothing; they are
	// not followed (a container that mounts only Dir cannot follow them either).
	Links []Link
	// Special are FIFOs, devices and sockets in Dir, which no server can
	// load a model from; they are listed, never opened.
	Special []Special
	// Bytes is the size of all Files.
	Bytes int64

	// Versions are the version dirs (and, for TF Serving, files named like
	// versions), in the server's order: by number, then by name.
	Versions []Version
	// Ignored are the base path's subdirectories the server skips.
	Ignored []Ignored
	// Loose is a SavedModel written directly into a TF Serving base path,
	// where the server never looks for one.
	Loose *SavedModelDir
	// Triton holds config.pbtxt for the triton layout.
	Triton *TritonModel
	// OVMS holds the base paths (and a repository's config.json) of the
	// ovms layout.
	OVMS *OVMSModel
	// MLServer holds the dir's model-settings.json, in any layout (nil
	// without one); a dir of no other layout is LayoutMLServer.
	MLServer *MLServerModel

	// ResidentVersions is how many versions the version policy keeps
	// loaded (TF Serving's default: the latest 1), and ResidentBytes
	// their bytes on disk, which TF Serving's resource estimate counts.
	// A layout without versions is one model: 1, and all its bytes.
	ResidentVersions int
	ResidentBytes    int64
	// UnreadVersions counts the version dirs, the oldest, whose content
	// was not read because the base path holds more than MaxReadVersions:
	// they are listed (name, number, bytes) with SavedModel nil.
	UnreadVersions int
	// WeightBytes and Parameters are exact, from headers (safetensors,
	// variables.index, ONNX), for what the server loads; 0 when unknown,
	// also when a header they need is in Unread.
	WeightBytes int64
	Parameters  int64

	// Safetensors, SafetensorsIndexes, ONNX and Pickles are the weight
	// files whose headers were read; those in Unread are not among them.
	Safetensors        []SafetensorsFile
	SafetensorsIndexes []SafetensorsIndex
	ONNX               []ONNXFile
	Pickles            []PickleFile
	// GGUF are the .gguf files' headers. Their weights are not in
	// WeightBytes: a dir often holds several quantizations of one model,
	// of which the server loads the one it is given.
	GGUF []GGUFFile

	// HFConfig is the dir's Hugging Face config.json; nil when there is
	// none, or it is not one or was not read (in Unread).
	HFConfig *HFConfig

	// Unread are the files (relative paths, sorted) whose content the FS
	// given to LoadFS did not hold where it was read (ErrContentUnavailable):
	// what they would show is unknown, not wrong. SavedModelDir, Variables,
	// Warmup, Fingerprint and TritonModel say so in their Unread fields.
	// Load, which reads a dir on disk, leaves it empty.
	Unread []string

	// Expected says Layout is not what the files show (they show no
	// layout: LayoutFiles) but the one LoadOptions.Expect named: the
	// layout of the server pointed at the dir, which reads it that way.
	Expected bool
	// Found are the models in an Expected dir, of formats the layout is
	// not made of: what it holds instead (e.g. only a TF checkpoint).
	Found []Found
}

// Version is one version of a TF Serving, Triton or OVMS model.
type Version struct {
	// Name is the dir name as on disk, Path its path relative to the model dir.
	Name   string
	Path   string
	Number int64
	// IsDir is false for a file named like a version (TF Serving reads it
	// as a version anyway, and fails to load it).
	IsDir bool
	// Bytes and Files count everything under the version dir: what TF
	// Serving's resource estimator adds up before it loads the version.
	Bytes int64
	Files int
	// Resident says the version policy loads this version.
	Resident bool
	// SavedModel is the version's SavedModel (TF Serving, or Triton's
	// model.savedmodel); nil for other formats.
	SavedModel *SavedModelDir
	// ModelFile is the file or dir Triton's backend loads, relative to
	// the model dir ("" when absent or unknown).
	ModelFile string
}

// Ignored is a base-path entry the server does not load.
type Ignored struct {
	Name   string
	IsDir  bool
	Reason string // Ignored* for Triton; "not a number" for TF Serving
}

// Path joins a path relative to the model dir to Dir, for reports.
func (m *Model) Path(rel string) string {
	if rel == "" {
		return m.Dir
	}
	return path.Join(m.Dir, rel)
}

// File returns the file at a path relative to the model dir, or nil.
func (m *Model) File(rel string) *File {
	i := sort.Search(len(m.Files), func(i int) bool { return m.Files[i].Path >= rel })
	if i < len(m.Files) && m.Files[i].Path == rel {
		return &m.Files[i]
	}
	return nil
}

// IsUnread reports whether a file (a path relative to the model dir) is
// in Unread: its content, and so what it would show, is unknown.
func (m *Model) IsUnread(rel string) bool {
	_, found := slices.BinarySearch(m.Unread, rel)
	return found
}

// Resident returns the versions the policy keeps loaded.
func (m *Model) Resident() []*Version {
	var resident []*Version
	for i := range m.Versions {
		if m.Versions[i].Resident {
			resident = append(resident, &m.Versions[i])
		}
	}
	return resident
}

// lfsPrefix starts every Git LFS pointer file.
var lfsPrefix = []byte("version https://git-lfs.github.com/spec/")

// maxLFSPointer is larger than any LFS pointer (they are ~130 bytes).
const maxLFSPointer = 1024

// MayBeLFSPointer says the file has the size of a Git LFS pointer, so its
// content was read to tell (LFSPointer), or, in Model.Unread, is unknown.
func (f File) MayBeLFSPointer() bool {
	return f.Size >= int64(len(lfsPrefix)) && f.Size <= maxLFSPointer
}

// loader holds one Load's state.
type loader struct {
	tree        *tree
	model       *Model
	unreadFiles map[string]bool
}

// unread records a file whose reads met content the FS does not hold, and
// reports whether they did: the caller then leaves the file's facts unset.
func (l *loader) unread(f *treeFile) bool {
	if f.unavailable {
		l.unreadFiles[f.rel] = true
	}
	return f.unavailable
}

// fileError names the file an I/O error is about.
func (l *loader) fileError(rel string, err error) error {
	return fmt.Errorf("%s: %w", l.model.Path(rel), fileread.Cause(err))
}

// LoadOptions say how to read a model dir.
type LoadOptions struct {
	// Expect is the layout of the server the dir is given to (e.g.
	// LayoutTFServing for a TF Serving container's --model_base_path).
	// A dir whose files show no layout is read as this one, so that the
	// facts are what that server finds there (no version, say); a dir
	// whose files show a layout keeps it. "" expects nothing. Only TF
	// Serving, Triton and OVMS dirs are read differently (their version
	// dirs); for other layouts just Layout and Model.Expected say so.
	Expect Layout
}

// Load reads the facts of a model directory. display is how the dir is
// named in reports. An error means the dir could not be read (not that
// the model is broken: that is a fact in the result).
func Load(dir, display string) (*Model, error) {
	return LoadWith(dir, display, LoadOptions{})
}

// LoadWith is Load with options.
func LoadWith(dir, display string, options LoadOptions) (*Model, error) {
	t, err := walkTree(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, fileread.Cause(err))
	}
	return loadTree(t, display, options)
}

// LoadFS reads the facts of a model directory held in fsys, rooted at the
// dir ("." is the dir itself), as Load does: the listing has the same
// limits, and a symlink is followed when it resolves inside fsys (with
// fs.ReadLinkFS, when fsys implements it); an absolute target, or one
// above the root, is outside the dir. Files must be io.ReaderAt or
// io.Seeker. A file whose open or read fails with ErrContentUnavailable
// does not fail the load: it is in Model.Unread, its facts unknown.
func LoadFS(fsys fs.FS, display string) (*Model, error) {
	return LoadFSWith(fsys, display, LoadOptions{})
}

// LoadFSWith is LoadFS with options.
func LoadFSWith(fsys fs.FS, display string, options LoadOptions) (*Model, error) {
	t, err := walkFS(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, fileread.Cause(err))
	}
	return loadTree(t, display, options)
}

// loadTree reads the facts of a listed model dir, on disk or in an fs.FS.
func loadTree(t *tree, display string, options LoadOptions) (*Model, error) {
	model := &Model{Dir: display}
	l := &loader{tree: t, model: model, unreadFiles: map[string]bool{}}
	if err := l.markLFSPointers(); err != nil {
		return nil, err
	}
	model.Files, model.Links, model.Special = t.files, t.links, t.special
	for _, file := range t.files {
		model.Bytes += file.Size
	}
	model.Layout = detectLayout(t)
	repository := false
	if model.Layout != LayoutTFServing && model.Layout != LayoutTriton && l.sniffOVMSConfig() {
		model.Layout, repository = LayoutOVMS, true
	}
	if model.Layout == LayoutFiles && t.file(mlserverSettingsFile) != nil {
		model.Layout = LayoutMLServer
	}
	if model.Layout == LayoutFiles && options.Expect != "" && options.Expect != LayoutFiles {
		model.Layout, model.Expected = options.Expect, true
		model.Found = findModels(t)
	}
	var err error
	switch model.Layout {
	case LayoutTFServing:
		err = l.readTFServing()
	case LayoutTriton:
		err = l.readTriton()
	case LayoutOVMS:
		err = l.readOVMS(repository)
	}
	if err != nil {
		return nil, err
	}
	if model.Layout != LayoutTFServing && model.Layout != LayoutTriton && model.Layout != LayoutOVMS {
		model.ResidentVersions, model.ResidentBytes = 1, model.Bytes
	}
	if err := l.readWeights(); err != nil {
		return nil, err
	}
	if err := l.readHFConfig(); err != nil {
		return nil, err
	}
	if err := l.readMLServer(); err != nil {
		return nil, err
	}
	l.sumWeights()
	model.Unread = slices.Sorted(maps.Keys(l.unreadFiles))
	return model, nil
}

// markLFSPointers flags small files that are Git LFS pointers.
func (l *loader) markLFSPointers() error {
	head := make([]byte, len(lfsPrefix))
	for i := range l.tree.files {
		file := &l.tree.files[i]
		if !file.MayBeLFSPointer() {
			continue
		}
		f, err := l.tree.open(file.Path)
		if err != nil {
			return l.fileError(file.Path, err)
		}
		n, _ := f.ReadAt(head, 0)
		f.Close()
		file.LFSPointer = !l.unread(f) && bytes.Equal(head[:n], lfsPrefix)
	}
	return nil
}

// detectLayout decides which server a dir is written for from its files.
func detectLayout(t *tree) Layout {
	dirs, files := t.children("")
	has := map[string]bool{}
	for _, name := range files {
		has[name] = true
	}
	if has["config.pbtxt"] {
		return LayoutTriton
	}
	for _, name := range savedModelFiles {
		if has[name] {
			return LayoutTFServing
		}
	}
	for _, name := range dirs {
		if _, ok := tfServingVersion(name); !ok {
			continue
		}
		subdirs, payload := t.children(name)
		// An OpenVINO IR or Paddle model without Triton's config.pbtxt is
		// OVMS's, unless the version also holds another server's file.
		ovms := ovmsPayload(payload)
		for _, file := range append(payload, subdirs...) {
			if tritonPayload[file] && !(ovms && file == "model.xml") {
				return LayoutTriton
			}
			if tfServingPayload[file] {
				return LayoutTFServing
			}
		}
		if ovms {
			return LayoutOVMS
		}
		for _, sub := range subdirs {
			for _, candidate := range savedModelFiles {
				if t.file(path.Join(name, sub, candidate)) != nil {
					return LayoutTFServing // nested one level too deep
				}
			}
		}
	}
	counts := map[string]int{}
	for _, file := range t.files {
		switch ext := path.Ext(file.Path); {
		case ext == ".safetensors", isHuggingFaceFile(path.Base(file.Path)):
			counts["hf"]++
		case ext == ".onnx":
			counts["onnx"]++
		case ext == ".mar":
			counts["mar"]++
		}
	}
	switch {
	case counts["hf"] > 0:
		return LayoutHuggingFace
	case counts["onnx"] > 0:
		return LayoutONNX
	case counts["mar"] > 0:
		return LayoutTorchServe
	}
	return LayoutFiles
}

// savedModelFiles are the names of a SavedModel's graph file.
var savedModelFiles = []string{"saved_model.pb", "saved_model.pbtxt", "saved_model.cpb"}

// tfServingPayload are names in a version dir that mean TF Serving: a
// SavedModel, a TFLite model, or a legacy session bundle.
var tfServingPayload = map[string]bool{
	"saved_model.pb": true, "saved_model.pbtxt": true, "saved_model.cpb": true, "variables": true,
	"model.tflite": true, "export.meta": true,
}

// tritonPayload are Triton's default model file names (triton core's
// constants.h) found in a version dir.
var tritonPayload = map[string]bool{
	"model.plan": true, "model.onnx": true, "model.pt": true, "model.pt2": true, "model.savedmodel": true,
	"model.graphdef": true, "model.py": true, "model.xml": true, "model.dali": true, "model.json": true,
}

func isHuggingFaceFile(name string) bool {
	matched, _ := path.Match("pytorch_model*.bin", name)
	return matched || strings.HasSuffix(name, ".safetensors.index.json") || name == "pytorch_model.bin.index.json"
}

// IsModelDir reports whether dir is a model directory, to be linted as a
// whole: it (or a numeric child, or — for a model copied one level too
// deep — a dir inside a numeric child) holds a model file. Symlinked
// children count as the dirs they point to.
func IsModelDir(dir string) bool { return IsModelDirFS(os.DirFS(dir)) }

// IsModelDirFS is IsModelDir for a dir held in fsys, rooted at the dir.
// Symlinked children count as what fs.Stat finds behind them.
func IsModelDirFS(fsys fs.FS) bool {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return false
	}
	if holdsModel(entries, false) || holdsOVMSConfig(fsys, entries) {
		return true
	}
	examined := 0
	for _, entry := range entries {
		version := entry.Name()
		if _, ok := tfServingVersion(version); !ok || !isDirEntry(fsys, version, entry) {
			continue
		}
		if examined++; examined > maxVersionsExamined {
			break
		}
		inner, err := fs.ReadDir(fsys, version)
		if err != nil {
			continue
		}
		if holdsModel(inner, true) {
			return true
		}
		for _, sub := range inner {
			nested := path.Join(version, sub.Name())
			if !isDirEntry(fsys, nested, sub) {
				continue
			}
			if _, err := fs.Stat(fsys, path.Join(nested, "saved_model.pb")); err == nil {
				return true
			}
		}
	}
	return false
}

// maxVersionsExamined bounds the numeric children IsModelDir opens, so a
// dir of thousands of numbered subdirs costs little to pass over.
const maxVersionsExamined = 64

// isDirEntry reports whether the entry at name is a dir, or a symlink to one.
func isDirEntry(fsys fs.FS, name string, entry fs.DirEntry) bool {
	if entry.IsDir() {
		return true
	}
	if entry.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := fs.Stat(fsys, name)
	return err == nil && info.IsDir()
}

// holdsModel reports whether a dir's entries include a model file; inside
// a version dir the servers' payload names count too.
func holdsModel(entries []fs.DirEntry, versionDir bool) bool {
	for _, entry := range entries {
		name := entry.Name()
		switch {
		case name == "config.pbtxt" || name == "saved_model.pb" || name == "saved_model.pbtxt" || name == "saved_model.cpb":
			return true
		case name == mlserverSettingsFile && !versionDir:
			return true
		case isHuggingFaceFile(name):
			return true
		}
		switch path.Ext(name) {
		case ".safetensors", ".onnx", ".mar", ".gguf":
			return true
		}
		if versionDir && (tfServingPayload[name] || tritonPayload[name] || ovmsPayload([]string{name})) {
			return true
		}
	}
	return false
}
