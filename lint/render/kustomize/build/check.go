package build

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/render/kustomize"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/message"
)

// maxChecked bounds the kustomizations and plugin config files one check
// reads, as package kustomize bounds the tree.
const maxChecked = 1000

// checker checks, before kustomize starts, every field of every
// kustomization an overlay builds on (bases, components, the directories
// its generators and transformers name) and of every builtin plugin config
// they hold: nothing may name a remote file or repository, an absolute path
// or a path leading outside the root. Kustomize would fetch a URL from any
// field that names a file, and clone a repository with git from any that
// names a directory.
type checker struct {
	root string
	seen map[string]bool // real paths of the files checked
}

// checkOverlay checks the overlay in dir, named display, inside root.
func checkOverlay(dir, display, root string) error {
	c := &checker{root: root, seen: map[string]bool{}}
	return c.kustomization(dir, display, "")
}

// kustomization checks the kustomization in dir. configDir is set for a
// directory named under generators, transformers or validators, whose
// resources are plugin configs: it is the directory of the kustomization
// naming it, which their paths are relative to.
func (c *checker) kustomization(dir, display, configDir string) error {
	name := kustomize.FileName(dir)
	if name == "" {
		return nil // package kustomize or kustomize itself reports it
	}
	file := filepath.Join(dir, name)
	if err := kustomize.Confine(c.root, file); err != nil {
		return fmt.Errorf("%s: %w", path.Join(display, name), err)
	}
	source, ok, err := c.read(file, path.Join(display, name))
	if err != nil || !ok {
		return err
	}
	var k types.Kustomization
	if k.Unmarshal(source) != nil {
		return nil // kustomize decodes it the same way, and reports the error
	}
	at := &site{file: path.Join(display, name), dir: dir, display: display, configDir: configDir}
	if docs, err := manifest.ParseDocuments(at.file, source); err == nil && len(docs) > 0 {
		at.doc = docs[0]
	}
	return c.walk(reflect.ValueOf(k), "", "", kustomizationFields, at)
}

// site is the file whose fields are walked.
type site struct {
	file         string             // as users name it
	dir, display string             // the directory its paths are relative to
	configDir    string             // for a kustomization whose resources are plugin configs, see kustomization
	doc          *manifest.Document // the kustomization, to place a field on its line
}

// where names the file, and the line of field in it when known.
func (at *site) where(field string) string {
	if at.doc != nil {
		if pos := at.doc.Locate(field); pos.Line > 0 {
			return fmt.Sprintf("%s:%d", at.file, pos.Line)
		}
	}
	return at.file
}

// walk checks the fields of v, at path (generic: "[]" for items) and
// display (with indexes), as table classifies them.
func (c *checker) walk(v reflect.Value, generic, display string, table fields, at *site) error {
	if table.classify(generic) == helm && !v.IsZero() {
		if display == "" {
			display = "HelmChartInflationGenerator"
		}
		return fmt.Errorf("%s: %s inflates a chart with the helm binary, which modellint does not run; "+
			"lint the chart itself (modellint CHART --helm-values ...)", at.where(display), display)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return c.walk(v.Elem(), generic, display, table, at)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			name, skip := jsonName(v.Type().Field(i))
			if skip {
				continue
			}
			if err := c.walk(v.Field(i), join(generic, name), join(display, name), table, at); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return c.leaf(string(v.Bytes()), generic, display, "", table, at)
		}
		for i := range v.Len() {
			if err := c.walk(v.Index(i), generic+"[]", fmt.Sprintf("%s[%d]", display, i), table, at); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, key := range keys {
			if err := c.walkKey(v.MapIndex(key), generic+".*", join(display, fmt.Sprint(key)), fmt.Sprint(key), table, at); err != nil {
				return err
			}
		}
	case reflect.String:
		return c.leaf(v.String(), generic, display, "", table, at)
	}
	return nil
}

// walkKey is walk for a map value, whose key some kinds need.
func (c *checker) walkKey(v reflect.Value, generic, display, key string, table fields, at *site) error {
	if v.Kind() == reflect.String {
		return c.leaf(v.String(), generic, display, key, table, at)
	}
	return c.walk(v, generic, display, table, at)
}

// leaf checks one string field.
func (c *checker) leaf(entry, generic, display, key string, table fields, at *site) error {
	if entry == "" {
		return nil
	}
	switch table.classify(generic) {
	case value:
		return nil
	case file:
		return c.local(entry, display, at)
	case fileSource:
		if _, name, found := strings.Cut(entry, "="); found && name != "" && !strings.Contains(name, "=") {
			entry = name
		}
		return c.local(entry, display, at)
	case openAPI:
		if key != "path" {
			return nil
		}
		return c.local(entry, display, at)
	case patch:
		if isInline(entry) {
			return nil
		}
		return c.local(entry, display, at)
	case target:
		return c.target(entry, display, at, at.configDir)
	case pluginConfig:
		if isInline(entry) {
			return c.configs([]byte(entry), at.file, display, at.dir, at.display, at.doc)
		}
		return c.target(entry, display, at, at.dir)
	}
	return fmt.Errorf("%s: %s: a field modellint does not know, so it cannot tell whether it names a file; "+
		"it builds nothing it has not checked", at.where(display), display)
}

// local checks an entry naming a file or directory relative to the site.
func (c *checker) local(entry, display string, at *site) error {
	if remote(entry) {
		return fmt.Errorf("%s: %s entry %s is remote: modellint builds overlays offline and does not fetch it; "+
			"vendor it into the repository and point %s at the local copy", at.where(display), display, message.Quote(entry), display)
	}
	if err := kustomize.CheckPath(at.dir, entry, c.root); err != nil {
		return fmt.Errorf("%s: %s entry %s %w", at.where(display), display, message.Quote(entry), err)
	}
	return nil
}

// target checks an entry naming a file or a kustomization's directory;
// configDir is set when they hold plugin configs (see kustomization).
func (c *checker) target(entry, display string, at *site, configDir string) error {
	if err := c.local(entry, display, at); err != nil {
		return err
	}
	full := filepath.Join(at.dir, filepath.FromSlash(entry))
	info, err := os.Stat(full)
	switch {
	case err != nil:
		return nil // kustomize reports it
	case info.IsDir():
		return c.kustomization(full, path.Join(at.display, entry), configDir)
	case configDir != "" && info.Mode().IsRegular():
		source, ok, err := c.read(full, path.Join(at.display, entry))
		if err != nil || !ok {
			return err
		}
		return c.configs(source, path.Join(at.display, entry), "", configDir, at.display, nil)
	}
	return nil
}

// configs checks plugin configs, one or more YAML documents, written in
// file (at the field display when inline in a kustomization). Their paths
// are relative to dir, the directory of the kustomization naming them
// (named dirDisplay).
func (c *checker) configs(source []byte, file, display, dir, dirDisplay string, doc *manifest.Document) error {
	at := &site{file: file, dir: dir, display: dirDisplay, doc: doc}
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(string(source)), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil // kustomize reads them the same way, and reports the error
	}
	for _, node := range nodes {
		kindName, apiVersion := node.GetKind(), node.GetApiVersion()
		if plugin, builtin := pluginKinds[kindName]; !builtin || apiVersion != konfig.BuiltinPluginApiVersion || plugin.config == nil {
			return fmt.Errorf("%s: %s is not one of kustomize's builtin plugins, the only ones modellint runs",
				at.where(display), strings.TrimSpace(display+" plugin "+message.Quote(apiVersion+"/"+kindName)))
		}
		plugin := pluginKinds[kindName]
		if plugin.fields.classify("") == helm {
			return fmt.Errorf("%s: %s inflates a chart with the helm binary, which modellint does not run; "+
				"lint the chart itself (modellint CHART --helm-values ...)", at.where(display), strings.TrimSpace(display+" "+kindName))
		}
		data, err := node.MarshalJSON()
		if err != nil {
			return nil
		}
		config := reflect.New(reflect.TypeOf(plugin.config))
		if yaml.Unmarshal(data, config.Interface()) != nil {
			return nil // kustomize reports it
		}
		if err := c.walk(config.Elem(), "", display, plugin.fields, at); err != nil {
			return err
		}
	}
	return nil
}

// read reads a file once; ok is false when it was read before.
func (c *checker) read(file, display string) ([]byte, bool, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil, false, nil // kustomize reports it
	}
	if c.seen[real] {
		return nil, false, nil
	}
	if len(c.seen) >= maxChecked {
		return nil, false, fmt.Errorf("%s: the overlay names more than %d kustomizations and plugin configs", display, maxChecked)
	}
	c.seen[real] = true
	source, err := fileread.Regular(file, manifest.MaxFileSize)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", display, err)
	}
	return source, true, nil
}

// isInline reports whether an entry that may be a path or YAML is YAML, as
// kustomize decides: a patch or plugin config written in the kustomization
// spans lines or is a flow mapping.
func isInline(entry string) bool {
	var parsed any
	if strings.Contains(entry, "\n") {
		return true
	}
	if yaml.Unmarshal([]byte(entry), &parsed) != nil {
		return false
	}
	switch parsed.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// remote reports whether kustomize would fetch entry with HTTP or clone it
// with git, asking kustomize's own parsers, or whether package kustomize's
// wider recognition of remote forms takes it for one.
func remote(entry string) bool {
	if u, err := url.Parse(entry); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return true // what kustomize's loader fetches
	}
	return kustomize.IsRemote(entry) || (*resource.Origin)(nil).Append(entry).Repo != ""
}
