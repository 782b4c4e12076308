package engine

import (
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// A PATH argument is one deployment unless it holds several side by side:
// `modellint examples/` with examples/broken and examples/fixed, or
// env/staging and env/prod, each declaring the same Deployment. Linted as
// one unit, the objects of one dir would resolve the other's references (a
// ConfigMap, a PersistentVolumeClaim) and a model name would match a dir
// in each, linking neither. splitUnits gives each such dir a unit of its
// own, so linting the parent finds what linting each dir finds.
//
// Sibling dirs are separate deployments when a workload of the same name
// is declared in two of them: applied together, one would replace the
// other. Each sibling of such a dir then becomes its own unit, which still
// sees the objects of the unit it lies in (the files beside the siblings
// and above them) but not its siblings'. The split is looked for again
// inside every dir, so a grandparent splits the same way.

// unitItem is a manifest file or a model dir of one PATH argument, with the
// dirs it lies under, relative to the PATH.
type unitItem struct {
	dirs      []string
	file      *manifest.File // nil for a model dir
	modelDir  string
	workloads []string
}

// splitUnits gives the deployments side by side under a PATH dir units of
// their own: the files' Unit and the model dirs' entries of modelUnits
// change. New units are negative, apart from the PATH arguments' (0…) and
// the rendered charts' and overlays' (after them).
func splitUnits(paths []string, files []*manifest.File, set *manifest.Set, modelUnits map[string]int) (parents map[int]int) {
	workloads := map[*manifest.File][]string{}
	for _, workload := range set.Workloads {
		file := workload.Object.File
		workloads[file] = append(workloads[file], workload.Name())
	}
	next, parents := -1, map[int]int{}
	for unit, path := range paths {
		if path == "-" {
			continue
		}
		root := displayPath(path)
		var items []*unitItem
		for _, file := range files {
			if file.Unit != unit || file.Rendered {
				continue
			}
			rel, ok := relativeTo(root, file.Path)
			if !ok {
				continue
			}
			items = append(items, &unitItem{dirs: dirsOf(rel), file: file, workloads: workloads[file]})
		}
		for dir, found := range modelUnits {
			if found != unit {
				continue
			}
			if rel, ok := relativeTo(root, dir); ok && rel != "." {
				// A model dir goes with the dir it is: deeper than any
				// file beside it.
				items = append(items, &unitItem{dirs: strings.Split(rel, "/"), modelDir: dir})
			}
		}
		split(items, 0, unit, &next, modelUnits, parents)
	}
	return parents
}

// split assigns the items below one dir (depth components deep) to unit,
// or to a unit per subdir when two subdirs declare the same workload.
func split(items []*unitItem, depth, unit int, next *int, modelUnits map[string]int, parents map[int]int) {
	var order []string
	groups := map[string][]*unitItem{}
	for _, item := range items {
		if item.file != nil {
			item.file.Unit = unit
		} else {
			modelUnits[item.modelDir] = unit
		}
		if len(item.dirs) <= depth {
			continue // beside the subdirs: stays in this unit
		}
		name := item.dirs[depth]
		if groups[name] == nil {
			order = append(order, name)
		}
		groups[name] = append(groups[name], item)
	}
	if len(groups) == 0 {
		return
	}
	declaredIn := map[string]string{}
	apart := false
	for _, name := range order {
		for _, item := range groups[name] {
			for _, workload := range item.workloads {
				if other, seen := declaredIn[workload]; seen && other != name {
					apart = true
				}
				declaredIn[workload] = name
			}
		}
	}
	for _, name := range order {
		groupUnit := unit
		if apart {
			groupUnit = *next
			parents[groupUnit] = unit
			*next--
		}
		split(groups[name], depth+1, groupUnit, next, modelUnits, parents)
	}
}

// relativeTo is path below root, both display paths ("." when equal).
func relativeTo(root, path string) (string, bool) {
	switch {
	case root == ".":
		return path, !strings.HasPrefix(path, "../") && !strings.HasPrefix(path, "/")
	case path == root:
		return ".", true
	case strings.HasPrefix(path, root+"/"):
		return path[len(root)+1:], true
	case root == "/":
		return strings.TrimPrefix(path, "/"), strings.HasPrefix(path, "/")
	}
	return "", false
}

// dirsOf is the dirs a file's relative path lies under.
func dirsOf(rel string) []string {
	parts := strings.Split(rel, "/")
	return parts[:len(parts)-1]
}
