package kustomize

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"

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
	// builds counts the kustomizations building this one goes through,
	// itself included, once per path (a child listed twice counts twice).
	builds int
	// component is true for a directory included under components:.
	component bool
	patches   []*patch
}

// FileNames are the kustomization file names kustomize recognises, in the
// order it looks for them: konfig.RecognizedKustomizationFileNames, which
// would link kustomize's API into modellint (TestFileNames, where the
// builder links it, keeps the two the same).
func FileNames() []string {
	return []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}
}

// FileName returns the kustomization file in dir, "" when there is none.
func FileName(dir string) string {
	for _, name := range FileNames() {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// maxTreeBuilds bounds the kustomizations one overlay's build goes
// through, counted once per path that reaches them, as kustomize builds a
// base once for every entry that lists it: real overlays count a few
// dozen, while a base listed several times by every level of a deep chain
// multiplies (8 spellings of ../base over 6 levels are 299,593 builds).
// The tree itself is read once per directory, so the count costs nothing
// but arithmetic and the bound is met before kustomize starts.
const maxTreeBuilds = 1000

// treeWalk is the state of one readTree: the directories on the current
// path (to refuse cycles) and the kustomizations read so far, by clean
// absolute directory, so ../base, ../base/ and ./../base are one read.
type treeWalk struct {
	root     string // see Root
	visiting map[string]bool
	read     map[string]*kustomization
}

func newTreeWalk(root string) *treeWalk {
	return &treeWalk{root: root, visiting: map[string]bool{}, read: map[string]*kustomization{}}
}

// buildBudgetError is a tree that passed maxTreeBuilds, at the
// kustomization where it did.
type buildBudgetError struct{ at string }

func (e *buildBudgetError) Error() string {
	return fmt.Sprintf("%s: builds more than %d kustomizations", e.at, maxTreeBuilds)
}

// readOverlay reads the tree of the overlay in dir, named display, inside
// root (see Root).
func readOverlay(dir, display, root string) (*kustomization, error) {
	if err := Confine(root, dir); err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	top, err := readTree(dir, display, nil, newTreeWalk(root))
	var budget *buildBudgetError
	if errors.As(err, &budget) {
		return nil, fmt.Errorf("%s: the overlay builds more than %d kustomizations counted along every path, "+
			"passing the bound at %s (a base listed many times, perhaps under different spellings such as ../base and ../base/)",
			path.Join(display, FileName(dir)), maxTreeBuilds, budget.at)
	}
	return top, err
}

// readTree reads the kustomization in dir and, recursively, those of the
// directories it includes. A directory already read is shared: the result
// is a DAG, each node keeping the parent of the first path that reached it.
func readTree(dir, display string, parent *kustomization, walk *treeWalk) (*kustomization, error) {
	absolute, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if walk.visiting[absolute] {
		return nil, fmt.Errorf("%s: includes itself", path.Join(display, FileName(dir)))
	}
	if k := walk.read[absolute]; k != nil {
		return k, nil
	}
	name := FileName(dir)
	if name == "" {
		return nil, fmt.Errorf("%s: no kustomization.yaml", display)
	}
	if len(walk.read) >= maxTreeBuilds {
		return nil, fmt.Errorf("%s: the overlay includes more than %d kustomizations", path.Join(display, name), maxTreeBuilds)
	}
	if err := Confine(walk.root, filepath.Join(absolute, name)); err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(display, name), err)
	}
	walk.visiting[absolute] = true
	defer delete(walk.visiting, absolute)

	k := &kustomization{dir: absolute, display: display, file: path.Join(display, name), path: filepath.Join(absolute, name),
		parent: parent, resources: map[string]bool{}, builds: 1}
	source, err := fileread.Regular(filepath.Join(dir, name), manifest.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.file, fileread.Cause(err))
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
		entries, _ := manifest.ValueAt(k.doc.Plain(), field)
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
	if err := k.readPatches(walk.root); err != nil {
		return nil, err
	}
	walk.read[absolute] = k
	return k, nil
}

// include records one resources/bases/components entry. A remote, absolute
// or escaping entry is refused before anything is read from it.
func (k *kustomization) include(entry, field string, walk *treeWalk) error {
	if err := k.checkEntry(field, entry, walk.root); err != nil {
		return err
	}
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
		if k.builds += child.builds; k.builds > maxTreeBuilds {
			return &buildBudgetError{at: k.file}
		}
	case err == nil && !info.Mode().IsRegular():
		// kustomize would open it and wait on a FIFO, or read a device
		// without end.
		return fmt.Errorf("%s: %s entry %s: %w", k.file, field, entry, &fileread.NotRegularError{Path: entry, Mode: info.Mode()})
	case err == nil:
		k.resources[target] = true
	case looksLikeHost(entry):
		return fmt.Errorf("%s: %s entry %s is remote: modellint builds overlays offline and fetches nothing; "+
			"vendor it into the repository and point %s at the local copy", k.file, field, entry, field)
	default:
		return fmt.Errorf("%s: %s entry %s: no such file or directory", k.file, field, entry)
	}
	return nil
}

// checkEntry refuses an entry of field that names a remote file or
// repository, an absolute path, or a path that leads outside root.
func (k *kustomization) checkEntry(field, entry, root string) error {
	if isRemote(entry) {
		return fmt.Errorf("%s: %s entry %s is remote: modellint builds overlays offline and fetches nothing; "+
			"vendor it into the repository and point %s at the local copy", k.file, field, entry, field)
	}
	if err := CheckPath(k.dir, entry, root); err != nil {
		return fmt.Errorf("%s: %s entry %s %w", k.file, field, entry, err)
	}
	return nil
}

// CheckPath returns an error, phrased to follow the entry's name, when
// entry, a path relative to dir, is absolute or leads outside root.
func CheckPath(dir, entry, root string) error {
	if filepath.IsAbs(entry) || path.IsAbs(entry) {
		return errors.New("is an absolute path: an overlay names files relative to its kustomization, inside the tree being linted")
	}
	return Confine(root, filepath.Join(dir, filepath.FromSlash(entry)))
}

// IsRemote reports whether entry is a URL or git repository spec: a form
// kustomize would fetch or clone, or one that reads like it.
func IsRemote(entry string) bool { return isRemote(entry) }

// isRemote recognises the remote forms kustomize accepts, whether or not a
// file of that name exists: URLs of any scheme, git repository specs
// ("github.com/org/repo/path?ref=v1", "git::…", "git@host:org/repo").
// Package build also asks kustomize's own parser, which this package does
// not link; this is a superset of what it accepts.
func isRemote(entry string) bool {
	lower := strings.ToLower(entry)
	if strings.Contains(lower, "://") || strings.HasPrefix(lower, "git::") || scpUser.MatchString(entry) ||
		strings.HasPrefix(lower, "github.com:") || strings.HasPrefix(lower, "github.com/") || strings.Contains(lower, "?ref=") || strings.Contains(lower, "?version=") {
		return true
	}
	return false
}

// looksLikeHost is an entry that is not on disk and starts with what reads
// as a host name (gitlab.com/org/repo): a remote base kustomize would not
// fetch either, but one users mean as remote.
func looksLikeHost(entry string) bool {
	host, rest, found := strings.Cut(entry, "/")
	return found && rest != "" && strings.Contains(host, ".") && !strings.HasPrefix(host, ".")
}

// owner is the kustomization that lists file as a resource, or generates
// objects in it (file is then the kustomization itself); nil when none does.
func (k *kustomization) owner(file string) *kustomization {
	var owner *kustomization
	k.each(func(node *kustomization) bool {
		if node.resources[file] || node.path == file {
			owner = node
		}
		return owner == nil
	})
	return owner
}

// each calls visit on every kustomization of the tree once, depth first in
// the order they are listed (the order of the first path to each), until
// visit returns false.
func (k *kustomization) each(visit func(*kustomization) bool) {
	seen := map[*kustomization]bool{}
	var walk func(*kustomization) bool
	walk = func(node *kustomization) bool {
		if seen[node] {
			return true
		}
		seen[node] = true
		if !visit(node) {
			return false
		}
		for _, child := range node.children {
			if !walk(child) {
				return false
			}
		}
		return true
	}
	walk(k)
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

// scpUser is the user@ that starts a git URL in scp form (git@host:org/repo),
// as kustomize's parser matches it.
var scpUser = lazyregexp.New(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// Includes returns the local directories the kustomization in dir builds on
// (its bases and components, transitively), as absolute paths: an overlay
// lints them as part of itself. root is the tree they must lie in (see Root).
func Includes(dir, root string) ([]string, error) {
	top, err := readOverlay(dir, dir, root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	top.each(func(k *kustomization) bool {
		if k != top {
			dirs = append(dirs, k.dir)
		}
		return true
	})
	return dirs, nil
}
