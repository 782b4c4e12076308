package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint/model/checkpoint"
	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/savedmodel"
	"github.com/modellint/modellint/lint/model/tfrecord"
	"github.com/modellint/modellint/lint/model/wire"
)

// Limits TensorFlow and TF Serving impose, and ours.
const (
	// MaxProtobuf is protobuf's 2 GiB message limit: TensorFlow cannot
	// parse a larger saved_model.pb (larger graphs are chunked, .cpb).
	MaxProtobuf = 2<<30 - 1
	// MaxTextSavedModel bounds a saved_model.pbtxt read into memory.
	MaxTextSavedModel = 64 << 20
	// MaxIndex bounds a variables.index read; real ones are KiB to MiB.
	MaxIndex = 256 << 20
	// WarmupMaxRecords is TF Serving's kMaxNumRecords: a warmup file with
	// more records fails the model load.
	WarmupMaxRecords = 1000
	// WarmupFile is where TF Serving looks for warmup requests.
	WarmupFile = "assets.extra/tf_serving_warmup_requests"
)

// SavedModelDir is a directory that a server loads as a TensorFlow
// SavedModel, and what is in it.
type SavedModelDir struct {
	// Dir is relative to the model dir ("" is the model dir itself).
	Dir string
	// File is saved_model.pb or saved_model.pbtxt (the .pb wins, as in
	// TensorFlow's reader), relative to the model dir; "" when neither exists.
	File string
	Size int64
	// Chunked is saved_model.cpb, a chunked SavedModel, when present.
	Chunked string
	// TFLite is model.tflite, which TF Serving loads instead with --prefer_tflite_model.
	TFLite string
	// LegacyExport is export.meta of a pre-SavedModel session bundle.
	LegacyExport string
	// Nested is a directory below Dir that holds saved_model.pb, when
	// Dir itself has none: the model was copied one level too deep.
	Nested string

	// Graph is the parsed file; nil when it could not be read.
	Graph *savedmodel.SavedModel
	// Unread says File's content was not available (it is in
	// Model.Unread): Graph is nil with no ParseError, and what the graph
	// would show (signatures, ops, Assets) is unknown, not absent.
	Unread bool
	// Problems with File, as facts.
	Empty      bool
	LFSPointer bool
	// TooLarge says File is over protobuf's 2 GiB limit.
	TooLarge   bool
	ParseError string

	Variables   Variables
	Assets      []string // file names the graph reads from assets/
	Missing     []string // of Assets, those not in assets/
	Warmup      *Warmup
	Fingerprint *Fingerprint
}

// Variables is what variables/ holds.
type Variables struct {
	Dir bool // variables/ exists
	// Index is variables/variables.index relative to the model dir, "" when absent.
	Index      string
	LFSPointer bool
	// Unread says the index's content was not available (it is in
	// Model.Unread): Parsed is nil with no Error, and which shards the
	// model needs, and their sizes, are unknown, so Shards is empty.
	Unread bool
	Parsed *checkpoint.Index
	Error  string
	// Shards are the data files the index names, in order.
	Shards []Shard
}

// Shard is one variables.data-K-of-N file.
type Shard struct {
	File       string // relative to the model dir
	Present    bool
	Size       int64
	Need       int64 // bytes the index says are stored in it
	LFSPointer bool
}

// Warmup is assets.extra/tf_serving_warmup_requests.
type Warmup struct {
	File    string
	Records int
	// OverLimit says there are more than WarmupMaxRecords records.
	OverLimit  bool
	LFSPointer bool
	// Unread says the file's content was not available (it is in
	// Model.Unread): Records, OverLimit and Error are unknown.
	Unread bool
	Error  string
}

// Fingerprint is fingerprint.pb, a stable identity of the SavedModel.
type Fingerprint struct {
	File             string
	SavedModelHash   uint64
	GraphProgramHash uint64
	CheckpointHash   uint64
	// Unread says the file's content was not available (it is in
	// Model.Unread): the hashes are unknown, not zero.
	Unread bool
	Error  string
}

// HasVariableOps reports whether the graph creates variables, which must
// be restored from variables/ at load.
func (s *SavedModelDir) HasVariableOps() bool {
	if s.Graph == nil {
		return false
	}
	for _, graph := range s.Graph.MetaGraphs {
		for _, op := range []string{"VariableV2", "Variable", "VarHandleOp", "_VarHandlesOp", "RestoreV2"} {
			if graph.HasOp(op) {
				return true
			}
		}
	}
	return false
}

// Loadable says the dir has a SavedModel file a server could read.
func (s *SavedModelDir) Loadable() bool { return s.File != "" }

// readSavedModelDir collects the facts of a SavedModel dir.
func (l *loader) readSavedModelDir(dir string) (*SavedModelDir, error) {
	s := &SavedModelDir{Dir: dir}
	join := func(name string) string { return path.Join(dir, name) }
	for _, name := range []string{"saved_model.pb", "saved_model.pbtxt"} {
		if file := l.tree.file(join(name)); file != nil {
			s.File, s.Size, s.LFSPointer, s.Empty = file.Path, file.Size, file.LFSPointer, file.Size == 0
			break
		}
	}
	if l.tree.file(join("saved_model.cpb")) != nil {
		s.Chunked = join("saved_model.cpb")
	}
	if l.tree.file(join("model.tflite")) != nil {
		s.TFLite = join("model.tflite")
	}
	if l.tree.file(join("export.meta")) != nil {
		s.LegacyExport = join("export.meta")
	}
	if s.File == "" {
		subdirs, _ := l.tree.children(dir)
		for _, sub := range subdirs {
			if l.tree.file(path.Join(dir, sub, "saved_model.pb")) != nil || l.tree.file(path.Join(dir, sub, "saved_model.pbtxt")) != nil {
				s.Nested = path.Join(dir, sub)
				break
			}
		}
	}
	if err := l.readGraph(s); err != nil {
		return nil, err
	}
	if err := l.readVariables(s); err != nil {
		return nil, err
	}
	if s.Graph != nil {
		seen := map[string]bool{}
		for _, graph := range s.Graph.MetaGraphs {
			for _, asset := range graph.Assets {
				if seen[asset] {
					continue
				}
				seen[asset] = true
				s.Assets = append(s.Assets, asset)
				if l.tree.file(path.Join(dir, "assets", asset)) == nil {
					s.Missing = append(s.Missing, asset)
				}
			}
		}
	}
	if file := l.tree.file(join(WarmupFile)); file != nil {
		warmup, err := l.readWarmup(file)
		if err != nil {
			return nil, err
		}
		s.Warmup = warmup
	}
	if file := l.tree.file(join("fingerprint.pb")); file != nil {
		fingerprint, err := l.readFingerprint(file)
		if err != nil {
			return nil, err
		}
		s.Fingerprint = fingerprint
	}
	return s, nil
}

func (l *loader) readGraph(s *SavedModelDir) error {
	if s.File == "" || s.Empty || s.LFSPointer {
		return nil
	}
	s.TooLarge = s.Size > MaxProtobuf
	f, err := l.tree.open(s.File)
	if err != nil {
		return l.fileError(s.File, err)
	}
	defer f.Close()
	if strings.HasSuffix(s.File, ".pbtxt") {
		if s.Size > MaxTextSavedModel {
			s.ParseError = fmt.Sprintf("%d MiB of text, more than the %d MiB modellint reads", s.Size>>20, MaxTextSavedModel>>20)
			return nil
		}
		text, err := io.ReadAll(io.LimitReader(f, MaxTextSavedModel))
		if l.unread(f) {
			s.Unread = true
			return nil
		}
		if err != nil {
			return l.fileError(s.File, err)
		}
		s.Graph, err = savedmodel.ReadText(text)
		return s.problem(err)
	}
	graph, err := savedmodel.Read(f, s.Size)
	if l.unread(f) {
		s.Unread = true
		return nil
	}
	s.Graph = graph
	return s.problem(err)
}

// problem records a content error as a fact; I/O errors end the run.
func (s *SavedModelDir) problem(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, modelfile.ErrInvalid) {
		s.ParseError = modelfile.Reason(err)
		s.Graph = nil
		return nil
	}
	return fmt.Errorf("%s: %w", s.File, err)
}

func (l *loader) readVariables(s *SavedModelDir) error {
	dir := path.Join(s.Dir, "variables")
	s.Variables.Dir = l.tree.isDir(dir)
	index := l.tree.file(path.Join(dir, "variables.index"))
	if index == nil {
		return nil
	}
	v := &s.Variables
	v.Index, v.LFSPointer = index.Path, index.LFSPointer
	if v.LFSPointer {
		return nil
	}
	if index.Size > MaxIndex {
		v.Error = fmt.Sprintf("%d MiB, more than the %d MiB modellint reads", index.Size>>20, MaxIndex>>20)
		return nil
	}
	f, err := l.tree.open(index.Path)
	if err != nil {
		return l.fileError(index.Path, err)
	}
	defer f.Close()
	parsed, err := checkpoint.Read(f, index.Size)
	if l.unread(f) {
		v.Unread = true
		return nil
	}
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(index.Path, err)
		}
		v.Error = modelfile.Reason(err)
		return nil
	}
	v.Parsed = parsed
	for k := 0; k < parsed.NumShards; k++ {
		shard := Shard{File: path.Join(dir, checkpoint.DataFile(k, parsed.NumShards)), Need: parsed.ShardEnds[k]}
		if file := l.tree.file(shard.File); file != nil {
			shard.Present, shard.Size, shard.LFSPointer = true, file.Size, file.LFSPointer
		}
		v.Shards = append(v.Shards, shard)
	}
	return nil
}

func (l *loader) readWarmup(file *File) (*Warmup, error) {
	warmup := &Warmup{File: file.Path, LFSPointer: file.LFSPointer}
	if warmup.LFSPointer {
		return warmup, nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return nil, l.fileError(file.Path, err)
	}
	defer f.Close()
	records, more, err := tfrecord.Read(f, file.Size, WarmupMaxRecords, func(number int, payload []byte) error {
		if payload == nil || isPredictionLog(payload) {
			return nil
		}
		return modelfile.Invalidf(tfrecord.FormatName, "record %d is not a PredictionLog holding a request", number)
	})
	if l.unread(f) {
		warmup.Unread = true
		return warmup, nil
	}
	warmup.Records, warmup.OverLimit = records, more
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return nil, l.fileError(file.Path, err)
		}
		warmup.Error = modelfile.Reason(err)
	}
	return warmup, nil
}

// isPredictionLog reports whether a record is a PredictionLog with one of
// the request logs TF Serving can replay (classify 2, regress 3,
// multi_inference 4, session_run 5, predict 6, predict_streamed 7).
func isPredictionLog(payload []byte) bool {
	request := false
	err := wire.NewReader(bytes.NewReader(payload), int64(len(payload))).Root().Range(func(f wire.Field) error {
		if f.Number >= 2 && f.Number <= 7 && f.Type == protowire.BytesType {
			request = true
		}
		return nil
	})
	return err == nil && request
}

func (l *loader) readFingerprint(file *File) (*Fingerprint, error) {
	fingerprint := &Fingerprint{File: file.Path}
	if file.Size > 1<<20 || file.LFSPointer {
		fingerprint.Error = "not a fingerprint"
		return fingerprint, nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return nil, l.fileError(file.Path, err)
	}
	defer f.Close()
	err = wire.NewReader(f, file.Size).Root().Range(func(field wire.Field) error {
		if field.Type != protowire.VarintType {
			return nil
		}
		switch field.Number {
		case 1:
			fingerprint.SavedModelHash = field.Varint
		case 2:
			fingerprint.GraphProgramHash = field.Varint
		case 5:
			fingerprint.CheckpointHash = field.Varint
		}
		return nil
	})
	if l.unread(f) {
		*fingerprint = Fingerprint{File: file.Path, Unread: true}
		return fingerprint, nil
	}
	if err != nil {
		if !errors.Is(err, wire.ErrMalformed) {
			return nil, l.fileError(file.Path, err)
		}
		fingerprint.Error = err.Error()
	}
	return fingerprint, nil
}
