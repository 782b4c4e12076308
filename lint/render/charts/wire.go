package charts

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// Request is what the renderer reads on its standard input: one chart or
// one Kustomize overlay.
type Request struct {
	// Chart is the chart's directory or packaged .tgz, Overlay the
	// overlay's directory (one of the two is set); Display is how users
	// name it, which the files are named after.
	Chart, Overlay, Display string
	// Options say how a chart is rendered; their Timeout bounds an overlay too.
	Options Options
	// LoadRestrictor is kustomize's --load-restrictor for an overlay.
	LoadRestrictor string
	// Root is the tree an overlay may read (see kustomize.Root).
	Root string
}

// Response is what the renderer writes on its standard output.
type Response struct {
	// Files are the rendered templates (the built files of an overlay),
	// then the values files (kustomization and patch files) fields may be
	// placed in (see File).
	Files []File
	// Error is Helm's, kustomize's or the tracing's one-line message;
	// Files are empty then.
	Error string
	// Log is what Helm's loader and engine, or kustomize, logged, bounded.
	Log []string
}

// File is one rendered template or built file, as LoadRendered parses it
// and Relocate and SetCalls leave its documents, before test hooks are
// dropped; or a file without objects that fields may be placed in (a values
// file, a kustomization or patch file), with Rendered nil. Texts are bytes:
// a template need not be UTF-8, and a JSON string would not carry it
// unchanged.
type File struct {
	Path       string
	Source     []byte
	Rendered   []byte
	Placements []manifest.Placement
}

// FileOf is file (of the rendered text) as the renderer sends it.
func FileOf(file *manifest.File, rendered []byte) File {
	wire := File{Path: file.Path, Source: file.Source, Rendered: rendered}
	for _, doc := range file.Documents() {
		wire.Placements = append(wire.Placements, doc.Placement())
	}
	return wire
}

// SourceFileOf is a file without objects (a values, kustomization or patch
// file) as the renderer sends it.
func SourceFileOf(file *manifest.File) File { return File{Path: file.Path, Source: file.Source} }

// A response goes on the wire as a header, one JSON line that says how
// long each file's parts are, then those parts as raw bytes, file by file:
// its placements (JSON), its source and its rendered text. The texts are
// neither escaped nor base64-encoded, and the parent reads one file's parts
// at a time and parses them before it reads the next, so a response costs
// it little more than the files it returns.
type header struct {
	Version int
	Error   string
	Log     []string
	Files   []part
}

// part is one file's entry in the header; Rendered is -1 for a file
// without objects.
type part struct {
	Path                         string
	Placements, Source, Rendered int
}

// encoded is a response ready to be written, and its size on the wire.
type encoded struct {
	header     []byte
	placements [][]byte
	files      []File
	size       int64
}

// encode lays the response out for the wire.
func encode(response Response) (*encoded, error) {
	out := &encoded{files: response.Files}
	h := header{Version: WireVersion, Error: response.Error, Log: response.Log}
	for _, file := range response.Files {
		placements, err := json.Marshal(file.Placements)
		if err != nil {
			return nil, err
		}
		rendered := len(file.Rendered)
		if file.Rendered == nil {
			rendered = -1
		}
		h.Files = append(h.Files, part{Path: file.Path, Placements: len(placements), Source: len(file.Source), Rendered: rendered})
		out.placements = append(out.placements, placements)
		out.size += int64(len(placements) + len(file.Source) + max(rendered, 0))
	}
	var err error
	if out.header, err = json.Marshal(h); err != nil {
		return nil, err
	}
	out.header = append(out.header, '\n')
	out.size += int64(len(out.header))
	return out, nil
}

// write writes the encoded response.
func (e *encoded) write(w io.Writer) error {
	buffered := bufio.NewWriterSize(w, 1<<16)
	buffered.Write(e.header) //nolint:errcheck // Flush reports it
	for i, file := range e.files {
		buffered.Write(e.placements[i]) //nolint:errcheck // Flush reports it
		buffered.Write(file.Source)     //nolint:errcheck // Flush reports it
		buffered.Write(file.Rendered)   //nolint:errcheck // Flush reports it
	}
	return buffered.Flush()
}

// readResponse reads one response and rebuilds its manifest files: each
// rendered text parsed again as soon as it is read and its documents placed
// where the renderer placed them, then kept when keep (nil: keep all) keeps
// it, every path named as names say. An error of the renderer's comes back as the response's Error; err is
// an answer cut short, one that does not parse or a file that does not
// rebuild (a *replyError), after which the stream is of no further use.
func readResponse(r *bufio.Reader, keep func(*manifest.File) bool, names *givenPaths) (files []*manifest.File, response *header, err error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, nil, err
	}
	response = &header{}
	if err := json.Unmarshal(line, response); err != nil {
		return nil, nil, fmt.Errorf("its answer does not parse: %w", err)
	}
	if response.Version != WireVersion || response.Error != "" {
		return nil, response, nil
	}
	announced := int64(len(line))
	for _, part := range response.Files {
		announced += int64(part.Placements) + int64(part.Source) + int64(max(part.Rendered, 0))
	}
	if announced > MaxResponse {
		return nil, nil, errTooLarge
	}
	for _, part := range response.Files {
		part.Path = names.name(part.Path)
		file, err := readFile(r, part, names)
		if err != nil {
			return nil, nil, err
		}
		if file.Rendered && keep != nil && !keep(file) {
			continue
		}
		files = append(files, file)
	}
	return files, response, nil
}

// readFile reads and rebuilds the file one part of the header announced.
func readFile(r io.Reader, part part, names *givenPaths) (*manifest.File, error) {
	read := func(n int) ([]byte, error) {
		if n < 0 {
			return nil, fmt.Errorf("its answer does not parse: %s has a part of %d bytes", part.Path, n)
		}
		data := make([]byte, n)
		_, err := io.ReadFull(r, data)
		return data, err
	}
	placementsJSON, err := read(part.Placements)
	if err != nil {
		return nil, err
	}
	source, err := read(part.Source)
	if err != nil {
		return nil, err
	}
	if part.Rendered < 0 {
		return &manifest.File{Path: part.Path, Source: source}, nil
	}
	rendered, err := read(part.Rendered)
	if err != nil {
		return nil, err
	}
	var placements []manifest.Placement
	if err := json.Unmarshal(placementsJSON, &placements); err != nil {
		return nil, fmt.Errorf("its answer does not parse: %s: %w", part.Path, err)
	}
	names.renameElsewhere(placements)
	file, err := manifest.LoadRendered(part.Path, source, rendered)
	if err != nil {
		return nil, &replyError{fmt.Errorf("the renderer's output does not parse again: %w", err)}
	}
	docs := file.Documents()
	if len(docs) != len(placements) {
		return nil, &replyError{fmt.Errorf("%s: the renderer placed %d documents of %d", part.Path, len(placements), len(docs))}
	}
	for i, doc := range docs {
		if err := doc.Place(placements[i]); err != nil {
			return nil, &replyError{fmt.Errorf("%s: document %d: %w", part.Path, doc.Index+1, err)}
		}
	}
	return file, nil
}

// errTooLarge is an answer larger than MaxResponse, which the renderer
// refuses to send.
var errTooLarge = fmt.Errorf("it sent more than the %d MiB modellint reads of one answer", MaxResponse>>20)

// replyError is a file the renderer sent whole that does not rebuild: it
// is reported as it is, not as the renderer's failure, though the rest of
// the answer is left unread and the process ends with it.
type replyError struct{ error }

func (e *replyError) Unwrap() error { return e.error }

// Kept drops Helm test hooks from a rendered template's file unless
// options include them, and reports whether the file is still linted: it
// has objects, or notes of what it skipped.
func Kept(file *manifest.File, options Options) bool {
	if !options.IncludeTests {
		dropTestHooks(file)
	}
	return len(file.Objects) > 0 || len(file.Skipped) > 0
}

// dropTestHooks removes Helm test hooks, which are not part of an install.
func dropTestHooks(file *manifest.File) {
	kept := file.Objects[:0]
	for _, object := range file.Objects {
		if isTestHook(object) {
			file.Skipped = append(file.Skipped, fmt.Sprintf("%s: Helm test hook, not installed with the release (--helm-include-tests lints it)", object.ID()))
			continue
		}
		kept = append(kept, object)
	}
	file.Objects = kept
}

func isTestHook(object *manifest.Object) bool {
	hooks, _ := object.Lookup("metadata", "annotations", "helm.sh/hook")
	text, _ := hooks.(string)
	for _, hook := range strings.Split(text, ",") {
		if hook = strings.ToLower(strings.TrimSpace(hook)); hook == "test" || hook == "test-success" {
			return true
		}
	}
	return false
}
