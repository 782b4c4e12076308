package image

import (
	"archive/tar"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"

	"github.com/modellint/modellint/lint/image/elfinfo"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Limits on what one layer may make modellint hold. They are far above real
// images and keep a hostile layer from exhausting memory and time.
const (
	// The largest layers of real images (conda environments, node_modules,
	// CUDA toolkits) hold tens of thousands to a couple of hundred thousand
	// entries; reading a header costs microseconds and indexing one a few
	// hundred bytes, so this bounds a layer to seconds and ~150 MiB.
	maxEntriesPerLayer = 300_000
	elfPrefix          = 64 << 10 // first bytes of an ELF kept, headers and usually the dynamic tables
	maxFirstSegment    = 16 << 20 // the non-executable first segment kept whole up to this size
	maxELFCapture      = 48 << 20 // all captured ranges of one ELF together
	maxTextFile        = 1 << 20  // /etc/passwd, version.json …
	// maxTextBytes bounds the small text files kept from one layer
	// together: a layer of thousands of 1 MiB ld.so.conf.d files would
	// otherwise be held whole (real ones are a few lines each).
	maxTextBytes = 16 << 20
	// maxScript bounds a shell script kept whole to be followed to the
	// program it runs: entrypoint wrappers are a few KiB.
	maxScript = 64 << 10
	// maxDistMetadata bounds one dist-info WHEEL or top_level.txt kept
	// (real ones are a few lines), and maxDistMetadataFiles how many one
	// layer keeps: a site-packages of a thousand distributions has two
	// thousand.
	maxDistMetadata      = 4 << 10
	maxDistMetadataFiles = 8192
	// maxExecutableHeads bounds the executables of one layer whose first
	// bytes (and, for a shell script, whole text) the first pass keeps, so
	// that the script a container starts is known without a second read;
	// maxScriptBytes bounds those scripts together. Real layers have a few
	// thousand executables; past the bounds a file is read when a rule
	// needs it.
	maxExecutableHeads = 16384
	maxScriptBytes     = 16 << 20
	// MaxSource bounds a program's source kept whole when a targeted read
	// asks for it (a Python entry module and the app modules it imports),
	// and the source files of a language's own bookkeeping the first pass
	// keeps (pyvenv.cfg, .pth files, torch/version.py).
	MaxSource = 1 << 20
	// maxModelFile bounds one model file kept whole (saved_model.pb,
	// variables.index, config.pbtxt …) and maxModelBytes all model content
	// kept from one layer, so a layer of many models stays bounded; what
	// is over the bounds is listed and sized, and its content reported as
	// not read.
	maxModelFile  = 32 << 20
	maxModelBytes = 256 << 20
	// maxConfigSize bounds an image config. Real ones are KiB (the history
	// of a hundred-step build is tens of KiB); one of tens of MiB would be
	// held several times over while parsed.
	maxConfigSize = 4 << 20
)

// layerIndex is what one pass over a layer yields: its entries in tar
// order, and the facts of the files whose content was captured.
type layerIndex struct {
	Entries []rootfs.Entry
	Files   map[string]*FileFacts
}

// capturePolicy says which file contents to keep while a layer streams.
type capturePolicy struct {
	// elfNames are basenames whose ELF facts are worth a close look (the
	// entrypoint's name, loaders, libc …).
	elfNames map[string]bool
	// exact lists entry names to capture closely, with byte ranges a
	// previous read found missing; a targeted read uses only these.
	exact map[string][]elfinfo.Range
	// targeted stops the read once every exact name was seen.
	targeted bool
}

// textFile reports whether an entry is one of the small files rules read
// whole.
func textFile(name string) bool {
	switch name {
	case "etc/passwd", "etc/group", "etc/ld.so.conf", "etc/os-release", "usr/lib/os-release":
		return true
	}
	dir, base := path.Split(name)
	switch {
	case dir == "etc/ld.so.conf.d/":
		return true
	case strings.HasPrefix(dir, "usr/local/cuda") && (base == "version.json" || base == "version.txt"):
		return strings.Count(dir, "/") == 3
	case base == "pyvenv.cfg":
		// A venv's: next to bin/, which Python looks for beside its executable.
		return strings.Count(dir, "/") <= 6
	case strings.HasSuffix(base, ".pth") && (strings.HasSuffix(dir, "/site-packages/") || strings.HasSuffix(dir, "/dist-packages/")):
		// Path configuration files extend sys.path when site runs.
		return true
	case base == "version.py":
		return underSite(dir, "torch/")
	case base == "build_info.py":
		return underSite(dir, "tensorflow/python/platform/")
	case base == "build_and_package_info.py":
		return underSite(dir, "onnxruntime/capi/")
	}
	return distMetadata(name)
}

// underSite reports whether dir is rel under a site-packages or
// dist-packages directory: the frameworks' build records (torch/version.py,
// TensorFlow's and onnxruntime's build info) say the CUDA they were built
// with.
func underSite(dir, rel string) bool {
	return strings.HasSuffix(dir, "/site-packages/"+rel) || strings.HasSuffix(dir, "/dist-packages/"+rel)
}

// distMetadata reports an installed distribution's WHEEL (its platform
// tags: the glibc its extensions need) or top_level.txt (the modules it
// provides; egg-info directories have one too, as Debian's python3-*
// packages install them).
func distMetadata(name string) bool {
	dir, base := path.Split(name)
	if base != "WHEEL" && base != "top_level.txt" {
		return false
	}
	parent, info := path.Split(strings.TrimSuffix(dir, "/"))
	if base == "WHEEL" && !strings.HasSuffix(info, ".dist-info") || !strings.HasSuffix(info, ".dist-info") && !strings.HasSuffix(info, ".egg-info") {
		return false
	}
	return strings.HasSuffix(parent, "/site-packages/") || strings.HasSuffix(parent, "/dist-packages/")
}

// modelCapture says how much of a file the model rules read: whole for
// the small structural files and ONNX models (whose inputs Triton's
// config.pbtxt is checked against; one larger than maxModelFile is left
// unread and its checks say so), the header for safetensors (8 bytes of
// length, then the JSON header), nothing for everything else.
func modelCapture(name string) (whole, safetensorsHeader bool) {
	base := path.Base(name)
	switch base {
	case "saved_model.pb", "saved_model.pbtxt", "variables.index", "fingerprint.pb", "config.pbtxt",
		"model.safetensors.index.json", "tf_serving_warmup_requests", "config.json", "model-settings.json":
		return true, false
	}
	lower := strings.ToLower(base)
	return strings.HasSuffix(lower, ".onnx"), strings.HasSuffix(lower, ".safetensors")
}

// IsShellScript reports whether a head starts with a #! line naming a
// shell, directly or through /usr/bin/env: such scripts are kept whole, to
// be parsed and followed to the program they start.
func IsShellScript(head []byte) bool {
	if len(head) < 2 || head[0] != '#' || head[1] != '!' {
		return false
	}
	line := string(head[2:])
	if end := strings.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	interpreter := path.Base(fields[0])
	if (interpreter == "env" || interpreter == "with-contenv") && len(fields) > 1 {
		// s6-overlay's with-contenv runs the shell named after it with the
		// container's environment (#!/command/with-contenv bash).
		interpreter = path.Base(fields[1])
	}
	return shell.IsShell(interpreter)
}

// loaderName reports basenames of dynamic loaders and C libraries, which
// every dynamic binary's check needs.
func loaderName(base string) bool {
	switch {
	case strings.HasPrefix(base, "ld-linux"), strings.HasPrefix(base, "ld-musl-"), strings.HasPrefix(base, "ld64.so"),
		strings.HasPrefix(base, "libc.musl-"):
		return true
	case strings.HasPrefix(base, "ld-") && strings.HasSuffix(base, ".so"):
		return true
	}
	switch base {
	case "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0", "libdl.so.2", "librt.so.1":
		return true
	}
	return false
}

// indexLayer streams one layer's tar, recording every header and capturing
// the contents the policy asks for. Bodies it does not need are skipped by
// the tar reader; nothing is written to disk.
func indexLayer(stream io.Reader, policy *capturePolicy) (*layerIndex, error) {
	index := &layerIndex{Files: map[string]*FileFacts{}}
	reader := tar.NewReader(stream)
	budget := &captureBudget{model: maxModelBytes, text: maxTextBytes, scripts: maxScriptBytes,
		distMetadata: maxDistMetadataFiles, executables: maxExecutableHeads}
	remaining := len(policy.exact)
	for {
		header, err := reader.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, truncated(err)
		}
		entry, ok, err := rootfs.EntryFromHeader(header)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if !policy.targeted {
			if len(index.Entries) >= maxEntriesPerLayer {
				return nil, fmt.Errorf("more than %d entries in one layer", maxEntriesPerLayer)
			}
			index.Entries = append(index.Entries, entry)
		}
		if entry.Type != rootfs.Regular {
			continue
		}
		extra, exact := policy.exact[entry.Name]
		if policy.targeted && !exact {
			continue
		}
		facts, err := capture(reader, &entry, policy, exact, extra, budget)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", entry.Name, truncated(err))
		}
		if facts != nil {
			index.Files[entry.Name] = facts
		}
		if exact {
			if remaining--; policy.targeted && remaining == 0 {
				// A targeted read may stop early: the index is complete from
				// the first pass, and only these contents were missing.
				break
			}
		}
	}
	return index, nil
}

// truncated names the usual cause of an unexpected EOF in a layer.
func truncated(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("layer is truncated (%w)", err)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &corrupt):
		return fmt.Errorf("the compressed layer is corrupt (%w)", err)
	}
	return err
}

// captureBudget is what a layer may still keep of model files and of text
// files.
type captureBudget struct {
	model, text, scripts      int64
	distMetadata, executables int
}

// capture reads what the policy wants of one regular file, within the
// layer's budget.
func capture(body io.Reader, entry *rootfs.Entry, policy *capturePolicy, exact bool, extra []elfinfo.Range, budget *captureBudget) (*FileFacts, error) {
	base := path.Base(entry.Name)
	wantText := textFile(entry.Name)
	wantELF := exact || policy.elfNames[base] || loaderName(base)
	executable := entry.Mode&0o111 != 0
	wholeModel, safetensorsHeader := modelCapture(entry.Name)
	if !wantText && !wantELF && !executable && !wholeModel && !safetensorsHeader {
		return nil, nil
	}
	if !wantText && !wantELF && !wholeModel && !safetensorsHeader {
		// An executable and nothing else.
		if budget.executables == 0 {
			return nil, nil // listed; its content is read if a rule needs it
		}
		budget.executables--
	}
	if entry.Size == 0 {
		return &FileFacts{Head: []byte{}, Text: []byte{}}, nil
	}
	if !policy.targeted && !wantText && !wantELF && (wholeModel || safetensorsHeader) {
		return captureModelFile(body, entry.Size, safetensorsHeader, &budget.model)
	}
	if wantText && distMetadata(entry.Name) && !wantELF {
		if entry.Size > maxDistMetadata || budget.distMetadata == 0 {
			return nil, nil // listed and sized; its content reads as not captured
		}
		budget.distMetadata--
	}
	if wantText {
		limit := min(entry.Size, maxTextFile)
		if limit > budget.text {
			return nil, nil // listed and sized; its content reads as not captured
		}
		budget.text -= limit
		data := make([]byte, limit)
		if _, err := io.ReadFull(body, data); err != nil {
			return nil, err
		}
		return &FileFacts{Head: data[:min(len(data), headSize)], Text: data}, nil
	}
	if !wantELF {
		head := make([]byte, min(entry.Size, headSize))
		if _, err := io.ReadFull(body, head); err != nil {
			return nil, err
		}
		facts := &FileFacts{Head: head}
		if entry.Size <= maxScript && entry.Size <= budget.scripts && IsShellScript(head) {
			budget.scripts -= entry.Size
			rest := make([]byte, entry.Size-int64(len(head)))
			if _, err := io.ReadFull(body, rest); err != nil {
				return nil, err
			}
			facts.Text = append(append([]byte(nil), head...), rest...)
		}
		return facts, nil
	}
	return captureELF(body, entry.Size, extra, exact)
}

// captureModelFile keeps a model file whole, or a safetensors file's
// header, within the layer's budget. Text then holds the first bytes of
// the file; Partial says it is a prefix. Over the budget nothing is kept,
// and the file's content reads as not captured.
func captureModelFile(body io.Reader, size int64, safetensorsHeader bool, budget *int64) (*FileFacts, error) {
	want := size
	if safetensorsHeader {
		length := make([]byte, min(size, 8))
		if _, err := io.ReadFull(body, length); err != nil {
			return nil, err
		}
		if len(length) < 8 {
			return &FileFacts{Head: length, Text: length}, nil
		}
		headerLength := int64(binary.LittleEndian.Uint64(length))
		if headerLength < 0 || headerLength > maxModelFile || 8+headerLength > *budget {
			return &FileFacts{Head: length, Text: length, Partial: true}, nil
		}
		header := make([]byte, min(headerLength, size-8))
		if _, err := io.ReadFull(body, header); err != nil {
			return nil, err
		}
		*budget -= int64(len(header)) + 8
		text := append(length, header...)
		return &FileFacts{Head: text[:min(len(text), headSize)], Text: text, Partial: int64(len(text)) < size}, nil
	}
	if want > maxModelFile || want > *budget {
		return nil, nil
	}
	*budget -= want
	data := make([]byte, want)
	if _, err := io.ReadFull(body, data); err != nil {
		return nil, err
	}
	return &FileFacts{Head: data[:min(len(data), headSize)], Text: data}, nil
}

// captureELF keeps the ranges of an ELF file the loader facts live in: the
// headers, PT_INTERP, PT_DYNAMIC, the first segment when it holds no code,
// and any ranges an earlier read found missing. What is still missing
// afterwards is recorded for a targeted read.
//
// A file asked for by name (exact) that is not an ELF is source a rule
// reads (a Python module): it is kept whole up to MaxSource.
func captureELF(body io.Reader, size int64, extra []elfinfo.Range, exact bool) (*FileFacts, error) {
	prefix := make([]byte, min(size, elfPrefix))
	if _, err := io.ReadFull(body, prefix); err != nil {
		return nil, err
	}
	facts := &FileFacts{Head: prefix[:min(len(prefix), headSize):min(len(prefix), headSize)]}
	if !elfinfo.IsELF(prefix) {
		facts.Head = append([]byte(nil), facts.Head...)
		switch {
		case size <= maxScript && IsShellScript(prefix):
			facts.Text = prefix // the whole script: maxScript is within the prefix read
		case exact && size <= MaxSource:
			rest := make([]byte, size-int64(len(prefix)))
			if _, err := io.ReadFull(body, rest); err != nil {
				return nil, err
			}
			facts.Text = append(prefix, rest...)
		}
		return facts, nil
	}
	sparse := &elfinfo.Sparse{Size: size}
	sparse.Add(0, prefix)
	facts.Head = append([]byte(nil), facts.Head...)
	ranges := append(elfinfo.SegmentRanges(sparse), extra...)
	if end := elfinfo.FirstSegmentEnd(sparse); end > int64(len(prefix)) && end <= maxFirstSegment {
		ranges = append(ranges, elfinfo.Range{Offset: int64(len(prefix)), Length: end - int64(len(prefix))})
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].Offset < ranges[j].Offset })
	position := int64(len(prefix))
	captured := int64(len(prefix))
	for _, r := range ranges {
		start, end := max(r.Offset, position), min(r.End(), size)
		if end <= start {
			continue
		}
		if captured += end - start; captured > maxELFCapture {
			facts.ELFError = fmt.Sprintf("its dynamic tables are spread over more than %d MiB", maxELFCapture>>20)
			return facts, nil
		}
		if _, err := io.CopyN(io.Discard, body, start-position); err != nil {
			return nil, err
		}
		data := make([]byte, end-start)
		if _, err := io.ReadFull(body, data); err != nil {
			return nil, err
		}
		sparse.Add(start, data)
		position = end
	}
	info, err := elfinfo.Parse(sparse)
	var missing *elfinfo.MissingError
	switch {
	case err == nil:
		facts.ELF = info
	case errors.As(err, &missing):
		facts.ELFMissing = missing.Ranges
	default:
		facts.ELFError = err.Error()
	}
	return facts, nil
}
