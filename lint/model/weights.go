package model

import (
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/model/gguf"
	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/onnx"
	"github.com/modellint/modellint/lint/model/pickle"
	"github.com/modellint/modellint/lint/model/safetensors"
)

// SafetensorsFile is one .safetensors file's header.
type SafetensorsFile struct {
	Path string
	// Header is nil when the header could not be read; with Error set it
	// may still hold the header of a file whose size does not match it.
	Header *safetensors.File
	Error  string
}

// SafetensorsIndex is a sharded checkpoint's index and how it matches
// the files.
type SafetensorsIndex struct {
	Path  string
	Index *safetensors.Index
	Error string
	// MissingShards are shard names the index maps tensors to that are not
	// files next to it (or that point outside the model dir).
	MissingShards []string
	// MissingTensors are tensors the index places in a shard whose header
	// does not have them (first few, sorted), and MissingTensorCount all of them.
	MissingTensors     []string
	MissingTensorCount int
}

// ONNXFile is one .onnx file.
type ONNXFile struct {
	Path  string
	Model *onnx.Model
	Error string
	// External are the model's external data references, resolved.
	External []ExternalFile
}

// ExternalFile is one external data file of an ONNX model.
type ExternalFile struct {
	// Location is as written in the model; Path is resolved against the
	// .onnx file's dir ("" when it escapes the model dir).
	Location string
	Path     string
	Tensors  int
	// Need is the least size the file must have (largest offset + length).
	Need    int64
	Present bool
	Size    int64
	// Escapes says Location is absolute or climbs out of the model dir.
	Escapes bool
}

// GGUFFile is one .gguf file's header (llama.cpp, Ollama).
type GGUFFile struct {
	Path string
	// Header is nil when the header could not be read (Error says why).
	Header *gguf.File
	Error  string
}

// PickleFile is one pickle-based file and what it imports.
type PickleFile struct {
	Path  string
	Scan  *pickle.Scan
	Error string
}

// Caps on what header reads hold in memory.
const (
	maxSafetensorsIndex = safetensors.MaxIndex
	maxListedTensors    = 5
)

// readWeights reads the headers of every weight file by its kind.
func (l *loader) readWeights() error {
	m := l.model
	for i := range l.tree.files {
		file := &l.tree.files[i]
		if file.LFSPointer || file.Size == 0 {
			continue // reported as such; there is no header to read
		}
		name := path.Base(file.Path)
		var err error
		switch {
		case strings.HasSuffix(name, ".safetensors"):
			err = l.readSafetensors(file)
		case strings.HasSuffix(name, ".safetensors.index.json"):
			err = l.readSafetensorsIndex(file)
		case strings.HasSuffix(name, ".onnx"):
			err = l.readONNX(file)
		case strings.HasSuffix(strings.ToLower(name), ".gguf"):
			err = l.readGGUF(file)
		case IsPickleName(name):
			err = l.readPickle(file, name)
		}
		if err != nil {
			return err
		}
	}
	for i := range m.SafetensorsIndexes {
		l.matchIndex(&m.SafetensorsIndexes[i])
	}
	return nil
}

func (l *loader) readSafetensors(file *File) error {
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	header, err := safetensors.Read(f, file.Size)
	if l.unread(f) {
		return nil
	}
	entry := SafetensorsFile{Path: file.Path, Header: header}
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		entry.Error = modelfile.Reason(err)
	}
	l.model.Safetensors = append(l.model.Safetensors, entry)
	return nil
}

func (l *loader) readGGUF(file *File) error {
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	header, err := gguf.Read(f, file.Size)
	if l.unread(f) {
		return nil
	}
	entry := GGUFFile{Path: file.Path, Header: header}
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		entry.Error = modelfile.Reason(err)
	}
	l.model.GGUF = append(l.model.GGUF, entry)
	return nil
}

func (l *loader) readSafetensorsIndex(file *File) error {
	entry := SafetensorsIndex{Path: file.Path}
	if file.Size > maxSafetensorsIndex {
		entry.Error = fmt.Sprintf("%d MiB, more than the %d MiB modellint reads", file.Size>>20, maxSafetensorsIndex>>20)
		l.model.SafetensorsIndexes = append(l.model.SafetensorsIndexes, entry)
		return nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSafetensorsIndex))
	if l.unread(f) {
		return nil
	}
	if err != nil {
		return l.fileError(file.Path, err)
	}
	entry.Index, err = safetensors.ReadIndex(data)
	if err != nil {
		entry.Error = modelfile.Reason(err)
	}
	l.model.SafetensorsIndexes = append(l.model.SafetensorsIndexes, entry)
	return nil
}

// matchIndex checks an index against the shard files and their headers.
func (l *loader) matchIndex(entry *SafetensorsIndex) {
	if entry.Index == nil {
		return
	}
	dir := path.Dir(entry.Path)
	headers := map[string]*safetensors.File{}
	for _, shard := range l.model.Safetensors {
		headers[shard.Path] = shard.Header
	}
	tensorsByShard := map[string]map[string]bool{}
	for _, shard := range entry.Index.Shards() {
		rel, ok := resolve(dir, shard)
		if !ok || l.tree.file(rel) == nil {
			entry.MissingShards = append(entry.MissingShards, shard)
			continue
		}
		if header := headers[rel]; header != nil {
			set := map[string]bool{}
			for _, tensor := range header.Tensors {
				set[tensor] = true
			}
			tensorsByShard[shard] = set
		}
	}
	var missing []string
	for tensor, shard := range entry.Index.WeightMap {
		if set, ok := tensorsByShard[shard]; ok && !set[tensor] {
			missing = append(missing, tensor)
		}
	}
	entry.MissingTensorCount = len(missing)
	entry.MissingTensors = firstSorted(missing, maxListedTensors)
}

// resolve joins a name written in a model file to the dir it is relative
// to; false when it is absolute (also a Windows drive path) or climbs out
// of the model dir.
func resolve(dir, name string) (string, bool) {
	name = strings.ReplaceAll(name, "\\", "/")
	if name == "" || path.IsAbs(name) || len(name) >= 2 && name[1] == ':' {
		return "", false
	}
	joined := path.Join(dir, name)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", false
	}
	return joined, true
}

func (l *loader) readONNX(file *File) error {
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	model, err := onnx.Read(f, file.Size)
	if l.unread(f) {
		return nil
	}
	entry := ONNXFile{Path: file.Path, Model: model}
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		entry.Error = modelfile.Reason(err)
		entry.Model = nil
	}
	if model != nil && err == nil {
		byLocation := map[string]*ExternalFile{}
		var order []string
		for _, ref := range model.External {
			external := byLocation[ref.Location]
			if external == nil {
				external = &ExternalFile{Location: ref.Location}
				if rel, ok := resolve(path.Dir(file.Path), ref.Location); ok {
					external.Path = rel
					if data := l.tree.file(rel); data != nil {
						external.Present, external.Size = true, data.Size
					}
				} else {
					external.Escapes = true
				}
				byLocation[ref.Location] = external
				order = append(order, ref.Location)
			}
			external.Tensors++
			if ref.Length >= 0 && ref.Offset+ref.Length > external.Need {
				external.Need = ref.Offset + ref.Length
			}
		}
		for _, location := range order {
			entry.External = append(entry.External, *byLocation[location])
		}
	}
	l.model.ONNX = append(l.model.ONNX, entry)
	return nil
}

// pickleExtensions are files written with pickle or torch.save.
var pickleExtensions = map[string]bool{".pt": true, ".pth": true, ".pkl": true, ".pickle": true, ".joblib": true, ".ckpt": true, ".bin": true}

// sniffed are extensions other formats use too (OpenVINO's .bin weights,
// TensorFlow's .ckpt): scanned only when the file starts like torch.save's
// output, a zip archive or a protocol-2+ pickle.
var sniffed = map[string]bool{".pt": true, ".pth": true, ".ckpt": true, ".bin": true}

// IsPickleName reports whether a file name is one the loader scans as a
// pickle (Model.Pickles): written with pickle or torch.save, or, for the
// extensions other formats share, when the content starts like it.
func IsPickleName(name string) bool { return pickleExtensions[strings.ToLower(path.Ext(name))] }

func (l *loader) readPickle(file *File, name string) error {
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	if sniffed[strings.ToLower(path.Ext(name))] {
		head := make([]byte, 4)
		n, _ := f.ReadAt(head, 0)
		if l.unread(f) {
			return nil
		}
		if !(n >= 2 && head[0] == 0x80 && head[1] <= 5) && string(head[:n]) != "PK\x03\x04" {
			return nil // neither torch.save's zip nor a pickle: raw weights, a TF checkpoint
		}
	}
	scan, err := pickle.ScanFile(f, file.Size)
	if l.unread(f) {
		return nil
	}
	entry := PickleFile{Path: file.Path, Scan: scan}
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		entry.Error = modelfile.Reason(err)
	}
	l.model.Pickles = append(l.model.Pickles, entry)
	return nil
}

// sumWeights fills WeightBytes and Parameters for what the server loads.
func (l *loader) sumWeights() {
	m := l.model
	add := func(bytes, parameters int64) {
		m.WeightBytes += bytes
		m.Parameters += parameters
	}
	inResident := func(rel string) bool {
		if m.Layout != LayoutTFServing && m.Layout != LayoutTriton {
			return true
		}
		for _, version := range m.Resident() {
			if strings.HasPrefix(rel, version.Path+"/") {
				return true
			}
		}
		return false
	}
	for _, version := range m.Resident() {
		if version.SavedModel != nil && version.SavedModel.Variables.Parsed != nil {
			index := version.SavedModel.Variables.Parsed
			add(index.Bytes, index.Parameters)
		}
	}
	used := map[string]bool{}
	indexed := false
	for _, entry := range m.SafetensorsIndexes {
		if entry.Index == nil {
			continue
		}
		indexed = true
		for _, shard := range entry.Index.Shards() {
			if rel, ok := resolve(path.Dir(entry.Path), shard); ok {
				used[rel] = true
			}
		}
	}
	for _, file := range m.Safetensors {
		if file.Header != nil && inResident(file.Path) && (!indexed || used[file.Path]) {
			add(file.Header.ParameterBytes, file.Header.Parameters)
		}
	}
	for _, file := range m.ONNX {
		if file.Model != nil && inResident(file.Path) {
			external := int64(0)
			for _, ref := range file.Model.External {
				if ref.Length > 0 {
					external += ref.Length
				}
			}
			add(file.Model.InlineBytes+external, file.Model.Parameters)
		}
	}
	if l.weightHeaderUnread(inResident, indexed, used) {
		m.WeightBytes, m.Parameters = 0, 0 // unknown, rather than short
	}
}

// weightHeaderUnread reports whether a header that sumWeights would add
// is in Unread: the resident versions' variables.index, or a resident
// ONNX file, safetensors index or safetensors file the index uses.
func (l *loader) weightHeaderUnread(inResident func(string) bool, indexed bool, used map[string]bool) bool {
	for _, version := range l.model.Resident() {
		if version.SavedModel != nil && version.SavedModel.Variables.Unread {
			return true
		}
	}
	for rel := range l.unreadFiles {
		name := path.Base(rel)
		switch {
		case !inResident(rel):
		case strings.HasSuffix(name, ".onnx"), strings.HasSuffix(name, ".safetensors.index.json"):
			return true
		case strings.HasSuffix(name, ".safetensors") && (!indexed || used[rel]):
			return true
		}
	}
	return false
}

func firstSorted(values []string, n int) []string {
	sorted := append([]string(nil), values...)
	sort.Strings(sorted)
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	return sorted
}
