package kustomize

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"
)

// kustomization is one kustomization file of an overlay's tree, read before
// the build: which files and directories it includes, which patches it
// applies. The build itself is kustomize's; this is what tracing needs, and
// what keeps the build offline (a remote entry is refused before kustomize
// would clone or download it).
type kustomization struct {
	dir     string // absolute
	display string // the directory as users name it
	file    string // display path of the kustomization file
	path    string // absolute path of the kustomization file
	source  []byte
	doc     *manifest.Document
	parent  *kustomization
	// resources are the absolute paths of the files it lists as resources.
	resources map[string]bool
	children  []*kustomization
	// component is true for a directory included under components:.
	component bool
	patches   []*patch
}

// FileName returns the kustomization file in dir, "" when there is none.
func FileName(dir string) string {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// maxTreeNodes bounds the kustomizations one overlay's tree may hold,
// counted per path that reaches them: real overlays hold a few dozen, while
// a base listed several times by every level of a deep chain multiplies
// (8 spellings of ../base over 6 levels are 262,144 paths), and kustomize
// builds a base once per path too.
const maxTreeNodes = 1000

// treeWalk is the state of one readTree: the directories on the current
// path (to refuse cycles) and the nodes read so far.
type treeWalk struct {
	visiting map[string]bool
	nodes    int
}

func newTreeWalk() *treeWalk { return &treeWalk{visiting: map[string]bool{}} }

// readTree reads the kustomization in dir and, recursively, those of the
// directories it includes.
func readTree(dir, display string, parent *kustomization, walk *treeWalk) (*kustomization, error) {
	absolute, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	name := FileName(dir)
	if name == "" {
		return nil, fmt.Errorf("%s: no kustomization.yaml", display)
	}
	if walk.visiting[absolute] {
		return nil, fmt.Errorf("%s: includes itself", path.Join(display, name))
	}
	if walk.nodes++; walk.nodes > maxTreeNodes {
		return nil, fmt.Errorf("%s: the overlay includes more than %d kustomizations counted along every path "+
			"(a base listed many times, perhaps under different spellings such as ../base and ../base/)", path.Join(display, name), maxTreeNodes)
	}
	walk.visiting[absolute] = true
	defer delete(walk.visiting, absolute)

	k := &kustomization{dir: absolute, display: display, file: path.Join(display, name), path: filepath.Join(absolute, name),
		parent: parent, resources: map[string]bool{}}
	source, err := fileread.Regular(filepath.Join(dir, name), manifest.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.file, unwrapPathError(err))
	}
	docs, err := manifest.ParseDocuments(k.file, source)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: empty kustomization", k.file)
	}
	k.source, k.doc = source, docs[0]
	for _, field := range []string{"helmCharts", "helmChartInflationGenerator"} {
		if k.doc.Has(field) {
			pos := k.doc.Locate(field)
			return nil, fmt.Errorf("%s:%d: %s inflates a chart with the helm binary, which modellint does not run; "+
				"lint the chart itself (modellint CHART --helm-values ...)", k.file, pos.Line, field)
		}
	}
	for _, field := range []string{"resources", "bases", "components"} {
		entries, _ := manifest.ValueAt(k.doc.Value, field)
		list, _ := entries.([]any)
		for _, entry := range list {
			text, ok := entry.(string)
			if !ok {
				continue
			}
			if err := k.include(text, field, walk); err != nil {
				return nil, err
			}
		}
	}
	if err := k.readPatches(); err != nil {
		return nil, err
	}
	return k, nil
}

// include records one resources/bases/components entry.
func (k *kustomization) include(entry, field string, walk *treeWalk) error {
	target := filepath.Join(k.dir, filepath.FromSlash(entry))
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		child, err := readTree(target, path.Join(k.display, entry), k, walk)
		if err != nil {
			return err
		}
		child.component = field == "components"
		k.children = append(k.children, child)
	case err == nil && !info.Mode().IsRegular():
		// kustomize would open it and wait on a FIFO, or read a device
		// without end.
		return fmt.Errorf("%s: %s entry %s: %w", k.file, field, entry, &fileread.NotRegularError{Path: entry, Mode: info.Mode()})
	case err == nil:
		k.resources[target] = true
	case isRemote(entry):
		return fmt.Errorf("%s: %s entry %s is a remote base: modellint builds overlays offline and does not fetch it; "+
			"vendor it into the repository and point %s at the local copy", k.file, field, entry, field)
	default:
		return fmt.Errorf("%s: %s entry %s: no such file or directory", k.file, field, entry)
	}
	return nil
}

// isRemote recognises the remote forms kustomize accepts: URLs, git
// repository specs ("github.com/org/repo/path?ref=v1", "git@host:org/repo").
func isRemote(entry string) bool {
	if strings.Contains(entry, "://") || strings.HasPrefix(entry, "git@") || strings.HasPrefix(entry, "git::") ||
		strings.Contains(entry, "?ref=") || strings.Contains(entry, "?version=") {
		return true
	}
	host, rest, found := strings.Cut(entry, "/")
	return found && rest != "" && strings.Contains(host, ".") && !strings.HasPrefix(host, ".")
}

// owner is the kustomization that lists file as a resource, or generates
// objects in it (file is then the kustomization itself); nil when none does.
func (k *kustomization) owner(file string) *kustomization {
	if k.resources[file] || k.path == file {
		return k
	}
	for _, child := range k.children {
		if owner := child.owner(file); owner != nil {
			return owner
		}
	}
	return nil
}

// chain lists the kustomizations whose patches and transformers apply to the
// objects of owner, in the order kustomize applies them: owner first, each
// ancestor after the components it includes, the overlay being built last.
func (k *kustomization) chain(owner *kustomization) []*kustomization {
	if owner == nil {
		return []*kustomization{k}
	}
	var chain []*kustomization
	var previous *kustomization
	for node := owner; node != nil; node = node.parent {
		for _, child := range node.children {
			if child.component && child != previous {
				chain = append(chain, child.withComponents()...)
			}
		}
		chain = append(chain, node)
		previous = node
	}
	return chain
}

// withComponents is a component after the components it includes itself.
func (k *kustomization) withComponents() []*kustomization {
	var all []*kustomization
	for _, child := range k.children {
		if child.component {
			all = append(all, child.withComponents()...)
		}
	}
	return append(all, k)
}

// Includes returns the local directories the kustomization in dir builds on
// (its bases and components, transitively), as absolute paths: an overlay
// lints them as part of itself.
func Includes(dir string) ([]string, error) {
	root, err := readTree(dir, dir, nil, newTreeWalk())
	if err != nil {
		return nil, err
	}
	var dirs []string
	var walk func(*kustomization)
	walk = func(k *kustomization) {
		for _, child := range k.children {
			dirs = append(dirs, child.dir)
			walk(child)
		}
	}
	walk(root)
	return dirs, nil
}

func unwrapPathError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}
