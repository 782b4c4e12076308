package engine

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render"
)

// inputs is what discovery found under the PATHs.
type inputs struct {
	manifests []*manifest.File
	// modelDirs are model directories, linted as a whole (their JSON files
	// are model metadata, not manifests).
	modelDirs []string
	// modelUnits is the unit (PATH argument) each model dir was found in.
	modelUnits map[string]int
	// renderDirs are Helm charts (directories or packaged .tgz) and
	// Kustomize overlays, rendered as a unit.
	renderDirs []string
	// imageSources are image tarballs or OCI layouts named as PATHs.
	imageSources []string
	// errors are the inputs that could not be read or parsed; the rest is
	// still linted, and the run exits 2.
	errors []lint.InputError
	// notes say what the walk left out and why (shown at -v).
	notes []string
}

// manifestExtensions are the file names a directory walk picks up.
var manifestExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// skippedDirs are never walked into.
var skippedDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true}

// chartOwnDirs hold a chart's templates, sub-charts and CRDs: rendered with
// the chart, never read as plain YAML. The chart's other dirs are walked.
var chartOwnDirs = map[string]bool{"templates": true, "charts": true, "crds": true}

// chartOwnFiles are a chart's own files at its root.
var chartOwnFiles = map[string]bool{"Chart.yaml": true, "Chart.lock": true, "values.yaml": true,
	"values.schema.json": true, "requirements.yaml": true, "requirements.lock": true}

// discover walks the PATHs in order (directories lexically) and sorts what
// it finds into manifests, model dirs, charts and overlays, and images. Each
// PATH argument is its own unit: objects refer only to objects of their unit.
func discover(paths []string, stdin io.Reader, excludes []Exclude, outputs []string, deepSleepPast int64) *inputs {
	w := walk(paths, stdin, excludes, outputs)
	w.load(w.pending, deepSleepPast)
	return w.found
}

// walk finds the inputs under the PATHs; the manifest files it finds are
// pending, read and parsed by load.
func walk(paths []string, stdin io.Reader, excludes []Exclude, outputs []string) *walker {
	w := &walker{found: &inputs{modelUnits: map[string]int{}}, seen: map[string]bool{}, ignore: newIgnorer(excludes)}
	// The run's own reports and baseline are never inputs, whether they
	// exist yet or not.
	for _, output := range outputs {
		if output == "" {
			continue
		}
		if abs, err := filepath.Abs(output); err == nil {
			w.seen[abs] = true
		}
		if real, err := realPath(output); err == nil {
			w.seen[real] = true
		}
	}
	for unit, path := range paths {
		w.unit = unit
		w.path(path, stdin)
	}
	return w
}

// load reads and parses pending manifest files on every CPU, and adds them
// to what was found in the order given.
func (w *walker) load(pending []pendingLoad, deepSleepPast int64) {
	w.loadFiles(loadAll(pending, deepSleepPast, true), pending)
}

// loadAwake is load with the files kept awake (manifest.File.Settle): a
// batch is held for its own rules alone, and reading its files again as
// its workloads are linted costs more than it saves.
func (w *walker) loadAwake(pending []pendingLoad) {
	w.loadFiles(loadAll(pending, 0, false), pending)
}

// loadFiles adds the files loaded from pending.
func (w *walker) loadFiles(loads []loaded, pending []pendingLoad) {
	for i, load := range loads {
		pending := pending[i]
		switch {
		case load.readErr != nil:
			w.failRead(pending, load.readErr)
		case load.err == nil:
			load.file.Unit = pending.unit
			w.found.manifests = append(w.found.manifests, load.file)
		case pending.walked && !looksLikeKubernetes(load.source):
			problem := newInputError(pending.path, load.err)
			problem.Message = "not a Kubernetes manifest (" + problem.Message + "): skipped"
			w.found.notes = append(w.found.notes, problem.String())
		default:
			w.found.errors = append(w.found.errors, newInputError(pending.path, load.err))
		}
	}
}

// walker is one discovery: what it found, and what it has seen.
type walker struct {
	found   *inputs
	pending []pendingLoad
	// seen are the real paths of the files and dirs read, so a file reached
	// twice (named twice, or through a symlink) is read once and a symlink
	// loop ends.
	seen   map[string]bool
	ignore *ignorer
	unit   int
}

// pendingLoad is a manifest file found but not yet read and parsed.
type pendingLoad struct {
	path string // as reports name it
	// file is the path it is read from, of size bytes when walked; "" for a
	// source read already (standard input).
	file string
	size int64
	// link is the symlink it was named by, when path is the link's target.
	link   string
	source []byte
	unit   int
	// walked is a file found in a directory walk, not named as a PATH: if
	// it is no Kubernetes manifest at all, it is skipped, not an error.
	walked bool
}

func (w *walker) fail(file string, err error) {
	w.found.errors = append(w.found.errors, newInputError(file, err))
}

// path discovers one PATH argument.
func (w *walker) path(path string, stdin io.Reader) {
	if path == "-" {
		if stdin == nil {
			w.fail("<stdin>", fmt.Errorf("no standard input"))
			return
		}
		source, err := io.ReadAll(io.LimitReader(stdin, manifest.MaxFileSize+1))
		if err != nil {
			w.fail("<stdin>", err)
			return
		}
		w.pending = append(w.pending, pendingLoad{path: "<stdin>", source: source, unit: w.unit})
		return
	}
	info, err := os.Stat(path)
	if err != nil {
		w.fail(displayPath(path), fileread.Cause(err))
		return
	}
	switch {
	case isImageSource(path):
		w.found.imageSources = append(w.found.imageSources, displayPath(path))
	case isRenderArchive(path):
		w.found.renderDirs = append(w.found.renderDirs, displayPath(path))
	case info.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".tar"):
		w.fail(displayPath(path), fmt.Errorf("not a docker-save or OCI image tarball: %v", image.SaveArchiveError(path)))
	case info.IsDir():
		root, err := filepath.Abs(path)
		if err != nil {
			w.fail(displayPath(path), err)
			return
		}
		w.dir(path, root, nil)
	default:
		w.file(path, info, false)
	}
}

// dir walks a directory: lexically, into symlinked dirs (once per real dir),
// with the ignore patterns of the dirs above it. root is the PATH's own
// absolute dir, to say when a symlink leads out of it.
func (w *walker) dir(dir, root string, patterns []gitignore.Pattern) {
	real, err := realPath(dir)
	if err != nil {
		w.fail(displayPath(dir), fileread.Cause(err))
		return
	}
	if w.seen[real] {
		return // a symlink back into a walked dir
	}
	w.seen[real] = true
	patterns = append(patterns[:len(patterns):len(patterns)], dirPatterns(dir)...)

	chart, kustomization := false, ""
	switch {
	case isModelDir(dir):
		w.found.modelDirs = append(w.found.modelDirs, displayPath(dir))
		w.found.modelUnits[displayPath(dir)] = w.unit
		w.manifestsBeside(dir, root, patterns)
		return
	case isRenderDir(dir):
		// A chart's templates are rendered with it, and so are the files an
		// overlay uses (Run drops their plain copies); the rest is walked.
		w.found.renderDirs = append(w.found.renderDirs, displayPath(dir))
		chart = hasFile(dir, "Chart.yaml")
		if !chart {
			kustomization = render.OverlayFile(dir)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.fail(displayPath(dir), fileread.Cause(err))
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, entry := range entries {
		name := entry.Name()
		file := filepath.Join(dir, name)
		info, err := os.Stat(file) // follows symlinks
		if err != nil {
			if entry.Type()&fs.ModeSymlink != 0 {
				w.found.notes = append(w.found.notes, fmt.Sprintf("%s: broken symlink: skipped", displayPath(file)))
				continue
			}
			w.fail(displayPath(file), fileread.Cause(err))
			continue
		}
		if w.ignore.ignored(file, info.IsDir(), patterns) {
			w.found.notes = append(w.found.notes, fmt.Sprintf("%s: excluded", displayPath(file)))
			continue
		}
		if entry.Type()&fs.ModeSymlink != 0 && w.leaves(file, root) {
			continue
		}
		if info.IsDir() {
			if skippedDirs[name] || (chart && chartOwnDirs[name]) {
				continue
			}
			w.dir(file, root, patterns)
			continue
		}
		if chart && chartOwnFiles[name] || name == kustomization {
			continue // read by the render
		}
		if info.Mode().IsRegular() && strings.EqualFold(filepath.Ext(name), ".tar") && isImageSource(file) {
			// An image an earlier CI step saved: matched to the manifests
			// by its tags.
			w.found.imageSources = append(w.found.imageSources, displayPath(file))
			continue
		}
		if !info.Mode().IsRegular() || !manifestExtensions[strings.ToLower(filepath.Ext(name))] {
			continue
		}
		w.file(file, info, true)
	}
}

// manifestsBeside reads the YAML files at the top of a model dir: a
// sample's manifests often sit beside the model they serve (a Triton
// config.pbtxt with its InferenceServices), and a model dir must not hide
// them. Its JSON files are the model's own (config.json, tokenizer.json)
// and its subdirectories its versions, so neither is read as manifests.
func (w *walker) manifestsBeside(dir, root string, patterns []gitignore.Pattern) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // the model's loader reports the dir
	}
	for _, entry := range entries {
		name := entry.Name()
		extension := strings.ToLower(filepath.Ext(name))
		if entry.IsDir() || extension != ".yaml" && extension != ".yml" {
			continue
		}
		file := filepath.Join(dir, name)
		info, err := os.Stat(file)
		if err != nil || !info.Mode().IsRegular() || w.ignore.ignored(file, false, patterns) {
			continue
		}
		if entry.Type()&fs.ModeSymlink != 0 && w.leaves(file, root) {
			continue
		}
		w.file(file, info, true)
	}
}

// leaves reports whether a symlink in the walk leads out of the PATH, and
// says so at -v: the tree may come from a pull request, and a link in it to
// the runner's files (~/.docker/config.json, /etc) must not be read.
func (w *walker) leaves(link, root string) bool {
	target, err := realPath(link)
	if err != nil {
		return false
	}
	realRoot, err := realPath(root)
	if err != nil {
		return false
	}
	if rel, err := filepath.Rel(realRoot, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		w.found.notes = append(w.found.notes, fmt.Sprintf("%s: symlink to a path outside %s: not followed "+
			"(modellint reads only inside its PATH arguments; name the target as a PATH to lint it)", displayPath(link), displayPath(root)))
		return true
	}
	return false
}

// file reads one manifest file. A file reached through a symlink is named
// as the file it points to, the one a user edits.
func (w *walker) file(path string, info fs.FileInfo, walked bool) {
	real, err := realPath(path)
	if err != nil {
		w.fail(displayPath(path), fileread.Cause(err))
		return
	}
	if w.seen[real] {
		return
	}
	w.seen[real] = true
	name := displayPath(path)
	if link, err := os.Lstat(path); err == nil && link.Mode()&fs.ModeSymlink != 0 {
		name = displayPath(real)
	}
	load := pendingLoad{path: name, file: path, size: info.Size(), unit: w.unit, walked: walked}
	if link := displayPath(path); link != name {
		load.link = link
	}
	w.pending = append(w.pending, load)
}

// failRead reports a file found that could not be read, by the name it was
// found by.
func (w *walker) failRead(load pendingLoad, err error) {
	if load.link != "" {
		w.fail(load.link, fmt.Errorf("symlink to %s: %w", load.path, err))
	} else {
		w.fail(load.path, err)
	}
}

// realPath is a path with every symlink resolved, absolute.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func hasFile(dir, name string) bool {
	info, err := os.Stat(filepath.Join(dir, name))
	return err == nil && info.Mode().IsRegular()
}

// kubernetesKeys finds the two keys every Kubernetes object has, in YAML or
// JSON, at the start of a line or after a brace.
var (
	apiVersionKey = lazyregexp.New(`(?m)(^|[{,]\s*)["']?apiVersion["']?\s*:`)
	kindKey       = lazyregexp.New(`(?m)(^|[{,]\s*)["']?kind["']?\s*:`)
)

// looksLikeKubernetes reports whether a file that did not parse was meant to
// be a Kubernetes manifest: it names both apiVersion and kind.
func looksLikeKubernetes(source []byte) bool {
	return apiVersionKey.Match(source) && kindKey.Match(source)
}

// loaded is a pendingLoad read and parsed: readErr when it could not be
// read, err when it did not parse.
type loaded struct {
	source  []byte
	file    *manifest.File
	readErr error
	err     error
}

// loadAll reads and parses the files on every CPU and returns them in the
// order given, whatever the scheduling; they sleep (manifest.File.Settle)
// when sleep is set.
func loadAll(pending []pendingLoad, deepSleepPast int64, sleep bool) []loaded {
	if deepSleepPast <= 0 {
		deepSleepPast = deepSleepBytes
	}
	var total int64
	for _, p := range pending {
		if p.file != "" {
			total += p.size
		}
	}
	deep := total >= deepSleepPast
	return parallel.Map(pending, func(p pendingLoad) loaded {
		out := loaded{source: p.source}
		if p.file != "" {
			if out.source, out.readErr = readManifest(p.file, p.size); out.readErr != nil {
				return out
			}
		}
		out.file, out.err = manifest.Load(p.path, out.source)
		if out.err == nil {
			var reread func() ([]byte, error)
			if p.file != "" && sleep {
				reread = func() ([]byte, error) { return readManifest(p.file, p.size) }
			}
			out.file.Settle(reread, deep)
			out.source = nil
		}
		return out
	})
}

// deepSleepBytes is the size of the manifest files from which the field
// tables of their workloads are dropped until the workload is linted, and
// the files parsed again then (see manifest.File.Settle): their parsed
// fields and sources are held at ~2.5 times their size, and a second parse
// of most of them costs about half again the CPU (docs/performance.md).
const deepSleepBytes = 48 << 20

// readManifest reads a file after checking its size, so a huge file is an
// error before it is in memory.
func readManifest(path string, size int64) ([]byte, error) {
	if size > manifest.MaxFileSize {
		return nil, fmt.Errorf("file is %d MiB, more than the %d MiB a manifest may hold", size>>20, manifest.MaxFileSize>>20)
	}
	source, err := fileread.Regular(path, manifest.MaxFileSize)
	if err != nil {
		return nil, fileread.Cause(err)
	}
	return source, nil
}

// displayPath is how a file is named in reports: relative to the working
// directory when it is inside it, with forward slashes.
func displayPath(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}
