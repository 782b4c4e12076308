// Package savedmodel reads a TensorFlow SavedModel's saved_model.pb (or
// saved_model.pbtxt) into facts: meta graphs with their tags, signatures,
// the TensorFlow version that wrote them, the ops in the graph and its
// function library, and the asset files the graph names. It decodes the
// protobuf wire format directly, so constants and other large attribute
// values are skipped without being read.
package savedmodel

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/tfdtype"
	"github.com/modellint/modellint/lint/model/wire"
)

// maxName bounds every name, tag and version string read: real ones are
// short, and a hostile file must not make one allocation per gigabyte.
const maxName = 64 << 10

// SavedModel is what a saved_model.pb says.
type SavedModel struct {
	SchemaVersion int64
	MetaGraphs    []MetaGraph
}

// MetaGraph is one MetaGraphDef: a graph that a server loads by its tags.
type MetaGraph struct {
	Tags                 []string
	TensorFlowVersion    string // e.g. 2.14.0
	TensorFlowGitVersion string
	Signatures           []Signature // sorted by key
	// Ops are the op types used by the graph's nodes, its function library
	// and the stripped op list, sorted and unique.
	Ops []string
	// Nodes counts the nodes of the graph and of every library function.
	Nodes     int
	Functions int
	// Assets are file names, relative to the version's assets/ dir, that
	// the graph reads at load time (asset_file_def, and the
	// saved_model_assets collection of TF1 exports).
	Assets []string
	// PrintStreams are the output_stream attributes of PrintV2 nodes, so
	// that a print to a file can be told from one to stderr.
	PrintStreams []string
	// ObjectGraph says the export has a SavedObjectGraph (TF2).
	ObjectGraph bool
}

// Signature is one SignatureDef.
type Signature struct {
	Key     string
	Method  string // tensorflow/serving/predict, .../classify, .../regress
	Inputs  []TensorInfo
	Outputs []TensorInfo
}

// TensorInfo describes one input or output of a signature.
type TensorInfo struct {
	Key         string // the key clients use
	Name        string // the graph tensor, e.g. x:0
	DType       string // e.g. DT_FLOAT
	Shape       []int64
	UnknownRank bool
}

// HasTags reports whether the meta graph's tag set is exactly tags, the
// match TensorFlow's loader requires.
func (m *MetaGraph) HasTags(tags ...string) bool {
	set := map[string]bool{}
	for _, tag := range m.Tags {
		set[tag] = true
	}
	if len(set) != len(tags) {
		return false
	}
	for _, tag := range tags {
		if !set[tag] {
			return false
		}
	}
	return true
}

// Signature returns the signature with the key, or nil.
func (m *MetaGraph) Signature(key string) *Signature {
	for i := range m.Signatures {
		if m.Signatures[i].Key == key {
			return &m.Signatures[i]
		}
	}
	return nil
}

// HasOp reports whether any node of the graph or its library has the op type.
func (m *MetaGraph) HasOp(op string) bool {
	i := sort.SearchStrings(m.Ops, op)
	return i < len(m.Ops) && m.Ops[i] == op
}

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "not a valid SavedModel"

// Read decodes a binary saved_model.pb of size bytes.
func Read(r io.ReaderAt, size int64) (*SavedModel, error) {
	saved := &SavedModel{}
	err := wire.NewReader(r, size).Root().Range(func(f wire.Field) error {
		switch {
		case f.Number == 1 && f.Type == protowire.VarintType:
			saved.SchemaVersion = int64(f.Varint)
		case f.Number == 2 && f.Type == protowire.BytesType:
			graph, err := readMetaGraph(f.Message())
			if err != nil {
				return fmt.Errorf("meta_graphs[%d]: %w", len(saved.MetaGraphs), err)
			}
			saved.MetaGraphs = append(saved.MetaGraphs, *graph)
		default:
			return unexpected("SavedModel", f)
		}
		return nil
	})
	if err != nil {
		return nil, invalid(err)
	}
	return saved, nil
}

// invalid marks content errors so callers can tell them from I/O errors.
func invalid(err error) error {
	if errors.Is(err, wire.ErrMalformed) || errors.Is(err, modelfile.ErrInvalid) {
		return modelfile.Invalidf(FormatName, "%w", err)
	}
	return err
}

// unexpected rejects a known field number with the wrong wire type: a file
// that is not a SavedModel usually fails here within its first bytes.
func unexpected(message string, f wire.Field) error {
	return modelfile.Invalidf(FormatName, "%s has no field %d of wire type %d", message, f.Number, f.Type)
}

func readMetaGraph(m wire.Message) (*MetaGraph, error) {
	graph := &MetaGraph{}
	ops := map[string]bool{}
	err := m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			if f.Number <= 7 {
				return unexpected("MetaGraphDef", f)
			}
			return nil
		}
		switch f.Number {
		case 1:
			return readMetaInfo(f.Message(), graph, ops)
		case 2:
			return readGraph(f.Message(), graph, ops)
		case 4:
			return readCollection(f.Message(), graph)
		case 5:
			signature, err := readSignatureEntry(f.Message())
			if err != nil {
				return fmt.Errorf("signature_def: %w", err)
			}
			graph.Signatures = append(graph.Signatures, *signature)
		case 6:
			name, err := readAssetFile(f.Message())
			if err != nil {
				return fmt.Errorf("asset_file_def: %w", err)
			}
			graph.Assets = append(graph.Assets, name)
		case 7:
			graph.ObjectGraph = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	graph.Ops = slices.Sorted(maps.Keys(ops))
	sort.Slice(graph.Signatures, func(i, j int) bool { return graph.Signatures[i].Key < graph.Signatures[j].Key })
	graph.Assets = uniqueSorted(graph.Assets)
	graph.PrintStreams = uniqueSorted(graph.PrintStreams)
	return graph, nil
}

func readMetaInfo(m wire.Message, graph *MetaGraph, ops map[string]bool) error {
	return m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		var err error
		switch f.Number {
		case 2: // stripped_op_list: OpList{op: OpDef{name}}
			err = f.Message().Range(func(op wire.Field) error {
				if op.Number != 1 || op.Type != protowire.BytesType {
					return nil
				}
				name, err := firstString(op.Message(), 1)
				if name != "" {
					ops[name] = true
				}
				return err
			})
		case 4:
			var tag string
			tag, err = f.String(maxName)
			graph.Tags = append(graph.Tags, tag)
		case 5:
			graph.TensorFlowVersion, err = f.String(maxName)
		case 6:
			graph.TensorFlowGitVersion, err = f.String(maxName)
		}
		return err
	})
}

func readGraph(m wire.Message, graph *MetaGraph, ops map[string]bool) error {
	return m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		switch f.Number {
		case 1:
			return readNode(f.Message(), graph, ops)
		case 2: // library: FunctionDefLibrary{function: FunctionDef}
			return f.Message().Range(func(function wire.Field) error {
				if function.Number != 1 || function.Type != protowire.BytesType {
					return nil
				}
				graph.Functions++
				return function.Message().Range(func(part wire.Field) error {
					if part.Number == 3 && part.Type == protowire.BytesType { // node_def
						return readNode(part.Message(), graph, ops)
					}
					return nil
				})
			})
		}
		return nil
	})
}

// readNode records a NodeDef's op. Attributes are skipped unread except
// PrintV2's output_stream, which says where the print goes.
func readNode(m wire.Message, graph *MetaGraph, ops map[string]bool) error {
	graph.Nodes++
	var op string
	var attrs []wire.Message
	err := m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		var err error
		switch f.Number {
		case 2:
			op, err = f.String(maxName)
		case 5:
			attrs = append(attrs, f.Message())
		}
		return err
	})
	if err != nil {
		return err
	}
	if op != "" {
		ops[op] = true
	}
	if op != "PrintV2" {
		return nil
	}
	for _, attr := range attrs {
		key, err := firstString(attr, 1)
		if err != nil || key != "output_stream" {
			continue
		}
		err = attr.Range(func(f wire.Field) error {
			if f.Number != 2 || f.Type != protowire.BytesType {
				return nil
			}
			stream, err := firstString(f.Message(), 2) // AttrValue.s
			graph.PrintStreams = append(graph.PrintStreams, stream)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readCollection reads the saved_model_assets collection of TF1 exports:
// CollectionDef.any_list holding Any(AssetFileDef).
func readCollection(entry wire.Message, graph *MetaGraph) error {
	key, err := firstString(entry, 1)
	if err != nil || key != "saved_model_assets" {
		return err
	}
	return entry.Range(func(value wire.Field) error {
		if value.Number != 2 || value.Type != protowire.BytesType {
			return nil
		}
		return value.Message().Range(func(list wire.Field) error {
			if list.Number != 5 || list.Type != protowire.BytesType { // any_list
				return nil
			}
			return list.Message().Range(func(anyValue wire.Field) error {
				if anyValue.Number != 1 || anyValue.Type != protowire.BytesType {
					return nil
				}
				return anyValue.Message().Range(func(part wire.Field) error {
					if part.Number != 2 || part.Type != protowire.BytesType { // Any.value
						return nil
					}
					name, err := readAssetFile(part.Message())
					if name != "" {
						graph.Assets = append(graph.Assets, name)
					}
					return err
				})
			})
		})
	})
}

func readAssetFile(m wire.Message) (string, error) { return firstString(m, 2) }

func readSignatureEntry(entry wire.Message) (*Signature, error) {
	signature := &Signature{}
	err := entry.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		var err error
		switch f.Number {
		case 1:
			signature.Key, err = f.String(maxName)
		case 2:
			err = f.Message().Range(func(part wire.Field) error {
				if part.Type != protowire.BytesType {
					return nil
				}
				switch part.Number {
				case 1, 2:
					info, err := readTensorEntry(part.Message())
					if err != nil {
						return err
					}
					if part.Number == 1 {
						signature.Inputs = append(signature.Inputs, *info)
					} else {
						signature.Outputs = append(signature.Outputs, *info)
					}
				case 3:
					var err error
					signature.Method, err = part.String(maxName)
					return err
				}
				return nil
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sortTensors(signature.Inputs)
	sortTensors(signature.Outputs)
	return signature, nil
}

func sortTensors(tensors []TensorInfo) {
	sort.Slice(tensors, func(i, j int) bool { return tensors[i].Key < tensors[j].Key })
}

func readTensorEntry(entry wire.Message) (*TensorInfo, error) {
	info := &TensorInfo{DType: tfdtype.Name(0)}
	err := entry.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		var err error
		switch f.Number {
		case 1:
			info.Key, err = f.String(maxName)
		case 2:
			err = f.Message().Range(func(part wire.Field) error {
				switch {
				case part.Number == 1 && part.Type == protowire.BytesType:
					var err error
					info.Name, err = part.String(maxName)
					return err
				case part.Number == 2 && part.Type == protowire.VarintType:
					info.DType = tfdtype.Name(part.Varint)
				case part.Number == 3 && part.Type == protowire.BytesType:
					return readShape(part.Message(), info)
				}
				return nil
			})
		}
		return err
	})
	return info, err
}

func readShape(m wire.Message, info *TensorInfo) error {
	return m.Range(func(f wire.Field) error {
		switch {
		case f.Number == 2 && f.Type == protowire.BytesType:
			size := int64(0)
			err := f.Message().Range(func(dim wire.Field) error {
				if dim.Number == 1 && dim.Type == protowire.VarintType {
					size = int64(dim.Varint)
				}
				return nil
			})
			info.Shape = append(info.Shape, size)
			return err
		case f.Number == 3 && f.Type == protowire.VarintType:
			info.UnknownRank = f.Varint != 0
		}
		return nil
	})
}

// firstString returns the last value of a string field of a small message
// (protobuf's rule for a scalar given twice).
func firstString(m wire.Message, number protowire.Number) (string, error) {
	var value string
	err := m.Range(func(f wire.Field) error {
		if f.Number != number || f.Type != protowire.BytesType {
			return nil
		}
		var err error
		value, err = f.String(maxName)
		return err
	})
	return value, err
}

func uniqueSorted(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, value := range values {
		set[value] = true
	}
	return slices.Sorted(maps.Keys(set))
}
