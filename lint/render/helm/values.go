package helm

import (
	"fmt"
	"reflect"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/manifest"

	"github.com/modellint/modellint/internal/fileread"
)

// valuesFile is a values file read with the positions of its fields.
type valuesFile struct {
	path   string // as users name it
	source []byte
	doc    *manifest.Document
	// packaged: the values.yaml of a packaged dependency of a chart
	// directory, which users cannot edit.
	packaged bool
}

func parseValuesFile(path string, source []byte) (*valuesFile, error) {
	docs, err := manifest.ParseDocuments(path, source)
	if err != nil {
		return nil, err
	}
	file := &valuesFile{path: path, source: source}
	if len(docs) > 0 {
		file.doc = docs[0]
	}
	return file, nil
}

// userValues merges the --helm-values files and --helm-set values as `helm
// template -f ... --set ...` does: later files override earlier ones, --set
// overrides them all.
func userValues(valuesFiles, set []string) (map[string]any, []*valuesFile, error) {
	merged := map[string]any{}
	var files []*valuesFile
	for _, path := range valuesFiles {
		source, err := fileread.Regular(path, manifest.MaxFileSize)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, fileread.Cause(err))
		}
		// Parsed twice: with positions for tracing (and errors with a line),
		// and as Helm parses values, so numbers render as they would there.
		file, err := parseValuesFile(path, source)
		if err != nil {
			return nil, nil, err
		}
		current := map[string]any{}
		if err := yaml.Unmarshal(source, &current); err != nil {
			return nil, nil, fmt.Errorf("%s: invalid values file: %w", path, err)
		}
		merged = mergeMaps(merged, current)
		files = append(files, file)
	}
	for _, assignment := range set {
		if err := strvals.ParseInto(assignment, merged); err != nil {
			// Named by its key: the value may be a token the job passes.
			named, _, hasValue := strings.Cut(assignment, "=")
			if hasValue {
				named += "=…"
			}
			return nil, nil, fmt.Errorf("--helm-set %s: %w", named, err)
		}
	}
	return merged, files, nil
}

// mergeMaps is Helm's merge of values files: maps merge, anything else is
// replaced.
func mergeMaps(base, override map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for key, value := range base {
		out[key] = value
	}
	for key, value := range override {
		if overrideMap, ok := value.(map[string]any); ok {
			if baseMap, ok := out[key].(map[string]any); ok {
				out[key] = mergeMaps(baseMap, overrideMap)
				continue
			}
		}
		out[key] = value
	}
	return out
}

// setPaths lists the field paths --helm-set assigns, so a value given on the
// command line is never attributed to a file.
func setPaths(set []string) map[string]bool {
	paths := map[string]bool{}
	for _, assignment := range set {
		parsed := map[string]any{}
		if strvals.ParseInto(assignment, parsed) != nil {
			continue
		}
		var walk func(value any, path string)
		walk = func(value any, path string) {
			switch v := value.(type) {
			case map[string]any:
				for key, child := range v {
					walk(child, manifest.JoinPath(path, key))
				}
			case []any:
				for i, child := range v {
					walk(child, manifest.IndexPath(path, i))
				}
			default:
				paths[path] = true
			}
		}
		walk(parsed, "")
	}
	return paths
}

// valuesSource is a values file as seen from one chart: prefix is where that
// chart's values sit in the file ("" in its own values.yaml, the dependency
// name in its parent's and in the user's files).
type valuesSource struct {
	file   *valuesFile
	prefix string
}

// valuesLookup finds the file line a chart's value was written on.
type valuesLookup struct {
	// sources are in precedence order: the user's files, last first, then
	// values.yaml from the top chart down to the chart itself.
	sources []valuesSource
	// set holds the paths given with --helm-set, from the top chart; prefix
	// is the chart's place there.
	set    map[string]bool
	prefix string
}

// find returns where the value at path (relative to .Values) was written, if
// the written value is the rendered one: a value Helm transformed, defaulted
// or took from --helm-set is not attributed to a file.
func (l *valuesLookup) find(path string, rendered any) (string, manifest.Position, bool) {
	global := path == "global" || strings.HasPrefix(path, "global.")
	for setPath := range l.set {
		full := path
		if !global {
			full = manifest.ConcatPath(l.prefix, path)
		}
		if setPath == full || strings.HasPrefix(full, setPath+".") || strings.HasPrefix(full, setPath+"[") {
			return "", manifest.Position{}, false
		}
	}
	for _, source := range l.sources {
		if source.file.doc == nil {
			continue
		}
		full := path
		if !global {
			full = manifest.ConcatPath(source.prefix, path)
		}
		if !source.file.doc.Has(full) {
			continue
		}
		written, _ := manifest.ValueAt(source.file.doc.Plain(), full)
		if !sameValue(written, rendered) {
			continue
		}
		return source.file.path, source.file.doc.Locate(full), true
	}
	return "", manifest.Position{}, false
}

// locate returns where the value at path (relative to .Values) was written,
// whatever it renders as; not when --helm-set gave it.
func (l *valuesLookup) locate(path string) (string, manifest.Position, bool) {
	global := path == "global" || strings.HasPrefix(path, "global.")
	full := path
	if !global {
		full = manifest.ConcatPath(l.prefix, path)
	}
	for setPath := range l.set {
		if setPath == full || strings.HasPrefix(setPath, full+".") || strings.HasPrefix(setPath, full+"[") ||
			strings.HasPrefix(full, setPath+".") || strings.HasPrefix(full, setPath+"[") {
			return "", manifest.Position{}, false
		}
	}
	for _, source := range l.sources {
		full := path
		if !global {
			full = manifest.ConcatPath(source.prefix, path)
		}
		if source.file.doc != nil && source.file.doc.Has(full) {
			return source.file.path, source.file.doc.Locate(full), true
		}
	}
	return "", manifest.Position{}, false
}

// editable finds where a user sets a value that a packaged dependency's own
// values.yaml gave: its line in a values file outside the archive, or the
// line of its nearest ancestor under the chart's key there (`worker:` in the
// parent's values.yaml), to which the value would be added.
func (l *valuesLookup) editable(path string) (string, manifest.Position, bool) {
	global := path == "global" || strings.HasPrefix(path, "global.")
	for _, source := range l.sources {
		if source.file.doc == nil || source.file.packaged {
			continue
		}
		top, full := source.prefix, manifest.ConcatPath(source.prefix, path)
		if global {
			top, full = "global", path
		}
		if top == "" { // the chart's own values.yaml: no key of the chart's to fall back on
			continue
		}
		for p := full; ; p = manifest.ParentPath(p) {
			if source.file.doc.Has(p) {
				return source.file.path, source.file.doc.Locate(p), true
			}
			if p == top || p == "" {
				break
			}
		}
	}
	return "", manifest.Position{}, false
}

// sameValue reports whether a written value is the rendered one: equal
// scalars, or both mappings or both sequences (whose own fields are traced
// one by one).
func sameValue(written, rendered any) bool {
	switch rendered.(type) {
	case map[string]any:
		_, ok := written.(map[string]any)
		return ok || written == nil
	case []any:
		_, ok := written.([]any)
		return ok
	}
	if reflect.DeepEqual(written, rendered) {
		return true
	}
	return written != nil && rendered != nil && fmt.Sprint(written) == fmt.Sprint(rendered)
}
