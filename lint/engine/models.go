package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

// isModelDir reports whether discovery should lint dir as a model directory.
func isModelDir(dir string) bool { return model.IsModelDir(dir) }

// maxRepositoryEntries bounds the walk of a linked dir for the models in it
// (a model repository holds tens of models, each a few dirs).
const maxRepositoryEntries = 10_000

// modelDirs adds to the discovered model dirs the dirs that --model and the
// config's models: link, whether or not they are among the PATHs: a linked
// dir is what the server loads, so it is linted. A repository dir (Triton,
// TorchServe, MLServer) adds each model in it; a dir with no model in it
// is linted as the model the server expects there, so it is not silently
// left out.
func modelDirs(discovered []string, mappings []namedMapping) ([]string, error) {
	dirs := slices.Clone(discovered)
	covered := func(dir string) bool {
		for _, known := range dirs {
			if _, ok := lint.PathUnder(dir, known); ok {
				return true
			}
			if _, ok := lint.PathUnder(known, dir); ok {
				return true
			}
		}
		return false
	}
	for _, mapping := range mappings {
		dir := mapping.Path
		info, err := os.Stat(filepath.FromSlash(dir))
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: model dir %s: %w", mapping.how, dir, fileread.Cause(err))
		case !info.IsDir():
			return nil, fmt.Errorf("%s: model dir %s is not a directory", mapping.how, dir)
		case covered(dir):
			continue
		}
		found, err := modelsUnder(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mapping.how, err)
		}
		if len(found) == 0 {
			found = []string{dir}
		}
		dirs = append(dirs, found...)
	}
	return dirs, nil
}

// modelsUnder finds the model dirs at or below dir, as discovery would.
func modelsUnder(dir string) ([]string, error) {
	var found []string
	entries := 0
	err := filepath.WalkDir(filepath.FromSlash(dir), func(file string, entry fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", displayPath(file), fileread.Cause(err))
		}
		if entries++; entries > maxRepositoryEntries {
			return fmt.Errorf("model dir %s: more than %d entries before its models were found", dir, maxRepositoryEntries)
		}
		if !entry.IsDir() {
			return nil
		}
		if skippedDirs[entry.Name()] && file != filepath.FromSlash(dir) {
			return filepath.SkipDir
		}
		if isModelDir(file) {
			found = append(found, path.Clean(filepath.ToSlash(file)))
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return found, err
}

// expectedLayout is the layout a runtime loads, for a linked dir that holds
// nothing modellint recognises: it is linted as what the server expects
// there, so the server's own failure is reported ("no versions found").
func expectedLayout(runtime *server.Runtime) model.Layout {
	if runtime == nil {
		return ""
	}
	switch runtime.Name {
	case "tensorflow-serving":
		return model.LayoutTFServing
	case "triton":
		return model.LayoutTriton
	case "openvino":
		return model.LayoutOVMS
	}
	return ""
}

// expectLayouts reloads linked dirs that hold no recognised model as the
// layout their server expects, and puts the new facts in place of the old
// in every target and link.
func expectLayouts(targets []*lint.Target) error {
	reloaded := map[*model.Model]*model.Model{}
	for _, target := range targets {
		for _, link := range target.Links {
			m := link.Model
			expect := expectedLayout(link.Container.Runtime)
			if m == nil || m.Layout != model.LayoutFiles || expect == "" || reloaded[m] != nil || target.Baked != nil {
				continue
			}
			again, err := model.LoadWith(filepath.FromSlash(m.Dir), m.Dir, model.LoadOptions{Expect: expect})
			if err != nil {
				return err
			}
			reloaded[m] = again
		}
	}
	if len(reloaded) == 0 {
		return nil
	}
	for _, target := range targets {
		if again := reloaded[target.Model]; again != nil {
			target.Model = again
		}
		for _, link := range target.Links {
			if again := reloaded[link.Model]; again != nil {
				link.Model = again
			}
		}
	}
	return nil
}

// joinRepositories gives each Triton model the model repository it is in,
// when the run read that repository whole: a dir PATH, or a linked model
// dir, is it or holds it, so that each model dir in it was discovered. A
// model dir linted on its own leaves its repository unknown: reading its
// parent would read outside the tree linted.
func joinRepositories(targets []*lint.Target, paths []string, mappings []namedMapping) {
	var roots []string
	for _, p := range paths {
		if info, err := os.Stat(p); p != "-" && err == nil && info.IsDir() {
			roots = append(roots, displayPath(p))
		}
	}
	for _, mapping := range mappings {
		roots = append(roots, path.Clean(mapping.Path))
	}
	models := make([]*model.Model, 0, len(targets))
	for _, target := range targets {
		models = append(models, target.Model)
	}
	model.JoinTritonRepositories(models, func(dir string) bool {
		return slices.ContainsFunc(roots, func(root string) bool { return within(dir, root) })
	})
}

// within says dir is root or below it, both as displayPath writes them.
func within(dir, root string) bool {
	if root == "." {
		return !path.IsAbs(dir) && dir != ".." && !strings.HasPrefix(dir, "../")
	}
	_, ok := lint.PathUnder(dir, root)
	return ok
}

// loadModels reads each model directory into a target of its own.
func loadModels(dirs []string) ([]*lint.Target, []lint.InputError) {
	var targets []*lint.Target
	var errs []lint.InputError
	for _, dir := range dirs {
		facts, err := model.Load(filepath.FromSlash(dir), dir)
		if err != nil {
			errs = append(errs, inputErrorOf(err))
			continue
		}
		targets = append(targets, &lint.Target{Model: facts})
	}
	return targets, errs
}
