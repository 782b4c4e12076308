package rules_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/imagetest"
)

// docModel is the model dir the examples of cross rules are linted with: a
// valid TF Serving model named resnet, which the server path of docBase
// (/models/resnet) links to by name.
const docModel = "testdata/MDL403/models/half_plus_two"

// example is a rule's Bad or Good example, read from its sections (split
// at lines of ---): a section whose first line is `# docker build …` is the
// Dockerfile of an image the manifest names (see
// imagetest.ParseDockerfile), `# .modellint.yaml` heads the config,
// `# --cluster nodes.yaml` the nodes the pod is placed on, `# model dir`
// the tree (see parseTree) of a cross rule's model dirs, in place of
// docModel, and `# --model DIR:MOUNTPATH` such a tree with the mapping
// the flag gives; the others are the manifest, its first document a
// snippet merged into docBase (or a model rule's tree).
type example struct {
	manifest string
	images   []*imagetest.ImageSpec
	config   string
	nodes    string
	model    string
	mapping  string // DIR:MOUNTPATH
}

const (
	configHeader   = "# .modellint.yaml"
	clusterHeader  = "# --cluster nodes.yaml"
	modelDirHeader = "# model dir"
	mappingHeader  = "# --model "
)

func parseExample(text string) (*example, error) {
	parsed := &example{}
	var manifest []string
	for _, section := range strings.Split(text, "\n---\n") {
		first, _, _ := strings.Cut(section, "\n")
		switch {
		case strings.HasPrefix(first, "# docker "):
			spec, err := imagetest.ParseDockerfile(section)
			if err != nil {
				return nil, fmt.Errorf("Dockerfile: %w", err)
			}
			parsed.images = append(parsed.images, spec)
		case first == configHeader:
			parsed.config = section
		case first == clusterHeader:
			parsed.nodes = section
		case first == modelDirHeader || strings.HasPrefix(first, mappingHeader):
			if parsed.model != "" {
				return nil, fmt.Errorf("more than one part gives the model dirs")
			}
			parsed.model = strings.TrimPrefix(section, first+"\n")
			parsed.mapping = strings.TrimPrefix(first, mappingHeader)
			if first == modelDirHeader {
				parsed.mapping = ""
			}
		default:
			manifest = append(manifest, section)
		}
	}
	if len(manifest) == 0 {
		manifest = []string{"{}"}
	}
	parsed.manifest = strings.Join(manifest, "\n---\n")
	return parsed, nil
}

// exampleRefs are the references an example's manifest may name: the
// images of registry.example.com, which the examples build or leave out.
var exampleRefs = regexp.MustCompile(`registry\.example\.com/[a-z0-9._/-]+(:[A-Za-z0-9._-]+)?`)

// docImages is the registry the examples' images are pushed to, started on
// first use.
type docImages struct {
	parent   *testing.T
	registry *imagetest.Registry
}

// push builds an example's images, pushes them under prefix and maps every
// registry.example.com reference of its manifest to the registry: an image
// the example does not build is a missing tag there, as an image never
// pushed is.
func (d *docImages) push(t *testing.T, prefix string, example *example) map[string]string {
	t.Helper()
	refs := exampleRefs.FindAllString(example.manifest, -1)
	if len(refs) == 0 && len(example.images) == 0 {
		return nil
	}
	if d.registry == nil {
		d.registry = imagetest.StartInProcessRegistry(d.parent)
	}
	pushed := func(ref string) string {
		return d.registry.Ref(strings.ToLower(prefix) + "/" + strings.TrimPrefix(ref, "registry.example.com/"))
	}
	sources := map[string]string{}
	for _, ref := range refs {
		sources[ref] = "docker://" + pushed(ref)
	}
	for _, spec := range example.images {
		if _, ok := sources[spec.Ref]; !ok {
			t.Fatalf("the example builds %s, which its manifest does not name", spec.Ref)
		}
		var builder *imagetest.ELFBuilder
		if spec.UsesELF() {
			builder = imagetest.ELF(t)
		}
		built, err := imagetest.Build(spec, builder)
		if err != nil {
			t.Fatal(err)
		}
		if err := imagetest.Push(pushed(spec.Ref), built); err != nil {
			t.Fatalf("push %s: %v", spec.Ref, err)
		}
	}
	return sources
}

// contentEntry is a tree line whose file's content follows: name <<FORMAT.
var contentEntry = regexp.MustCompile(`^(.*) <<([A-Za-z][A-Za-z0-9]*)$`)

// parseTree reads an example written as a directory tree, one entry a line,
// two spaces of indent a level, directories ending in /:
//
//	models/resnet/
//	  1/
//	    saved_model.pb
//
// and returns its files and directories (ending in /). A file is empty
// unless its entry ends in <<EOF: the lines below it, indented one level
// deeper, up to a line EOF, are its content; <<pbtxt and the other
// contentFormats end at a line of their name and write the file from the
// text. A file entry may end in its size, model.safetensors (27.5 GiB)
// (see treeFile), kept in its path. A comment is an error: it describes
// what the tree does not spell out.
func parseTree(example string) (map[string]string, error) {
	files := map[string]string{}
	var stack []string // the directory at each level
	lines := strings.Split(strings.TrimRight(example, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" {
			continue
		}
		if m := contentEntry.FindStringSubmatch(line); m != nil {
			name, format := m[1], m[2]
			entry := strings.TrimLeft(name, " ")
			indent := len(name) - len(entry)
			var content []string
			start := i + 1
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != format; i++ {
				content = append(content, strings.TrimPrefix(lines[i], strings.Repeat(" ", indent+2)))
			}
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: %s <<%s has no %s line", start, entry, format, format)
			}
			file, _, _, err := cutSize(entry)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", start, err)
			}
			if indent%2 != 0 || indent/2 > len(stack) || strings.ContainsAny(file, " \t:#/") || strings.Contains(file, "..") {
				return nil, fmt.Errorf("line %d %q is not a file entry", start, name)
			}
			stack = stack[:indent/2]
			path := strings.Join(append(append([]string{}, stack...), entry), "")
			encode, ok := contentFormats[format]
			if !ok {
				return nil, fmt.Errorf("line %d: %s <<%s: no such content format", start, entry, format)
			}
			// The encoders read the file's name, without its size.
			encoded, err := encode(strings.Join(append(append([]string{}, stack...), file), ""), strings.Join(content, "\n")+"\n")
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", start, err)
			}
			files[path] = string(encoded)
			continue
		}
		if strings.Contains(line, "#") {
			return nil, fmt.Errorf("line %d has a comment, which describes what it does not spell out", i+1)
		}
		entry := strings.TrimLeft(line, " ")
		indent := len(line) - len(entry)
		name, _, _, err := cutSize(entry)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if indent%2 != 0 || indent/2 > len(stack) || strings.ContainsAny(name, " \t:") || strings.Contains(name, "..") ||
			filepath.IsAbs(name) || i > 0 && indent == 0 {
			return nil, fmt.Errorf("line %d %q is not a tree entry", i+1, line)
		}
		stack = stack[:indent/2]
		path := strings.Join(append(append([]string{}, stack...), entry), "")
		if strings.HasSuffix(entry, "/") {
			stack = append(stack, entry)
			files[path] = ""
			continue
		}
		files[path] = ""
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	return files, nil
}

// writeExampleFiles writes files (relative path → content; a path ending in / is a
// directory, one ending in a size a file of that size) under dir.
func writeExampleFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		name, data, size, err := treeFile(name, content)
		if err != nil {
			t.Fatalf("the example's tree: %v", err)
		}
		path = filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeTreeFile(path, data, size); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads the files under root as writeExampleFiles writes them, under
// prefix.
func readTree(t *testing.T, root, prefix string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files[prefix+"/"+filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("read %s: %v (%d files)", root, err, len(files))
	}
	return files
}
