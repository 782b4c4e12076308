package charts

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// givenPaths maps the absolute paths a request was sent with back to the
// paths as given: the renderer runs in an empty directory, so relative paths
// are made absolute for it, and what it says of them is said of the paths
// the user wrote.
type givenPaths struct {
	exact    map[string]string
	replacer *strings.Replacer
}

// absolutePaths makes the request's chart, overlay and values files
// absolute, and returns how to name them as they were given.
func absolutePaths(request *Request) (*givenPaths, error) {
	given := &givenPaths{exact: map[string]string{}}
	var pairs [][2]string
	relative := false
	absolute := func(path *string) error {
		if *path == "" || filepath.IsAbs(*path) {
			return nil
		}
		abs, err := filepath.Abs(*path)
		if err != nil {
			return err
		}
		relative = true
		given.exact[abs] = *path
		pairs = append(pairs, [2]string{abs, *path})
		*path = abs
		return nil
	}
	if err := absolute(&request.Chart); err != nil {
		return nil, err
	}
	if err := absolute(&request.Overlay); err != nil {
		return nil, err
	}
	request.Options.ValuesFiles = slices.Clone(request.Options.ValuesFiles)
	for i := range request.Options.ValuesFiles {
		if err := absolute(&request.Options.ValuesFiles[i]); err != nil {
			return nil, err
		}
	}
	if !relative {
		return given, nil
	}
	// Other paths under the working directory (a symbolic link's target)
	// were relative too, as Helm and kustomize found them.
	if dir, err := os.Getwd(); err == nil {
		pairs = append(pairs, [2]string{strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator), ""})
	}
	slices.SortStableFunc(pairs, func(a, b [2]string) int { return cmp.Compare(len(b[0]), len(a[0])) })
	var oldNew []string
	for _, pair := range pairs {
		oldNew = append(oldNew, pair[0], pair[1])
	}
	given.replacer = strings.NewReplacer(oldNew...)
	return given, nil
}

// say is a message of the renderer's with the paths as given.
func (g *givenPaths) say(text string) string {
	if g.replacer == nil {
		return text
	}
	return g.replacer.Replace(text)
}

// name is the path as given of a file the renderer named.
func (g *givenPaths) name(path string) string {
	if given, ok := g.exact[path]; ok {
		return given
	}
	return path
}

// renameElsewhere names the other files a placement places fields in as given.
func (g *givenPaths) renameElsewhere(placements []manifest.Placement) {
	if len(g.exact) == 0 {
		return
	}
	for _, placement := range placements {
		for entry, file := range placement.Elsewhere {
			placement.Elsewhere[entry] = g.name(file)
		}
	}
}
