package model

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/triton"
)

// TritonModel is the Triton side of a model dir.
type TritonModel struct {
	// ConfigFile is config.pbtxt relative to the model dir, "" when the
	// model relies on auto-complete without one.
	ConfigFile  string
	Config      *triton.Config
	ConfigError string
	// ConfigUnread says config.pbtxt's content was not available (it is
	// in Model.Unread): Config is nil with no ConfigError, ModelFiles is
	// nil, and the versions are chosen as without a config (latest 1,
	// auto-complete's file names), a guess rather than the model's policy.
	ConfigUnread bool
	// ModelFiles are the file names a version dir must hold for the
	// model's platform or backend (any one of them), nil when unknown.
	ModelFiles []string
	// MissingSpecific are versions a specific version policy asks for
	// that have no dir.
	MissingSpecific []int64
	// PythonAutoComplete says a resident version's model.py defines
	// auto_complete_config, with which the Python backend adds inputs and
	// outputs to the configuration when it loads the model; also set when
	// such a model.py could not be read.
	PythonAutoComplete bool
	// Repository is the model repository the model dir is in, nil when
	// modellint did not read all of it (the dir linted is the model's own).
	Repository *TritonRepository
}

// PythonBackend names the Python-based backend a Triton model runs on
// ("python", or "vllm", which Triton runs the same way): each of its
// instances is a stub process that talks to the server through a region
// of /dev/shm. "" for other backends, and when it is not known.
func (tm *TritonModel) PythonBackend(m *Model) string {
	config := tm.Config
	if config != nil && (config.Backend == "python" || config.Backend == "vllm") {
		return config.Backend
	}
	if config != nil && (config.Backend != "" || config.Platform != "") {
		return ""
	}
	for _, version := range m.Resident() {
		if path.Base(version.ModelFile) == "model.py" {
			return "python" // auto-complete picks the Python backend for model.py
		}
	}
	return ""
}

// TritonRepository is a Triton model repository read whole: the dir whose
// subdirectories are the models one --model-repository loads.
type TritonRepository struct {
	Dir string
	// Entries are the names of its subdirectories, sorted: the models
	// Triton finds there, whether or not modellint reads them as models.
	Entries []string
	// Models are the entries read as Triton models, by name.
	Models map[string]*Model
}

// Has says the repository holds a model dir of that name.
func (r *TritonRepository) Has(name string) bool {
	i := sort.SearchStrings(r.Entries, name)
	return i < len(r.Entries) && r.Entries[i] == name
}

// MaxRepositoryEntries bounds the entries of a repository dir listed; a
// larger one is not joined.
const MaxRepositoryEntries = 10_000

// JoinTritonRepositories sets the Repository of each Triton model whose
// parent dir whole says modellint read entirely (every model dir in it was
// discovered and loaded among models). Model dirs are as Load displays
// them, relative to the working directory. A repository dir that cannot be
// listed is left unknown.
func JoinTritonRepositories(models []*Model, whole func(dir string) bool) {
	byParent := map[string][]*Model{}
	var parents []string
	for _, m := range models {
		if m.Layout != LayoutTriton || m.Triton == nil {
			continue
		}
		parent := path.Dir(m.Dir)
		if _, ok := byParent[parent]; !ok {
			parents = append(parents, parent)
		}
		byParent[parent] = append(byParent[parent], m)
	}
	for _, parent := range parents {
		if !whole(parent) {
			continue
		}
		entries := subdirs(parent)
		if entries == nil {
			continue
		}
		repository := &TritonRepository{Dir: parent, Entries: entries, Models: map[string]*Model{}}
		for _, m := range byParent[parent] {
			repository.Models[path.Base(m.Dir)] = m
			m.Triton.Repository = repository
		}
	}
}

// subdirs lists the subdirectories of dir and its symlinks, sorted; nil
// when dir cannot be listed or has more than MaxRepositoryEntries entries.
func subdirs(dir string) []string {
	f, err := os.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, err := f.ReadDir(MaxRepositoryEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(entries) > MaxRepositoryEntries {
		return nil
	}
	names := []string{}
	for _, entry := range entries {
		// A symlink is not followed (it may lead out of the tree linted):
		// it may be a model dir, so it counts as one.
		if entry.IsDir() || entry.Type()&os.ModeSymlink != 0 {
			names = append(names, entry.Name())
		}
	}
	sort.Strings(names)
	return names
}

// tritonModelFiles maps a platform or backend to the default model file
// names Triton looks for (triton core's constants.h and the backends).
var tritonModelFiles = map[string][]string{
	"tensorrt_plan":         {"model.plan"},
	"tensorrt":              {"model.plan"},
	"onnxruntime_onnx":      {"model.onnx"},
	"onnxruntime":           {"model.onnx"},
	"pytorch_libtorch":      {"model.pt"},
	"pytorch":               {"model.pt", "model.py"},
	"torch_aoti":            {"model.pt2"},
	"tensorflow_savedmodel": {"model.savedmodel"},
	"tensorflow_graphdef":   {"model.graphdef"},
	"tensorflow":            {"model.savedmodel", "model.graphdef"},
	"python":                {"model.py"},
	"openvino":              {"model.xml"},
	"dali":                  {"model.dali"},
	"vllm":                  {"model.json"},
}

// autoCompleteFiles are the default model file names Triton's
// auto-complete recognizes in a version dir, in its order of preference.
var autoCompleteFiles = []string{"model.plan", "model.onnx", "model.pt", "model.pt2", "model.savedmodel", "model.graphdef", "model.py", "model.xml", "model.dali", "model.json"}

// readTriton reads config.pbtxt and the version dirs of a Triton model.
func (l *loader) readTriton() error {
	m := l.model
	m.Triton = &TritonModel{}
	tm := m.Triton
	if file := l.tree.file("config.pbtxt"); file != nil {
		tm.ConfigFile = file.Path
		if err := l.readTritonConfig(file); err != nil {
			return err
		}
	}
	config := tm.Config
	if config == nil && tm.ConfigError == "" {
		config = &triton.Config{VersionPolicy: triton.VersionPolicy{Kind: "latest", NumVersions: 1}}
	}
	if config != nil {
		switch {
		case config.DefaultModelFilename != "":
			tm.ModelFiles = []string{config.DefaultModelFilename}
		case config.Platform != "":
			tm.ModelFiles = tritonModelFiles[config.Platform]
		case config.Backend != "":
			tm.ModelFiles = tritonModelFiles[config.Backend]
		}
	}
	dirs, _ := l.tree.children("")
	for _, name := range dirs {
		if tritonSkippedDirs[name] {
			continue
		}
		number, reason := tritonVersion(name)
		if reason != "" {
			m.Ignored = append(m.Ignored, Ignored{Name: name, IsDir: true, Reason: reason})
			continue
		}
		version := Version{Name: name, Path: name, Number: number, IsDir: true}
		version.Bytes, version.Files = l.tree.bytesUnder(name)
		version.ModelFile = l.tritonModelFile(name, config)
		if strings.HasSuffix(version.ModelFile, "model.savedmodel") {
			saved, err := l.readSavedModelDir(version.ModelFile)
			if err != nil {
				return err
			}
			version.SavedModel = saved
		}
		m.Versions = append(m.Versions, version)
	}
	sortVersions(m.Versions)
	if config != nil {
		l.selectTritonVersions(config.VersionPolicy)
	}
	for _, version := range m.Resident() {
		if path.Base(version.ModelFile) == "model.py" && l.tree.file(version.ModelFile) != nil {
			tm.PythonAutoComplete = tm.PythonAutoComplete || l.definesAutoComplete(version.ModelFile)
		}
	}
	return nil
}

// maxPythonModel bounds the model.py read for auto_complete_config.
const maxPythonModel = 1 << 20

// definesAutoComplete says a model.py defines auto_complete_config, or
// cannot be read to tell.
func (l *loader) definesAutoComplete(rel string) bool {
	file := l.tree.file(rel)
	if file.LFSPointer || file.Size > maxPythonModel {
		return true
	}
	f, err := l.tree.open(rel)
	if err != nil {
		return true
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxPythonModel))
	if err != nil || l.unread(f) {
		return true
	}
	return bytes.Contains(text, []byte("auto_complete_config"))
}

func (l *loader) readTritonConfig(file *File) error {
	tm := l.model.Triton
	if file.LFSPointer {
		tm.ConfigError = "the file is a Git LFS pointer"
		return nil
	}
	if file.Size > triton.MaxConfig {
		tm.ConfigError = "larger than the 4 MiB modellint reads"
		return nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, triton.MaxConfig))
	if l.unread(f) {
		tm.ConfigUnread = true
		return nil
	}
	if err != nil {
		return l.fileError(file.Path, err)
	}
	config, err := triton.Read(text)
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		tm.ConfigError = modelfile.Reason(err)
		return nil
	}
	tm.Config = config
	return nil
}

// tritonModelFile finds the file Triton loads from a version dir: one of
// the names for the platform (or a compute-capability specific one), or,
// without a platform, any default name auto-complete recognizes.
func (l *loader) tritonModelFile(dir string, config *triton.Config) string {
	candidates := l.model.Triton.ModelFiles
	if config != nil {
		capabilities := make([]string, 0, len(config.CCModelFilenames))
		for capability := range config.CCModelFilenames {
			capabilities = append(capabilities, capability)
		}
		sort.Strings(capabilities)
		for _, capability := range capabilities {
			candidates = append(candidates, config.CCModelFilenames[capability])
		}
	}
	if len(l.model.Triton.ModelFiles) == 0 && (config == nil || config.Platform == "" && config.Backend == "" && config.DefaultModelFilename == "") {
		candidates = append(candidates, autoCompleteFiles...)
	}
	for _, name := range candidates {
		rel := path.Join(dir, name)
		if l.tree.file(rel) != nil || l.tree.isDir(rel) {
			return rel
		}
	}
	return ""
}

// selectTritonVersions marks the versions the policy loads.
func (l *loader) selectTritonVersions(policy triton.VersionPolicy) {
	m := l.model
	// Triton keeps versions in a set: two dirs that read as one number
	// are one version.
	numbers := []int64{}
	byNumber := map[int64][]int{}
	for i, version := range m.Versions {
		if _, ok := byNumber[version.Number]; !ok {
			numbers = append(numbers, version.Number)
		}
		byNumber[version.Number] = append(byNumber[version.Number], i)
	}
	selected := map[int64]bool{}
	switch policy.Kind {
	case "all":
		for _, n := range numbers {
			selected[n] = true
		}
	case "specific":
		for _, n := range policy.Versions {
			if _, ok := byNumber[n]; ok {
				selected[n] = true
			} else {
				m.Triton.MissingSpecific = append(m.Triton.MissingSpecific, n)
			}
		}
	default:
		for i := len(numbers) - 1; i >= 0 && int64(len(selected)) < policy.NumVersions; i-- {
			selected[numbers[i]] = true
		}
	}
	for n := range selected {
		for _, i := range byNumber[n] {
			m.Versions[i].Resident = true
		}
		m.ResidentVersions++
		m.ResidentBytes += m.Versions[byNumber[n][0]].Bytes
	}
}
